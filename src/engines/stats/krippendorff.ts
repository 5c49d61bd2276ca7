// Krippendorff's alpha, nominal metric (STYLE "For assay" §8: one file per statistic).
/** Result of {@link nominalAlpha}. */
export type NominalAlpha = {
  /** Krippendorff's alpha, or null where it is undefined (see edge cases). */
  alpha: number | null;
  /** n: number of pairable values (values in units with at least two of them). */
  pairable: number;
  /** Units (items) with at least two values, i.e. the ones that contribute. */
  units_used: number;
  /** Categories in first-seen order, indexing `coincidence` and `totals`. */
  categories: string[];
  /** Coincidence matrix o[c][k]. */
  coincidence: number[][];
  /** n_c = Σ_k o[c][k]. */
  totals: number[];
};

/**
 * Krippendorff's alpha for nominal data over a units × raters matrix with missing values
 * (Krippendorff 2011, "Computing Krippendorff's alpha-reliability"; spec cross-judge.md §6, textbook part).
 *
 *   For each unit u with m_u ≥ 2 values and n_uc values of category c:
 *     o_ck += n_uc·(n_uk − [c = k]) / (m_u − 1)          (coincidence matrix from value counts)
 *   n_c = Σ_k o_ck,  n = Σ_c n_c,
 *   α = 1 − (n − 1) · Σ_{c≠k} o_ck / Σ_{c≠k} n_c·n_k
 *     = 1 − (n − 1) · (n − Σ_c o_cc) / (n² − Σ_c n_c²).
 *
 * Cost is O(units · (raters + categories²)); no rater pairs are enumerated.
 * Input: `units[u][r]` is a label or null (missing, e.g. an errored verdict); rows may differ in length.
 * Edge cases: units with fewer than two values are dropped; no pairable values (n < 2, including an
 * empty matrix) → alpha null; only one category among pairable values (denominator 0, e.g. all ratings
 * identical) → alpha null, since expected disagreement is 0 and alpha is 0/0. Perfect agreement with at
 * least two categories → exactly 1. Systematic disagreement gives negative values (down to −1 and below
 * for tiny samples). Labels compare exactly (case-sensitive).
 */
export function nominalAlpha(units: ReadonlyArray<ReadonlyArray<string | null | undefined>>): NominalAlpha {
  const index = new Map<string, number>();
  const categories: string[] = [];
  // Per-unit category counts, reused across units; `touched` lists the categories seen in this unit.
  let counts: Float64Array<ArrayBuffer> = new Float64Array(8);
  const touched: number[] = [];
  let o: Float64Array<ArrayBuffer> = new Float64Array(64);
  let K = 0;
  let pairable = 0;
  let unitsUsed = 0;
  for (const row of units) {
    touched.length = 0;
    let m = 0;
    for (const label of row) {
      if (label === null || label === undefined) continue;
      let c = index.get(label);
      if (c === undefined) {
        c = K++;
        index.set(label, c);
        categories.push(label);
        if (K > counts.length) {
          const grown = new Float64Array(counts.length * 2);
          grown.set(counts);
          counts = grown;
          o = growSquare(o, counts.length / 2, counts.length);
        }
      }
      if (counts[c] === 0) touched.push(c);
      counts[c]++;
      m++;
    }
    if (m >= 2) {
      unitsUsed++;
      pairable += m;
      const stride = counts.length;
      for (const c of touched) {
        for (const k of touched) o[c * stride + k] += (counts[c] * (counts[k] - (c === k ? 1 : 0))) / (m - 1);
      }
    }
    for (const c of touched) counts[c] = 0;
  }
  const stride = counts.length;
  const coincidence: number[][] = [];
  const totals: number[] = [];
  let diagonal = 0;
  let sumSq = 0;
  let n = 0;
  for (let c = 0; c < K; c++) {
    const rowArr: number[] = [];
    let nc = 0;
    for (let k = 0; k < K; k++) {
      rowArr.push(o[c * stride + k]);
      nc += o[c * stride + k];
    }
    coincidence.push(rowArr);
    totals.push(nc);
    diagonal += o[c * stride + c];
    sumSq += nc * nc;
    n += nc;
  }
  const denom = n * n - sumSq;
  const alpha = n < 2 || denom <= 0 ? null : 1 - ((n - 1) * (n - diagonal)) / denom;
  return { alpha, pairable, units_used: unitsUsed, categories, coincidence, totals };
}

