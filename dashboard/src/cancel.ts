// Cancel from the dashboard. A run can end while the click is on its way: the API then answers 409
// (never a run still `running`), and the page shows the run as it ended rather than an error.
import { cancelRun, getRun, type Run } from "@assay/sdk";
import { ApiFailure, call, client } from "./api.ts";

/** Cancels run `id` and answers the run as it is now: canceled, or as it ended if it ended first. */
export async function cancelOrEnded(id: string): Promise<Run> {
  try {
    return await call(cancelRun({ client, path: { run_id: id } }));
  } catch (e) {
    if (!(e instanceof ApiFailure && e.status === 409)) throw e;
    return call(getRun({ client, path: { run_id: id } }));
  }
}
