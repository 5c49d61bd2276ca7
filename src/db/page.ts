/** Cursor pages, newest first: `{data, has_more, next_cursor}` as DESIGN.md's list convention says. */
export type Page<T> = { data: T[]; has_more: boolean; next_cursor: string | null };

/** Takes `limit + 1` rows fetched in id-descending order and cuts them into a page. */
export function toPage<T extends { id: string }>(rows: T[], limit: number): Page<T> {
  const has_more = rows.length > limit;
  const data = has_more ? rows.slice(0, limit) : rows;
  return { data, has_more, next_cursor: has_more ? data[data.length - 1].id : null };
}
