import { and, desc, lt, type SQL } from "drizzle-orm";
import type { SQLiteColumn, SQLiteTable } from "drizzle-orm/sqlite-core";
import type { Db } from "./client.ts";

/** Cursor pages, newest first: `{data, has_more, next_cursor}` as DESIGN.md's list convention says. */
export type Page<T> = { data: T[]; has_more: boolean; next_cursor: string | null };

/** Takes `limit + 1` rows fetched in id-descending order and cuts them into a page. */
export function toPage<T extends { id: string }>(rows: T[], limit: number): Page<T> {
  const has_more = rows.length > limit;
  const data = has_more ? rows.slice(0, limit) : rows;
  return { data, has_more, next_cursor: has_more ? data[data.length - 1].id : null };
}

/**
 * The one cursor-page query of every list: the rows of `table` matching `where`, newest first by `id`
 * (ids are time-ordered, so id order is creation order), after the cursor `after` (the last id of the
 * previous page), one more than `limit` to know whether another page follows.
 */
export async function listPage<T extends SQLiteTable & { id: SQLiteColumn }>(
  db: Db,
  table: T,
  where: SQL | undefined,
  opts: { limit: number; after?: string },
): Promise<Page<T["$inferSelect"] & { id: string }>> {
  const rows = await db
    .select()
    .from(table as SQLiteTable)
    .where(and(where, opts.after ? lt(table.id, opts.after) : undefined))
    .orderBy(desc(table.id))
    .limit(opts.limit + 1);
  // select() over a table chosen by the caller is typed as the generic table's row; it is T's row.
  return toPage(rows as (T["$inferSelect"] & { id: string })[], opts.limit);
}
