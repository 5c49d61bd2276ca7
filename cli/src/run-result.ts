// A run's full result. The API inlines a result in the run only while it is small; a larger one (a judge
// run of thousands of items) is null there and served at `result_url` (`GET /v1/runs/{id}/result`), so
// every command that reads `run.result` takes its run through here.
import { getRun, getRunResult, type Run } from "@assay/sdk";
import { call, type Session } from "./session.ts";

/** The run with its `result` filled in from `result_url` when the API did not inline it. */
export async function withFullResult<R extends Run>(s: Session, run: R): Promise<R> {
  if (run.result != null || !run.result_url) return run;
  const result = await call(s, getRunResult({ client: s.client, path: { run_id: run.id } }));
  return { ...run, result } as R;
}

/** `getRun` with the full result. */
export async function getFullRun(s: Session, id: string): Promise<Run> {
  return withFullResult(s, await call(s, getRun({ client: s.client, path: { run_id: id } })));
}
