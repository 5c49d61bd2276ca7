import { canonicalJson, sha256Hex } from "./canonical-json.ts";
import { STOPWORD_SET, STOPWORDS_SHA256 } from "./stopwords.ts";
import { tokenize } from "./text.ts";
import { fnv1a } from "./token-cache.ts";

/** Tokenizer id recorded in every table; a table from another tokenizer is rejected. */
export const TOKENIZER_ID = "nfkd-ascii-lower/[a-z0-9]+";

/**
 * Stored IDF table, format 1 (spec vrty.md §3). Its canonical JSON is what `idf_sha256` hashes.
 * `idf` holds precomputed doubles `ln((1+N)/(1+df)) + 1` so scoring needs no `Math.log`.
 */
export type IdfTableData = {
  format: 1;
  n_docs: number;
  doc_tokens: number;
  min_df: number;
  tokenizer: "nfkd-ascii-lower/[a-z0-9]+";
  stopwords_sha256: string;
  source: string;
  idf_oov: number;
  idf: Record<string, number>;
};

/** A validated table ready for scoring. */
export type Idf = {
  /** SHA-256 of the table's canonical JSON; reported as `idf_sha256`. */
  readonly sha256: string;
  /** Weight of a term absent from the table, `ln(N+1) + 1` (§3). */
  readonly oov: number;
  /** Term → idf; no stopwords, every value in [1, oov]. */
  readonly terms: ReadonlyMap<string, number>;
  /** `w(t)` of spec §4: the table's idf, or `oov` when absent. */
  weight(term: string): number;
};

export type BuildIdfOptions = {
  /** Recorded in the table as its provenance. */
  source: string;
  /** Keep terms whose document frequency is at least this (default 1). */
  minDf?: number;
  /** Pseudo-document length in tokens, stopwords included (default 200). */
  windowTokens?: number;
  /** A final partial window shorter than this is dropped, unless it is the text's only one (default 50). */
  minTailTokens?: number;
};

function positiveInt(fn: string, name: string, v: number, min: number): number {
  if (!Number.isSafeInteger(v) || v < min) {
    throw new RangeError(`${fn}: ${name} must be an integer >= ${min}, got ${String(v)}`);
  }
  return v;
}

/**
 * Builds an IDF table from source texts (spec §3 "Our table").
 *
 * Each text is tokenised with the runtime tokenizer (§2.1) and cut into windows of
 * `windowTokens` tokens. A final partial window shorter than `minTailTokens` is dropped unless
 * it is the text's only window, so a short uploaded document still counts as one document.
 * N = number of windows; df(t) = number of windows holding content term t. Terms with
 * df ≥ `minDf` are stored with `ln((1+N)/(1+df)) + 1`, and `idf_oov = ln(N+1) + 1`.
 *
 * @throws RangeError if an option is out of range or no source has a token (N = 0).
 */
export function buildIdfTable(sources: Iterable<string>, opts: BuildIdfOptions): IdfTableData {
  const fn = "buildIdfTable";
  if (typeof opts?.source !== "string") throw new TypeError(`${fn}: opts.source must be a string`);
  const minDf = positiveInt(fn, "opts.minDf", opts.minDf ?? 1, 1);
  const windowTokens = positiveInt(fn, "opts.windowTokens", opts.windowTokens ?? 200, 1);
  const minTail = positiveInt(fn, "opts.minTailTokens", opts.minTailTokens ?? 50, 0);
  if (minTail > windowTokens) {
    throw new RangeError(`${fn}: opts.minTailTokens (${minTail}) exceeds opts.windowTokens (${windowTokens})`);
  }

  const df = new Map<string, number>();
  let nDocs = 0;
  const seen = new Set<string>();
  for (const text of sources) {
    if (typeof text !== "string") throw new TypeError(`${fn}: every source must be a string`);
    const tokens = tokenize(text);
    const full = Math.floor(tokens.length / windowTokens);
    const tail = tokens.length - full * windowTokens;
    const keepTail = tail > 0 && (tail >= minTail || full === 0);
    const windows = full + (keepTail ? 1 : 0);
    for (let w = 0; w < windows; w++) {
      seen.clear();
      const end = Math.min(tokens.length, (w + 1) * windowTokens);
      for (let i = w * windowTokens; i < end; i++) {
        const t = tokens[i];
        if (!STOPWORD_SET.has(t)) seen.add(t);
      }
      for (const t of seen) df.set(t, (df.get(t) ?? 0) + 1);
    }
    nDocs += windows;
  }
  if (nDocs === 0) throw new RangeError(`${fn}: sources contain no tokens, so N would be 0`);

  const idf: Record<string, number> = {};
  for (const term of [...df.keys()].sort()) {
    const d = df.get(term)!;
    if (d >= minDf) idf[term] = Math.log((1 + nDocs) / (1 + d)) + 1;
  }
  // Keys in ascending order, matching the canonical form the hash is taken over.
  return {
    doc_tokens: windowTokens,
    format: 1,
    idf,
    idf_oov: Math.log(nDocs + 1) + 1,
    min_df: minDf,
    n_docs: nDocs,
    source: opts.source,
    stopwords_sha256: STOPWORDS_SHA256,
    tokenizer: TOKENIZER_ID,
  };
}

// idf ≤ 64 with tf ≤ 2048 bounds every squared sum far below overflow (≤ 2048·(2048·64)² ≈ 3.5e13).
const MAX_IDF = 64;
const TERM = /^[a-z0-9]+$/;

function invalid(problem: string): never {
  throw new TypeError(`prepareIdf: ${problem}`);
}

