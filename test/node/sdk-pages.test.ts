// The SDK's paging helpers walk a cursor list exactly as the API documents it: the first page without
// `after`, each next one with the previous page's `next_cursor`, and stop at the page that says no more.
import { describe, expect, it } from "vitest";
import { allPages, eachItem, type Page } from "../../sdk/src/pages.ts";

/** A list of `n` numbers served `size` at a time, recording the `after` of every request. */
function server(n: number, size: number) {
  const asked: (string | undefined)[] = [];
  const fetchPage = async (after: string | undefined): Promise<Page<number>> => {
    asked.push(after);
    const start = after === undefined ? 0 : Number(after.slice("c".length));
    const data = Array.from({ length: Math.max(0, Math.min(size, n - start)) }, (_, i) => start + i);
    const more = start + size < n;
    return { data, has_more: more, next_cursor: more ? `c${start + size}` : null };
  };
  return { fetchPage, asked };
}

describe("sdk pages", () => {
  it("collects every item across pages, asking with each next_cursor", async () => {
    const s = server(7, 3);
    expect(await allPages(s.fetchPage)).toEqual([0, 1, 2, 3, 4, 5, 6]);
    expect(s.asked).toEqual([undefined, "c3", "c6"]);
  });

  it("asks once for an empty list and for a list of exactly one page", async () => {
    const empty = server(0, 3);
    expect(await allPages(empty.fetchPage)).toEqual([]);
    expect(empty.asked).toEqual([undefined]);
    const one = server(3, 3);
    expect(await allPages(one.fetchPage)).toEqual([0, 1, 2]);
    expect(one.asked).toEqual([undefined]);
  });

  it("streams: stopping early asks for no further page", async () => {
    const s = server(10, 2);
    const seen: number[] = [];
    for await (const x of eachItem(s.fetchPage)) {
      seen.push(x);
      if (x === 2) break;
    }
    expect(seen).toEqual([0, 1, 2]);
    expect(s.asked).toEqual([undefined, "c2"]);
  });

  it("stops on has_more without a cursor instead of asking for the first page again", async () => {
    const asked: (string | undefined)[] = [];
    const items = await allPages(async (after) => {
      asked.push(after);
      return { data: [1], has_more: true, next_cursor: null };
    });
    expect(items).toEqual([1]);
    expect(asked).toEqual([undefined]);
  });
});
