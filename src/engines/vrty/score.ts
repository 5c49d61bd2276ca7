import { explain, explainUnscorable, type Explanations } from "./explain.ts";
import { idfIndex, type Idf } from "./idf.ts";
import { beginTerms, sortTerms, termCount, termId, TERM_WEIGHT } from "./terms.ts";
import { MAX_TOKENS, resetTokenCache, scanText } from "./text.ts";

/** Version of the scoring logic; bump on any change to formulas, constants or stopwords (§1). */
export const VRTY_VERSION = "1.0.1";

/** Fixed composite weights (§4); not configurable in v1. Keys in ascending order. */
export const WEIGHTS: Readonly<{ coherence: 0.2; completeness: 0.3; conciseness: 0.15; relevance: 0.35 }> =
  Object.freeze({ coherence: 0.2, completeness: 0.3, conciseness: 0.15, relevance: 0.35 });

/** The 9-key result of spec §1. Built with keys in ascending code-unit order at every level. */
export type VrtyResult = {
  coherence: number;
  completeness: number;
  composite: number;
  conciseness: number;
  explanations: Explanations;
  idf_sha256: string;
  relevance: number;
  vrty_version: string;
  weights: typeof WEIGHTS;
};

// Scratch buffers reused by every call. `score` is synchronous and calls no user code, so no
// two calls can interleave; reusing them keeps the hot path free of per-call array allocation.
const MAX_TERMS = 2 * MAX_TOKENS;
const P_IDS = new Int32Array(MAX_TOKENS);
const R_IDS = new Int32Array(MAX_TOKENS);
const R_ENDS = new Int32Array(MAX_TOKENS);
const ORDER = new Int32Array(MAX_TERMS);
const RANK_OF = new Int32Array(MAX_TERMS);
const W = new Float64Array(MAX_TERMS);
const P_TF = new Float64Array(MAX_TERMS);
const R_TF = new Float64Array(MAX_TERMS);
const S_SORT = new Int32Array(MAX_TOKENS);
const S_RANK = new Int32Array(MAX_TOKENS);
const S_TF = new Float64Array(MAX_TOKENS);
const S_END = new Int32Array(MAX_TOKENS);
const S_NORM = new Float64Array(MAX_TOKENS);

/** `min(1, max(0, x))`: keeps identical vectors from reporting 1.0000000000000002 (§4). */
export function clamp01(x: number): number {
  return x < 0 ? 0 : x > 1 ? 1 : x;
}

/** Cosine from its three sums (§4): 0 if either norm is 0, clamped to [0, 1]. */
export function cosFromSums(dot: number, na: number, nb: number): number {
  if (na === 0 || nb === 0) return 0;
  return clamp01(dot / (Math.sqrt(na) * Math.sqrt(nb)));
}

function sortRange(a: Int32Array, start: number, end: number): void {
  if (end - start > 24) {
    a.subarray(start, end).sort();
    return;
  }
  for (let i = start + 1; i < end; i++) {
    const v = a[i];
    let j = i - 1;
    while (j >= start && a[j] > v) {
      a[j + 1] = a[j];
      j--;
    }
    a[j + 1] = v;
  }
}

/**
 * Coherence (§4.2): mean cosine of adjacent kept sentences, 1.0 when there are ≤ 1.
 * Each sentence's terms are sorted by global rank (= ascending term order), collapsed to
 * (rank, tf) runs, and adjacent pairs are merged, so every sum runs in sorted-key order.
 * The mean is `sum / (m − 1)` with the sum taken in sentence order.
 */
function coherence(sentences: number): number {
  if (sentences <= 1) return 1;
  let start = 0;
  let u = 0;
  for (let j = 0; j < sentences; j++) {
    const end = R_ENDS[j];
    for (let t = start; t < end; t++) S_SORT[t] = RANK_OF[R_IDS[t]];
    sortRange(S_SORT, start, end);
    let norm = 0;
    let t = start;
    while (t < end) {
      const r = S_SORT[t];
      let tf = 0;
      while (t < end && S_SORT[t] === r) {
        tf++;
        t++;
      }
      S_RANK[u] = r;
      S_TF[u] = tf;
      u++;
      const v = tf * W[r];
      norm += v * v;
    }
    S_END[j] = u;
    S_NORM[j] = norm;
    start = end;
  }
  let sum = 0;
  let a0 = 0;
  for (let j = 0; j + 1 < sentences; j++) {
    const aEnd = S_END[j];
    const bEnd = S_END[j + 1];
    let a = a0;
    let b = aEnd;
    let dot = 0;
    while (a < aEnd && b < bEnd) {
      const ra = S_RANK[a];
      const rb = S_RANK[b];
      if (ra === rb) {
        const w = W[ra];
        dot += S_TF[a] * w * (S_TF[b] * w);
        a++;
        b++;
      } else if (ra < rb) a++;
      else b++;
    }
    sum += cosFromSums(dot, S_NORM[j], S_NORM[j + 1]);
    a0 = aEnd;
  }
  return sum / (sentences - 1);
}

