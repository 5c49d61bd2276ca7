import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { buildIdfTable, prepareIdf, type Idf } from "../../../src/engines/vrty/index.ts";
import { idfIndex } from "../../../src/engines/vrty/idf.ts";
import { beginTerms, sortTerms, termCount, termId } from "../../../src/engines/vrty/terms.ts";
import { STOPWORD_SET } from "../../../src/engines/vrty/stopwords.ts";
import { fnv1a } from "../../../src/engines/vrty/token-cache.ts";

// sortTerms replaces a string sort with numeric keys (vocabulary rank, OOV insertion point);
// these tests pin it to the plain code-unit sort it must reproduce.
function orderOf(idf: Idf, tokens: string[]): string[] {
  beginTerms(idfIndex(idf));
  const byId: string[] = [];
  for (const t of tokens) {
    const id = termId(t, 0, t.length, fnv1a(t, 0, t.length));
    if (id >= 0) byId[id] = t;
  }
  const order = new Int32Array(termCount());
  sortTerms(order);
  return Array.from(order, (id) => byId[id]);
}

describe("term ordering", () => {
  it("orders vocabulary and OOV terms, including OOV ties between vocabulary neighbours", async () => {
    const idf = await prepareIdf(buildIdfTable(["b e f 10 zz"], { source: "x" }));
    // OOV c, ca, cb all fall between b and e; 0 and zzz fall before or after everything;
    // "the", "a" and "d" are stopwords and get no id.
    const tokens = ["f", "cb", "zzz", "e", "ca", "c", "the", "a", "d", "b", "0", "10", "ca"];
    expect(orderOf(idf, tokens)).toEqual(["0", "10", "b", "c", "ca", "cb", "e", "f", "zzz"]);
  });

  it("matches a code-unit sort for random token sets", async () => {
    const idf = await prepareIdf(buildIdfTable(["ab abc b ba c1 c2 x9 xy y 7 77"], { source: "x" }));
    const token = fc.stringMatching(/^[abcxy179]{1,4}$/);
    fc.assert(
      fc.property(fc.array(token, { maxLength: 60 }), (tokens) => {
        const expected = [...new Set(tokens)].filter((t) => !STOPWORD_SET.has(t)).sort();
        expect(orderOf(idf, tokens)).toEqual(expected);
      }),
    );
  });

  it("maps stopwords to -1 and repeated tokens to one id", async () => {
    const idf = await prepareIdf(buildIdfTable(["apple"], { source: "x" }));
    beginTerms(idfIndex(idf));
    const id = (t: string) => termId(t, 0, t.length, fnv1a(t, 0, t.length));
    expect(id("the")).toBe(-1);
    expect(id("apple")).toBe(0);
    expect(id("kiwi")).toBe(1);
    expect(id("apple")).toBe(0);
    expect(id("kiwi")).toBe(1);
    expect(termCount()).toBe(2);
  });
});
