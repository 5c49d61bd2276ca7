import { and, eq } from "drizzle-orm";
import type { Db } from "./client.ts";
import { suites } from "./schema.ts";
import { listPage } from "./page.ts";

export type SuiteRow = typeof suites.$inferSelect;

export async function insertSuite(db: Db, row: SuiteRow): Promise<void> {
  await db.insert(suites).values(row);
}

export async function getSuite(db: Db, tenantId: string, evaluator: string, id: string): Promise<SuiteRow | undefined> {
  return db
    .select()
    .from(suites)
    .where(and(eq(suites.id, id), eq(suites.tenantId, tenantId), eq(suites.evaluator, evaluator)))
    .get();
}

export async function listSuites(db: Db, tenantId: string, evaluator: string, opts: { limit: number; after?: string }) {
  return listPage(db, suites, and(eq(suites.tenantId, tenantId), eq(suites.evaluator, evaluator)), opts);
}

/** Deletes a suite of the tenant; false if there was none. */
export async function deleteSuite(db: Db, tenantId: string, evaluator: string, id: string): Promise<boolean> {
  const res = await db
    .delete(suites)
    .where(and(eq(suites.id, id), eq(suites.tenantId, tenantId), eq(suites.evaluator, evaluator)))
    .run();
  return (res.meta.changes ?? 0) > 0;
}
