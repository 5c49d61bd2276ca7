import data from "./data/idf-default.json" with { type: "json" };
import { DEFAULT_IDF_SHA256 } from "./data/idf-default.sha256.ts";
import { canonicalJson } from "./canonical-json.ts";
import { prepareIdf, type Idf, type IdfTableData } from "./idf.ts";

/**
 * Prepares `table` and checks its hash against `expectedSha256` (spec vrty.md §3: the shipped
 * table is verified once per isolate; a mismatch is a `VrtyDataError`).
 * Split out of {@link defaultIdf} so tests can feed it a tampered table.
 */
export async function loadVerifiedIdf(table: IdfTableData, expectedSha256: string): Promise<Idf> {
  const idf = await prepareIdf(table);
  if (idf.sha256 !== expectedSha256) {
    throw new Error(`VrtyDataError: IDF table sha256 ${idf.sha256} does not match the committed ${expectedSha256}`);
  }
  return idf;
}

let memo: Promise<Idf> | undefined;

/**
 * The bundled default table (`data/idf-default.json`, see `data/SOURCES.md`), validated and
 * hash-checked on first use and memoised for the life of the isolate. A failed check stays
 * failed: retrying cannot change bundled bytes.
 *
 * @throws Error whose message starts with "VrtyDataError:" if the bundled bytes were altered.
 */
export function defaultIdf(): Promise<Idf> {
  memo ??= loadVerifiedIdf(data as unknown as IdfTableData, DEFAULT_IDF_SHA256);
  return memo;
}

/** Metadata of the built-in table, in the shape the IDF-table routes report. */
export type DefaultIdfInfo = {
  name: string;
  sha256: string;
  n_docs: number;
  n_terms: number;
  min_df: number;
  size_bytes: number;
};

let infoMemo: Promise<DefaultIdfInfo> | undefined;

/** {@link DefaultIdfInfo} of the bundled table; verifies it first, like {@link defaultIdf}. */
export function defaultIdfInfo(): Promise<DefaultIdfInfo> {
  infoMemo ??= defaultIdf().then((idf) => {
    const table = data as unknown as IdfTableData;
    return {
      name: "vrty default (WordNet 3.1 glosses + State of the Union addresses)",
      sha256: idf.sha256,
      n_docs: table.n_docs,
      n_terms: idf.terms.size,
      min_df: table.min_df,
      size_bytes: new TextEncoder().encode(canonicalJson(table)).length,
    };
  });
  return infoMemo;
}