function zeroResult(idf: Idf): VrtyResult {
  return {
    coherence: 0,
    completeness: 0,
    composite: 0,
    conciseness: 0,
    explanations: {
      coherence: explainUnscorable("coherence", "response"),
      completeness: explainUnscorable("completeness", "response"),
      conciseness: explainUnscorable("conciseness", "response"),
      relevance: explainUnscorable("relevance", "response"),
    },
    idf_sha256: idf.sha256,
    relevance: 0,
    vrty_version: VRTY_VERSION,
    weights: WEIGHTS,
  };
}

/**
 * Scores a (prompt, response) pair (spec vrty.md §2–§6). Synchronous and deterministic: the
 * same strings and table give byte-identical `JSON.stringify` output. Never throws for string
 * inputs; every number is finite and in [0, 1].
 *
 * - A response with no content tokens scores 0 everywhere (§5).
 * - A prompt with no content tokens gives relevance = completeness = 0 (§5).
 * - Every floating-point sum runs over terms in ascending code-unit order (§4, §7); only
 *   `+ * / sqrt` are used, so results do not depend on the engine's libm.
 *
 * @throws TypeError if `prompt` or `response` is not a string.
 */
export function score(prompt: string, response: string, idf: Idf): VrtyResult {
  if (typeof prompt !== "string") throw new TypeError("score: prompt must be a string");
  if (typeof response !== "string") throw new TypeError("score: response must be a string");

  beginTerms(idfIndex(idf));
  resetTokenCache();
  const r = scanText(response, termId, R_IDS, R_ENDS);
  if (r.content === 0) return zeroResult(idf);
  const p = scanText(prompt, termId, P_IDS, null);

  // Rank = position in ascending term order; every later sum walks ranks upward.
  const u = termCount();
  sortTerms(ORDER);
  for (let k = 0; k < u; k++) {
    const id = ORDER[k];
    RANK_OF[id] = k;
    W[k] = TERM_WEIGHT[id];
  }
  P_TF.fill(0, 0, u);
  R_TF.fill(0, 0, u);
  for (let t = 0; t < p.content; t++) P_TF[RANK_OF[P_IDS[t]]]++;
  for (let t = 0; t < r.content; t++) R_TF[RANK_OF[R_IDS[t]]]++;

  // One sorted walk yields the three cosine sums (§4.1), the completeness sums (§4.3) and
  // the response's unique content count (§4.4); skipped ranks contribute no addition.
  let dot = 0;
  let na = 0;
  let nb = 0;
  let covered = 0;
  let wanted = 0;
  let unique = 0;
  for (let k = 0; k < u; k++) {
    const w = W[k];
    const ptf = P_TF[k];
    const rtf = R_TF[k];
    if (rtf !== 0) {
      const b = rtf * w;
      nb += b * b;
      unique++;
    }
    if (ptf !== 0) {
      const a = ptf * w;
      na += a * a;
      wanted += w;
      if (rtf !== 0) {
        dot += a * (rtf * w);
        covered += w;
      }
    }
  }

  const promptEmpty = p.content === 0;
  const relevance = promptEmpty ? 0 : cosFromSums(dot, na, nb);
  const completeness = promptEmpty ? 0 : covered / wanted;
  const coh = coherence(r.sentences);
  const conciseness = unique / r.total;
  const composite =
    WEIGHTS.relevance * relevance +
    WEIGHTS.coherence * coh +
    WEIGHTS.completeness * completeness +
    WEIGHTS.conciseness * conciseness;

  return {
    coherence: coh,
    completeness,
    composite,
    conciseness,
    explanations: {
      coherence: explain("coherence", coh),
      completeness: promptEmpty ? explainUnscorable("completeness", "prompt") : explain("completeness", completeness),
      conciseness: explain("conciseness", conciseness),
      relevance: promptEmpty ? explainUnscorable("relevance", "prompt") : explain("relevance", relevance),
    },
    idf_sha256: idf.sha256,
    relevance,
    vrty_version: VRTY_VERSION,
    weights: WEIGHTS,
  };
}
