import { and, asc, eq } from "drizzle-orm";
import type { Db } from "./client.ts";
import { datasetChunks, datasets } from "./schema.ts";
import { listPage } from "./page.ts";
import { chunksOf } from "../platform/text-chunks.ts";

export type DatasetRow = typeof datasets.$inferSelect;

/** Stores a dataset and its items (in pieces: D1 holds at most 2 MB in one value) in one batch, so a failure leaves nothing half-stored. */
export async function insertDataset(db: Db, row: DatasetRow, items: unknown[]): Promise<void> {
  const chunks = chunksOf(JSON.stringify(items)).map((text, chunk) =>
    db.insert(datasetChunks).values({ datasetId: row.id, chunk, items: text }),
  );
  await db.batch([db.insert(datasets).values(row), ...chunks]);
}

export async function getDataset(db: Db, tenantId: string, id: string): Promise<DatasetRow | undefined> {
  return db
    .select()
    .from(datasets)
    .where(and(eq(datasets.id, id), eq(datasets.tenantId, tenantId)))
    .get();
}

/** The items of a stored dataset, in upload order. */
export async function datasetItems<T>(db: Db, id: string): Promise<T[]> {
  const rows = await db
    .select()
    .from(datasetChunks)
    .where(eq(datasetChunks.datasetId, id))
    .orderBy(asc(datasetChunks.chunk))
    .all();
  return JSON.parse(rows.map((r) => r.items).join("")) as T[];
}

export async function listDatasets(db: Db, tenantId: string, opts: { limit: number; after?: string }) {
  return listPage(db, datasets, eq(datasets.tenantId, tenantId), opts);
}

/** Deletes a dataset of the tenant with its items; false if there was none. */
export async function deleteDataset(db: Db, tenantId: string, id: string): Promise<boolean> {
  if (!(await getDataset(db, tenantId, id))) return false;
  await db.batch([
    db.delete(datasetChunks).where(eq(datasetChunks.datasetId, id)),
    db.delete(datasets).where(eq(datasets.id, id)),
  ]);
  return true;
}

export function datasetToWire(d: DatasetRow) {
  return {
    id: d.id,
    object: "dataset" as const,
    name: d.name,
    format: d.format,
    n_items: d.nItems,
    datasets: d.tags,
    sha256: d.sha256,
    created_at: d.createdAt.toISOString(),
  };
}
