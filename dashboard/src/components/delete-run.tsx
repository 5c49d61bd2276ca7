// Deleting a run from its page: one button, then a confirmation that says what goes, as nothing of a
// deleted run can be brought back.
import { useState } from "preact/hooks";
import { deleteRun } from "@assay/sdk";
import { call, client } from "../api.ts";

export function DeleteRun({ id, onDeleted }: { id: string; onDeleted: () => void }) {
  const [asking, setAsking] = useState(false);
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<string | null>(null);
  const remove = async () => {
    setBusy(true);
    try {
      await call(deleteRun({ client, path: { run_id: id } }));
      onDeleted();
    } catch (e) {
      setError((e as Error).message);
      setBusy(false);
    }
  };
  if (!asking)
    return (
      <button type="button" class="danger" onClick={() => setAsking(true)}>
        Delete run
      </button>
    );
  return (
    <div role="alertdialog" aria-labelledby={`delete-${id}`} class="confirm">
      <p id={`delete-${id}`}>Delete this run with its samples, result and comparisons? This cannot be undone.</p>
      <button type="button" class="danger" disabled={busy} onClick={remove}>
        Delete for good
      </button>{" "}
      <button type="button" disabled={busy} onClick={() => setAsking(false)}>
        Keep it
      </button>
      {error && (
        <p role="alert" class="error">
          {error}
        </p>
      )}
    </div>
  );
}