function growSquare(o: Float64Array<ArrayBuffer>, oldStride: number, newStride: number): Float64Array<ArrayBuffer> {
  const out = new Float64Array(newStride * newStride);
  for (let c = 0; c < oldStride; c++) out.set(o.subarray(c * oldStride, (c + 1) * oldStride), c * newStride);
  return out;
}

/**
 * `nominalAlpha(indices.map((i) => units[i])).alpha` for many resamples of the same units (a paired
 * bootstrap): the matrix is read once, and each resample then costs one pass over its units' few
 * coincidence terms, with no string or row handled. The result is the same bit for bit: a unit adds the
 * same term to each cell of the coincidence matrix whichever resample it is in, each cell is summed in
 * resample order as `nominalAlpha` sums it, and the totals are folded in the order in which the resample
 * first shows each category, which is the order `nominalAlpha` indexes them by.
 */
export function nominalAlphaResampler(
  units: ReadonlyArray<ReadonlyArray<string | null | undefined>>,
): (indices: ArrayLike<number>) => number | null {
  const index = new Map<string, number>();
  // Per unit: its categories in the order its row shows them, and its terms (c, k, value) when it has two values or more.
  const catStart = new Int32Array(units.length + 1);
  const cats: number[] = [];
  const termStart = new Int32Array(units.length + 1);
  const termC: number[] = [];
  const termK: number[] = [];
  const values: number[] = [];
  const rowCats: number[] = [];
  const counts = new Map<number, number>();
  units.forEach((row, u) => {
    rowCats.length = 0;
    counts.clear();
    let m = 0;
    for (const label of row) {
      if (label === null || label === undefined) continue;
      let c = index.get(label);
      if (c === undefined) index.set(label, (c = index.size));
      if (!counts.has(c)) rowCats.push(c);
      counts.set(c, (counts.get(c) ?? 0) + 1);
      m++;
    }
    cats.push(...rowCats);
    catStart[u + 1] = cats.length;
    if (m >= 2) {
      for (const c of rowCats) {
        for (const k of rowCats) {
          termC.push(c);
          termK.push(k);
          values.push((counts.get(c)! * (counts.get(k)! - (c === k ? 1 : 0))) / (m - 1));
        }
      }
    }
    termStart[u + 1] = values.length;
  });
  const G = index.size;
  const cell = Int32Array.from(termC, (c, t) => c * G + termK[t]);
  const value = Float64Array.from(values);
  const unitCats = Int32Array.from(cats);
  const o = new Float64Array(G * G);
  const seen = new Uint8Array(G);
  const order = new Int32Array(G);
  return (indices) => {
    o.fill(0);
    seen.fill(0);
    let K = 0;
    for (let j = 0; j < indices.length; j++) {
      const u = indices[j];
      if (K < G) {
        for (let x = catStart[u]; x < catStart[u + 1]; x++) {
          const c = unitCats[x];
          if (!seen[c]) {
            seen[c] = 1;
            order[K++] = c;
          }
        }
      }
      for (let t = termStart[u]; t < termStart[u + 1]; t++) o[cell[t]] += value[t];
    }
    let diagonal = 0;
    let sumSq = 0;
    let n = 0;
    for (let a = 0; a < K; a++) {
      const c = order[a];
      let nc = 0;
      for (let b = 0; b < K; b++) nc += o[c * G + order[b]];
      diagonal += o[c * G + c];
      sumSq += nc * nc;
      n += nc;
    }
    const denom = n * n - sumSq;
    return n < 2 || denom <= 0 ? null : 1 - ((n - 1) * (n - diagonal)) / denom;
  };
}
