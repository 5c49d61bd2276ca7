import { and, asc, desc, eq, lt } from "drizzle-orm";
import type { Db } from "./client.ts";
import { datasetChunks, datasets } from "./schema.ts";
import { listPage } from "./page.ts";

export type DatasetRow = typeof datasets.$inferSelect;

/**
 * D1 holds at most 2 MB in one value; a UTF-16 unit is at most 3 UTF-8 bytes, so 500,000 units fit.
 * Cuts never fall inside a surrogate pair (D1 would store half of one as U+FFFD).
 */
const CHUNK_UNITS = 500_000;

function chunksOf(text: string): string[] {
  const out: string[] = [];
  for (let at = 0; at < text.length; ) {
    let end = Math.min(at + CHUNK_UNITS, text.length);
    if (end < text.length && /[\uDC00-\uDFFF]/.test(text[end])) end--;
    out.push(text.slice(at, end));
    at = end;
  }
  return out;
}

/** Stores a dataset and its items in one batch, so a failure leaves nothing half-stored. */
export async function insertDataset(db: Db, row: DatasetRow, items: unknown[]): Promise<void> {
  const chunks = chunksOf(JSON.stringify(items)).map((text, chunk) => db.insert(datasetChunks).values({ datasetId: row.id, chunk, items: text }));
  await db.batch([db.insert(datasets).values(row), ...chunks]);
}

export async function getDataset(db: Db, tenantId: string, id: string): Promise<DatasetRow | undefined> {
  return db.select().from(datasets).where(and(eq(datasets.id, id), eq(datasets.tenantId, tenantId))).get();
}

/** The items of a stored dataset, in upload order. */
export async function datasetItems<T>(db: Db, id: string): Promise<T[]> {
  const rows = await db.select().from(datasetChunks).where(eq(datasetChunks.datasetId, id)).orderBy(asc(datasetChunks.chunk)).all();
  return JSON.parse(rows.map((r) => r.items).join("")) as T[];
}

export async function listDatasets(db: Db, tenantId: string, opts: { limit: number; after?: string }) {
  return listPage(db, datasets, eq(datasets.tenantId, tenantId), opts);
}

/** Deletes a dataset of the tenant with its items; false if there was none. */
export async function deleteDataset(db: Db, tenantId: string, id: string): Promise<boolean> {
  if (!(await getDataset(db, tenantId, id))) return false;
  await db.batch([db.delete(datasetChunks).where(eq(datasetChunks.datasetId, id)), db.delete(datasets).where(eq(datasets.id, id))]);
  return true;
}

export function datasetToWire(d: DatasetRow) {
  return { id: d.id, object: "dataset" as const, name: d.name, format: d.format, n_items: d.nItems, datasets: d.tags, sha256: d.sha256, created_at: d.createdAt.toISOString() };
}
