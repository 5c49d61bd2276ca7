// Shared by the vrty tests: the spec §8 golden IDF table, built by hand.
import { prepareIdf, type Idf, type IdfTableData } from "../../../src/engines/vrty/index.ts";
import { STOPWORDS_SHA256 } from "../../../src/engines/vrty/stopwords.ts";

/** IdfTableData with N = 5400 and the given idf values; idf_oov = ln(5401) + 1 ≈ 9.5943. */
export function fixtureData(idf: Record<string, number>): IdfTableData {
  return {
    format: 1,
    n_docs: 5400,
    doc_tokens: 200,
    min_df: 1,
    tokenizer: "nfkd-ascii-lower/[a-z0-9]+",
    stopwords_sha256: STOPWORDS_SHA256,
    source: "test fixture (spec vrty.md §8)",
    idf_oov: Math.log(5400 + 1) + 1,
    idf,
  };
}

/** The spec §8 golden table: capital = france = 5.0, paris = 4.760416630310818. */
export const GOLDEN = { capital: 5.0, france: 5.0, paris: 4.760416630310818 };

export function goldenIdf(): Promise<Idf> {
  return prepareIdf(fixtureData(GOLDEN));
}