function isInt(v: unknown, min: number): v is number {
  return typeof v === "number" && Number.isSafeInteger(v) && v >= min;
}

/**
 * Scoring-side view of a prepared table, kept off the public {@link Idf} type.
 * - `slots`: open-addressing hash table (linear probing, `mask + 1` slots of 4 int32:
 *   FNV-1a hash, value + 2 (0 = empty), offset and length of the term's characters in `pool`).
 *   The value is the term's rank in ascending code-unit order of the vocabulary, or -1 for a
 *   stopword, so one probe per distinct token both filters stopwords and finds the term,
 *   using the hash the scanner already computed and without slicing the token out.
 * - `sorted[rank]` / `weights[rank]`: the vocabulary and its idf doubles in that order.
 * - `stamp` / `local`: per-call dedup scratch indexed by rank (see terms.ts).
 */
export type IdfIndex = {
  slots: Int32Array;
  mask: number;
  pool: Uint8Array;
  sorted: string[];
  weights: Float64Array;
  oov: number;
  stamp: Int32Array;
  local: Int32Array;
  gen: number;
};

const INDEX = new WeakMap<Idf, IdfIndex>();

/** The index of a table made by {@link prepareIdf}. @throws TypeError for any other object. */
export function idfIndex(idf: Idf): IdfIndex {
  const ix = INDEX.get(idf);
  if (ix === undefined) throw new TypeError("score: idf must come from prepareIdf or defaultIdf");
  return ix;
}

/**
 * Validates a table and builds its lookup. The checks guarantee what scoring relies on:
 * every weight finite and ≥ 1 (so sums are positive and cosines stay in [0,1]), no overflow,
 * and the same tokenizer and stopword list as this runtime.
 *
 * @throws TypeError naming the first problem found.
 */
export async function prepareIdf(data: IdfTableData): Promise<Idf> {
  if (typeof data !== "object" || data === null || Array.isArray(data)) invalid("table must be an object");
  const d = data as Record<string, unknown>;
  const allowed = [
    "doc_tokens",
    "format",
    "idf",
    "idf_oov",
    "min_df",
    "n_docs",
    "source",
    "stopwords_sha256",
    "tokenizer",
  ];
  for (const key of Object.keys(d)) if (!allowed.includes(key)) invalid(`unknown field "${key}"`);
  if (d.format !== 1) invalid(`format must be 1, got ${JSON.stringify(d.format)}`);
  if (!isInt(d.n_docs, 1)) invalid("n_docs must be a positive integer");
  if (!isInt(d.doc_tokens, 1)) invalid("doc_tokens must be a positive integer");
  if (!isInt(d.min_df, 1)) invalid("min_df must be a positive integer");
  if (d.tokenizer !== TOKENIZER_ID) invalid(`tokenizer must be "${TOKENIZER_ID}"`);
  if (d.stopwords_sha256 !== STOPWORDS_SHA256) invalid("stopwords_sha256 does not match this runtime's stopword list");
  if (typeof d.source !== "string") invalid("source must be a string");
  const oov = d.idf_oov;
  if (typeof oov !== "number" || !Number.isFinite(oov) || oov < 1 || oov > MAX_IDF) {
    invalid(`idf_oov must be a finite number in [1, ${MAX_IDF}]`);
  }
  const idf = d.idf;
  if (typeof idf !== "object" || idf === null || Array.isArray(idf)) invalid("idf must be an object");
  const table = idf as Record<string, unknown>;
  const sorted = Object.keys(table).sort();
  const terms = new Map<string, number>();
  const weights = new Float64Array(sorted.length);
  for (let rank = 0; rank < sorted.length; rank++) {
    const term = sorted[rank];
    const w = table[term];
    if (!TERM.test(term)) invalid(`idf term ${JSON.stringify(term)} is not a token of [a-z0-9]+`);
    if (STOPWORD_SET.has(term)) invalid(`idf term "${term}" is a stopword`);
    if (typeof w !== "number" || !(w >= 1 && w <= oov)) invalid(`idf["${term}"] must be a number in [1, idf_oov]`);
    terms.set(term, w);
    weights[rank] = w;
  }
  const sha256 = await sha256Hex(canonicalJson(data));
  const prepared: Idf = Object.freeze({
    sha256,
    oov,
    terms,
    weight: (term: string) => terms.get(term) ?? oov,
  });
  const n = sorted.length;
  INDEX.set(prepared, {
    ...buildSlots(sorted),
    sorted,
    weights,
    oov,
    stamp: new Int32Array(n),
    local: new Int32Array(n),
    gen: 0,
  });
  return prepared;
}

function buildSlots(sorted: string[]): { slots: Int32Array; mask: number; pool: Uint8Array } {
  const entries: [term: string, value: number][] = [...STOPWORD_SET].map((t) => [t, -1]);
  for (let rank = 0; rank < sorted.length; rank++) entries.push([sorted[rank], rank]);
  let size = 16;
  while (size < entries.length * 2) size *= 2; // load factor ≤ 0.5 keeps probe runs short
  const mask = size - 1;
  const slots = new Int32Array(size * 4);
  let chars = 0;
  for (const [term] of entries) chars += term.length;
  const pool = new Uint8Array(chars);
  let off = 0;
  for (const [term, value] of entries) {
    const h = fnv1a(term, 0, term.length);
    let slot = (h ^ (h >>> 13)) & mask;
    while (slots[slot * 4 + 1] !== 0) slot = (slot + 1) & mask;
    slots.set([h, value + 2, off, term.length], slot * 4);
    for (let i = 0; i < term.length; i++) pool[off + i] = term.charCodeAt(i);
    off += term.length;
  }
  return { slots, mask, pool };
}
