import fc from "fast-check";
import { beforeAll, describe, expect, it } from "vitest";
import { defaultIdf, score, type Idf } from "../../../src/engines/vrty/index.ts";
import { STOPWORD_SET } from "../../../src/engines/vrty/stopwords.ts";
import { goldenIdf } from "./fixture.ts";

// A literal, slow reading of spec §2–§4 (regexes, Maps, string sorts). The engine replaces all of
// that with a hashed scanner and numeric sort keys; it must agree to the last bit.
function referenceScore(prompt: string, response: string, idf: Idf) {
  const normalise = (t: string) =>
    t
      .normalize("NFKD")
      .replace(/[^\x00-\x7f]/g, "")
      .toLowerCase();
  const cut = (s: string) => {
    const re = /[a-z0-9]+/g;
    let n = 0;
    for (let m = re.exec(s); m; m = re.exec(s)) if (++n === 2048) return s.slice(0, m.index + m[0].length);
    return s;
  };
  const tokens = (s: string) => s.match(/[a-z0-9]+/g) ?? [];
  const vec = (ts: string[]) => {
    const v = new Map<string, number>();
    for (const t of ts) if (!STOPWORD_SET.has(t)) v.set(t, (v.get(t) ?? 0) + 1);
    for (const [t, c] of v) v.set(t, c * idf.weight(t));
    return v;
  };
  const cos = (a: Map<string, number>, b: Map<string, number>) => {
    let dot = 0,
      na = 0,
      nb = 0;
    for (const t of [...a.keys()].sort()) if (b.has(t)) dot += a.get(t)! * b.get(t)!;
    for (const t of [...a.keys()].sort()) na += a.get(t)! * a.get(t)!;
    for (const t of [...b.keys()].sort()) nb += b.get(t)! * b.get(t)!;
    return na === 0 || nb === 0 ? 0 : Math.min(1, Math.max(0, dot / (Math.sqrt(na) * Math.sqrt(nb))));
  };
  const p = cut(normalise(prompt));
  const r = cut(normalise(response));
  const rt = tokens(r);
  const vr = vec(rt);
  if (vr.size === 0) return null;
  const vp = vec(tokens(p));
  const q = [...vp.keys()].sort();
  let wanted = 0,
    covered = 0;
  for (const t of q) wanted += idf.weight(t);
  for (const t of q) if (vr.has(t)) covered += idf.weight(t);
  const sentences = r
    .split(/[.!?]+(?=\s|$)|[\r\n]+/)
    .map((s) => vec(tokens(s)))
    .filter((v) => v.size > 0);
  let sum = 0;
  for (let j = 0; j + 1 < sentences.length; j++) sum += cos(sentences[j], sentences[j + 1]);
  return {
    relevance: q.length === 0 ? 0 : cos(vp, vr),
    completeness: q.length === 0 ? 0 : covered / wanted,
    coherence: sentences.length <= 1 ? 1 : sum / (sentences.length - 1),
    conciseness: vr.size / rt.length,
  };
}

let tables: Idf[];
let vocab: string[];
beforeAll(async () => {
  tables = [await goldenIdf(), await defaultIdf()];
  vocab = [...tables[1].terms.keys()].filter((_, i) => i % 97 === 0);
});

const word = () =>
  fc.oneof(
    fc.constantFrom(...vocab),
    fc.constantFrom("the", "is", "of", "Paris", "capital", "France", "Café", "ﬁle", "naïve"),
    fc.stringMatching(/^[a-z0-9]{1,12}$/), // mostly out of vocabulary
  );
const sep = fc.constantFrom(" ", " ", " ", ". ", "! ", "?", "\n", ", ", ".", "...\t", "\r\n");
const doc = (max: number) => fc.array(fc.tuple(word(), sep), { maxLength: max }).map((xs) => xs.flat().join(""));

describe("score against a literal reference implementation", () => {
  it("agrees bit for bit on random English-like inputs", () => {
    fc.assert(
      fc.property(doc(20), doc(120), fc.integer({ min: 0, max: 1 }), (prompt, response, t) => {
        const idf = tables[t];
        const got = score(prompt, response, idf);
        const want = referenceScore(prompt, response, idf);
        if (want === null) expect(got.composite).toBe(0);
        else
          expect({
            relevance: got.relevance,
            completeness: got.completeness,
            coherence: got.coherence,
            conciseness: got.conciseness,
          }).toEqual(want);
      }),
      { numRuns: 400 },
    );
  });

  it("agrees on inputs longer than MAX_TOKENS", () => {
    fc.assert(
      fc.property(doc(50), doc(3000), (prompt, response) => {
        const got = score(prompt, response, tables[1]);
        const want = referenceScore(prompt, response, tables[1]);
        if (want !== null) expect(got.relevance).toBe(want.relevance);
        if (want !== null) expect(got.coherence).toBe(want.coherence);
        if (want !== null) expect(got.conciseness).toBe(want.conciseness);
      }),
      { numRuns: 20 },
    );
  });
});
