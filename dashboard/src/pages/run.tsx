// One run: its state and live progress, cancel or delete, links, then its evaluator's own view (plots and tables).
import { useEffect, useState } from "preact/hooks";
import { getRun, type Run } from "@assay/sdk";
import { call, client } from "../api.ts";
import { cancelOrEnded } from "../cancel.ts";
import { age, FINAL, useLiveRun } from "../live.ts";
import { useFullResult } from "../full-result.ts";
import { ProgressBar } from "../components/progress.tsx";
import { DeleteRun } from "../components/delete-run.tsx";
import { href, navigate } from "../route.ts";
import { EndpointView } from "../components/endpoint.tsx";
import { evaluators } from "../evaluators/index.ts";

export function RunPage({ id }: { id: string }) {
  const [run, setRun] = useState<Run | null>(null);
  const [error, setError] = useState<string | null>(null);
  useEffect(() => {
    setRun(null);
    call(getRun({ client, path: { run_id: id } })).then(setRun, (e: Error) => setError(e.message));
  }, [id]);
  const live = useLiveRun(run);
  // A result too large to inline in the run is fetched from its result_url.
  const full = useFullResult(live?.status === "succeeded" ? live : null);
  if (error)
    return (
      <p role="alert" class="error">
        {error}
      </p>
    );
  if (!live) return <p>Loading…</p>;
  const cancel = async () => {
    try {
      setRun(await cancelOrEnded(id));
    } catch (e) {
      setError((e as Error).message);
    }
  };
  return (
    <article class="run" data-evaluator={live.evaluator} data-status={live.status}>
      <header class="run-head">
        <h1>
          {live.evaluator} <small>{live.id}</small>
        </h1>
        <p>
          <span class={`status ${live.status}`}>{live.status}</span> <ProgressBar progress={live.progress} />{" "}
          <span title={live.created_at}>started {age(live.created_at)}</span>
          {!FINAL.has(live.status) && (
            <button type="button" onClick={cancel}>
              Cancel run
            </button>
          )}
        </p>
        {/* Only an ended run can be deleted (the API answers 409 otherwise): cancel comes first. */}
        {FINAL.has(live.status) && <DeleteRun id={live.id} onDeleted={() => navigate(href.runs())} />}
        {live.error && <p class="error">{live.error}</p>}
      </header>
      {live.status === "succeeded" ? (
        full.error ? (
          <p role="alert" class="error">
            {full.error}
          </p>
        ) : full.run ? (
          <ResultView run={full.run} />
        ) : (
          <p>Loading the result…</p>
        )
      ) : !FINAL.has(live.status) ? (
        <p>The results appear here when the run has ended.</p>
      ) : null}
      {/* After the results: how the endpoint was used is secondary to what was measured. */}
      <EndpointView run={live} />
    </article>
  );
}

function ResultView({ run }: { run: Run }) {
  const View = evaluators.get(run.evaluator)?.runs?.View;
  return View ? <View run={run} /> : <p>This dashboard has no view of {run.evaluator} runs.</p>;
}
