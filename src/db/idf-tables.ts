import { and, asc, count, eq } from "drizzle-orm";
import type { Db } from "./client.ts";
import { idfTableChunks, idfTables } from "./schema.ts";
import { listPage } from "./page.ts";
import { newId } from "../ids.ts";
import { canonicalJson, prepareIdf, type Idf, type IdfTableData } from "../engines/vrty/index.ts";

export type IdfTableRow = typeof idfTables.$inferSelect;

/** D1 holds at most 2 MB in one value; the canonical JSON is ASCII, so characters are bytes. */
const CHUNK_CHARS = 1_000_000;

export async function countIdfTables(db: Db, tenantId: string): Promise<number> {
  const row = await db.select({ n: count() }).from(idfTables).where(eq(idfTables.tenantId, tenantId)).get();
  return row?.n ?? 0;
}

/** Stores a built table and its chunks in one batch, so a failure leaves nothing half-stored. */
export async function insertIdfTable(
  db: Db,
  tenantId: string,
  name: string,
  data: IdfTableData,
  sha256: string,
): Promise<IdfTableRow> {
  const json = canonicalJson(data);
  const row: IdfTableRow = {
    id: newId("idf"),
    tenantId,
    name,
    sha256,
    nDocs: data.n_docs,
    nTerms: Object.keys(data.idf).length,
    minDf: data.min_df,
    sizeBytes: json.length,
    createdAt: new Date(),
  };
  const chunks = [];
  for (let seq = 0, at = 0; at < json.length; seq++, at += CHUNK_CHARS) {
    chunks.push(db.insert(idfTableChunks).values({ tableId: row.id, seq, data: json.slice(at, at + CHUNK_CHARS) }));
  }
  await db.batch([db.insert(idfTables).values(row), ...chunks]);
  return row;
}

export async function getIdfTable(db: Db, tenantId: string, id: string): Promise<IdfTableRow | undefined> {
  return db
    .select()
    .from(idfTables)
    .where(and(eq(idfTables.id, id), eq(idfTables.tenantId, tenantId)))
    .get();
}

export async function listIdfTables(db: Db, tenantId: string, opts: { limit: number; after?: string }) {
  return listPage(db, idfTables, eq(idfTables.tenantId, tenantId), opts);
}

/** Deletes a table of the tenant with its chunks; false if there was none. */
export async function deleteIdfTable(db: Db, tenantId: string, id: string): Promise<boolean> {
  const row = await getIdfTable(db, tenantId, id);
  if (!row) return false;
  await db.batch([
    db.delete(idfTableChunks).where(eq(idfTableChunks.tableId, id)),
    db.delete(idfTables).where(eq(idfTables.id, id)),
  ]);
  return true;
}

// Prepared tables are immutable (a new upload gets a new id), so an isolate may keep a few in memory.
// The key includes the sha256 so a cached entry can only ever be the exact table the metadata names.
const cache = new Map<string, Promise<Idf>>();
const CACHE_SIZE = 4; // a prepared table takes a few MB of lookup memory

/** The prepared IDF of a stored table, verified against the sha256 recorded when it was built. */
export async function loadIdf(db: Db, row: IdfTableRow): Promise<Idf> {
  const key = `${row.id}:${row.sha256}`;
  let idf = cache.get(key);
  if (idf) {
    cache.delete(key);
  } else {
    idf = readIdf(db, row);
    idf.catch(() => cache.delete(key));
    if (cache.size >= CACHE_SIZE) cache.delete(cache.keys().next().value as string);
  }
  cache.set(key, idf);
  return idf;
}

async function readIdf(db: Db, row: IdfTableRow): Promise<Idf> {
  const chunks = await db
    .select({ data: idfTableChunks.data })
    .from(idfTableChunks)
    .where(eq(idfTableChunks.tableId, row.id))
    .orderBy(asc(idfTableChunks.seq));
  const idf = await prepareIdf(JSON.parse(chunks.map((c) => c.data).join("")) as IdfTableData);
  if (idf.sha256 !== row.sha256) {
    throw new Error(`VrtyDataError: IDF table ${row.id} hashes to ${idf.sha256}, not the recorded ${row.sha256}`);
  }
  return idf;
}

export function idfTableToWire(r: IdfTableRow) {
  return {
    id: r.id,
    name: r.name,
    sha256: r.sha256,
    n_docs: r.nDocs,
    n_terms: r.nTerms,
    min_df: r.minDf,
    size_bytes: r.sizeBytes,
    created_at: r.createdAt.toISOString(),
  };
}
