import { eq } from "drizzle-orm";
import type { Db } from "./client.ts";
import { runs, type EndpointReport } from "./schema.ts";

/** Writes a run's endpoint report (its coordinator's copy is the source; this one is what the API reads). */
export async function saveEndpointReport(db: Db, runId: string, report: EndpointReport): Promise<void> {
  await db.update(runs).set({ endpoint: report }).where(eq(runs.id, runId));
}
