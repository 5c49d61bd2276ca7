// A run's full result for its page. The API inlines a result in the run only while it is small; a larger
// one (a judge run of thousands of items) is null there and served at `result_url`, fetched here once.
import { useEffect, useState } from "preact/hooks";
import { getRunResult, type Run } from "@assay/sdk";
import { call, client } from "./api.ts";

/** `run` with its result filled in from `result_url` when the API did not inline it (null while it loads). */
export function useFullResult(run: Run | null): { run: Run | null; error: string | null } {
  const [full, setFull] = useState<Run | null>(null);
  const [error, setError] = useState<string | null>(null);
  const missing = !!run && run.result == null && !!run.result_url;
  useEffect(() => {
    setFull(null);
    setError(null);
    if (!run || !missing) return;
    call(getRunResult({ client, path: { run_id: run.id } })).then(
      (result) => setFull({ ...run, result } as Run),
      (e: Error) => setError(e.message),
    );
  }, [run?.id, run?.status, missing]);
  return { run: missing ? full : run, error };
}
