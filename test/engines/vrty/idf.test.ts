import { describe, expect, it } from "vitest";
import { buildIdfTable, prepareIdf, type IdfTableData } from "../../../src/engines/vrty/index.ts";
import { STOPWORDS_SHA256 } from "../../../src/engines/vrty/stopwords.ts";
import { fixtureData } from "./fixture.ts";

const words = (prefix: string, n: number) => Array.from({ length: n }, (_, i) => `${prefix}${i}`).join(" ");

describe("buildIdfTable (spec §3)", () => {
  it("computes smoothed idf and idf_oov from window document frequencies", () => {
    // Three one-window sources: N = 3. df(apple) = 2, df(pear) = 1, df(fig) = 3; "the" is a stopword.
    // idf(apple) = ln(4/3) + 1, idf(pear) = ln(4/2) + 1, idf(fig) = ln(4/4) + 1 = 1; oov = ln 4 + 1.
    const t = buildIdfTable(["apple pear fig the", "apple fig apple", "fig"], { source: "unit" });
    expect(t.n_docs).toBe(3);
    expect(t.idf).toEqual({ apple: Math.log(4 / 3) + 1, fig: 1, pear: Math.log(2) + 1 });
    expect(t.idf_oov).toBe(Math.log(4) + 1);
    expect(t).toMatchObject({
      format: 1,
      doc_tokens: 200,
      min_df: 1,
      source: "unit",
      stopwords_sha256: STOPWORDS_SHA256,
      tokenizer: "nfkd-ascii-lower/[a-z0-9]+",
    });
  });

  it("cuts each source into windows and drops a short tail unless it is the only window", () => {
    // 450 tokens → windows [0,200) [200,400) and a 50-token tail: kept (≥ 50) → 3 docs.
    // 449 tokens → tail of 49 dropped → 2 docs. 30 tokens → the only window, kept → 1 doc.
    expect(buildIdfTable([words("w", 450)], { source: "x" }).n_docs).toBe(3);
    expect(buildIdfTable([words("w", 449)], { source: "x" }).n_docs).toBe(2);
    expect(buildIdfTable([words("w", 30)], { source: "x" }).n_docs).toBe(1);
    expect(buildIdfTable([words("w", 400)], { source: "x" }).n_docs).toBe(2);
    // Windows do not span sources: 2 sources of 150 tokens are 2 docs, not 1 full window + tail.
    expect(buildIdfTable([words("a", 150), words("b", 150)], { source: "x" }).n_docs).toBe(2);
  });

  it("counts stopwords toward the window length", () => {
    // "the x" × 150 = 300 tokens → one 200-token window plus a 100-token tail = 2 docs; df(x) = 2.
    const t = buildIdfTable(["the x ".repeat(150)], { source: "x" });
    expect(t.n_docs).toBe(2);
    expect(t.idf.x).toBe(Math.log(3 / 3) + 1);
    expect(t.idf).not.toHaveProperty("the");
  });

  it("keeps only terms with df >= minDf and honours custom window sizes", () => {
    // windowTokens 2, minTail 1: "a b | a c | d" → N = 3, df(a) = 2, df(b) = df(c) = df(d) = 1.
    const t = buildIdfTable(["a1 b1 a1 c1 d1"], { source: "x", minDf: 2, windowTokens: 2, minTailTokens: 1 });
    expect(t.n_docs).toBe(3);
    expect(t.min_df).toBe(2);
    expect(t.idf).toEqual({ a1: Math.log(4 / 3) + 1 });
  });

  it("throws RangeError when no source has a token, or an option is out of range", () => {
    expect(() => buildIdfTable([], { source: "x" })).toThrow(/buildIdfTable: .*N would be 0/);
    expect(() => buildIdfTable(["", "?!", "日本"], { source: "x" })).toThrow(RangeError);
    expect(() => buildIdfTable(["a"], { source: "x", minDf: 0 })).toThrow(/buildIdfTable: opts.minDf/);
    expect(() => buildIdfTable(["a"], { source: "x", windowTokens: 1.5 })).toThrow(/opts.windowTokens/);
    expect(() => buildIdfTable(["a"], { source: "x", windowTokens: 10, minTailTokens: 11 })).toThrow(
      /opts.minTailTokens/,
    );
  });

  it("produces a table prepareIdf accepts", async () => {
    const idf = await prepareIdf(buildIdfTable(["apple pear", "apple"], { source: "x" }));
    expect(idf.weight("apple")).toBe(Math.log(3 / 3) + 1);
    expect(idf.weight("unknown")).toBe(Math.log(3) + 1);
    expect(idf.sha256).toMatch(/^[0-9a-f]{64}$/);
  });
});

describe("prepareIdf validation", () => {
  const base = () => fixtureData({ capital: 5, paris: 4.5 });
  it.each<[string, (d: Record<string, unknown>) => void, RegExp]>([
    ["format", (d) => (d.format = 2), /format must be 1/],
    ["n_docs", (d) => (d.n_docs = 0), /n_docs/],
    ["doc_tokens", (d) => (d.doc_tokens = "200"), /doc_tokens/],
    ["min_df", (d) => (d.min_df = 1.5), /min_df/],
    ["tokenizer", (d) => (d.tokenizer = "whitespace"), /tokenizer/],
    ["stopwords", (d) => (d.stopwords_sha256 = "0".repeat(64)), /stopwords_sha256/],
    ["source", (d) => (d.source = 1), /source/],
    ["idf_oov", (d) => (d.idf_oov = Infinity), /idf_oov/],
    ["idf type", (d) => (d.idf = []), /idf must be an object/],
    ["idf term", (d) => (d.idf = { Paris: 2 }), /not a token/],
    ["idf stopword", (d) => (d.idf = { the: 2 }), /stopword/],
    ["idf value", (d) => (d.idf = { paris: 0.5 }), /idf\["paris"\]/],
    ["idf above oov", (d) => (d.idf = { paris: 100 }), /idf\["paris"\]/],
    ["idf NaN", (d) => (d.idf = { paris: NaN }), /idf\["paris"\]/],
    ["extra field", (d) => (d.extra = 1), /unknown field "extra"/],
  ])("rejects a bad %s with a TypeError naming it", async (_, mutate, message) => {
    const d = base() as unknown as Record<string, unknown>;
    mutate(d);
    const err = await prepareIdf(d as unknown as IdfTableData).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(TypeError);
    expect((err as Error).message).toMatch(/^prepareIdf: /);
    expect((err as Error).message).toMatch(message);
  });

  it("rejects non-objects", async () => {
    await expect(prepareIdf(null as unknown as IdfTableData)).rejects.toThrow(TypeError);
    await expect(prepareIdf([] as unknown as IdfTableData)).rejects.toThrow(TypeError);
  });

  it("hashes the canonical JSON of the table", async () => {
    const { canonicalJson, sha256Hex } = await import("../../../src/engines/vrty/index.ts");
    const d = base();
    expect((await prepareIdf(d)).sha256).toBe(await sha256Hex(canonicalJson(d)));
  });
});
