// Runs: newest first, filtered by evaluator and status, each with its live progress and a cancel button.
import { useEffect, useState } from "preact/hooks";
import { listRuns, type Run } from "@assay/sdk";
import { call, client } from "../api.ts";
import { cancelOrEnded } from "../cancel.ts";
import { evaluators } from "../evaluators/index.ts";
import { age, FINAL, useLiveRun } from "../live.ts";
import { href } from "../route.ts";
import { ProgressBar } from "../components/progress.tsx";

const STATUSES = ["queued", "running", "succeeded", "failed", "canceled"] as const;
type Status = (typeof STATUSES)[number];

export function RunsPage() {
  const [evaluator, setEvaluator] = useState("");
  const [status, setStatus] = useState<Status | "">("");
  const [runs, setRuns] = useState<Run[] | null>(null);
  const [cursor, setCursor] = useState<string | null>(null);
  const [error, setError] = useState<string | null>(null);

  const load = async (after?: string) => {
    try {
      const page = await call(
        listRuns({
          client,
          query: { evaluator: evaluator || undefined, status: status || undefined, limit: 20, after },
        }),
      );
      setRuns((cur) => (after && cur ? [...cur, ...page.data] : page.data));
      setCursor(page.has_more ? page.next_cursor : null);
      setError(null);
    } catch (e) {
      setError((e as Error).message);
    }
  };
  useEffect(() => {
    setRuns(null);
    void load();
  }, [evaluator, status]);

  return (
    <section>
      <h1>Runs</h1>
      <div class="filters">
        <label>
          Evaluator
          <select value={evaluator} onChange={(e) => setEvaluator(e.currentTarget.value)}>
            <option value="">all</option>
            {evaluators.withRuns().map((e) => (
              <option key={e.name} value={e.name}>
                {e.title}
              </option>
            ))}
          </select>
        </label>
        <label>
          Status
          <select value={status} onChange={(e) => setStatus(e.currentTarget.value as Status | "")}>
            <option value="">all</option>
            {STATUSES.map((s) => (
              <option key={s} value={s}>
                {s}
              </option>
            ))}
          </select>
        </label>
      </div>
      {error && (
        <p role="alert" class="error">
          {error}
        </p>
      )}
      {runs === null ? (
        <p>Loading…</p>
      ) : runs.length === 0 ? (
        <p>No runs yet: start one from “New run”.</p>
      ) : (
        <table class="runs">
          <thead>
            <tr>
              <th>Run</th>
              <th>Evaluator</th>
              <th>Status</th>
              <th>Progress</th>
              <th>Age</th>
              <th></th>
            </tr>
          </thead>
          <tbody>
            {runs.map((r) => (
              <RunRow key={r.id} run={r} />
            ))}
          </tbody>
        </table>
      )}
      {cursor && (
        <button type="button" onClick={() => load(cursor)}>
          More
        </button>
      )}
    </section>
  );
}

function RunRow({ run }: { run: Run }) {
  const live = useLiveRun(run) ?? run;
  const [error, setError] = useState<string | null>(null);
  const [current, setCurrent] = useState<Run>(live);
  useEffect(() => setCurrent(live), [live]);
  const cancel = async () => {
    try {
      setCurrent(await cancelOrEnded(run.id));
    } catch (e) {
      setError((e as Error).message);
    }
  };
  return (
    <tr data-run={run.id}>
      <td>
        <a href={href.run(run.id)}>{run.id}</a>
      </td>
      <td>{run.evaluator}</td>
      <td>
        <span class={`status ${current.status}`}>{current.status}</span>
      </td>
      <td>
        <ProgressBar progress={current.progress} />
      </td>
      <td title={run.created_at}>{age(run.created_at)}</td>
      <td>
        {!FINAL.has(current.status) && (
          <button type="button" class="small" onClick={cancel}>
            Cancel
          </button>
        )}
        {error && (
          <span role="alert" class="error">
            {error}
          </span>
        )}
      </td>
    </tr>
  );
}
