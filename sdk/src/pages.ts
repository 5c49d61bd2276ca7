// Written by hand (scripts/generate-sdk.ts keeps it): walking the API's cursor-paged lists. Every list
// answers `{ data, has_more, next_cursor }` and takes the previous page's `next_cursor` as `after`
// (docs/keys.md); the CLI and the dashboard page through lists with these two, never a loop of
// their own.

/** One page of any of the API's lists. */
export type Page<T> = { data: T[]; has_more: boolean; next_cursor: string | null };

/**
 * Each item of a cursor-paged list, page by page: `fetchPage(after)` is asked for the first page with
 * `after` undefined, then with each page's `next_cursor` until a page says there is no more. Only one
 * page is held at a time, so a long list streams.
 */
export async function* eachItem<T>(fetchPage: (after: string | undefined) => Promise<Page<T>>): AsyncGenerator<T> {
  let after: string | undefined;
  for (;;) {
    const page = await fetchPage(after);
    yield* page.data;
    if (!page.has_more || !page.next_cursor) return;
    after = page.next_cursor;
  }
}

/** Every item of a cursor-paged list, in the API's order (for lists a person reads, not exports). */
export async function allPages<T>(fetchPage: (after: string | undefined) => Promise<Page<T>>): Promise<T[]> {
  const out: T[] = [];
  for await (const item of eachItem(fetchPage)) out.push(item);
  return out;
}
