import type { IdfIndex } from "./idf.ts";
import { MAX_TOKENS } from "./text.ts";

/**
 * Per-call term interning and ordering for `score`.
 *
 * Every sum of spec §4 must run over terms in ascending code-unit order (§7). Sorting ~1,000
 * strings per call dominated latency, so instead each term gets a numeric sort key that orders
 * exactly like its string:
 * - a vocabulary term of rank r (its position in the table's sorted vocabulary) → 2r + 1;
 * - an out-of-vocabulary term whose insertion point in that vocabulary is p → 2p.
 * Keys are unique except among OOV terms sharing an insertion point; those are ordered by
 * string comparison. Ids are local to one call: 0..count-1 in order of first appearance.
 *
 * Module state is safe because `score` is synchronous and calls no user code.
 */
const MAX_TERMS = 2 * MAX_TOKENS;
/** Sort key (see above) of each local term id. */
const KEY = new Float64Array(MAX_TERMS);
/** w(t) of spec §4 for each local term id. */
export const TERM_WEIGHT = new Float64Array(MAX_TERMS);
const OOV_TERM: string[] = [];
const PACKED = new Float64Array(MAX_TERMS);
const ID_BITS = 4096; // > MAX_TERMS - 1, so key * ID_BITS + id is unique and exact (< 2^53)

let index: IdfIndex;
let count = 0;
let oovIds: Map<string, number> | null = null;

/** Starts a call's interning against the given table. */
export function beginTerms(ix: IdfIndex): void {
  index = ix;
  count = 0;
  oovIds = null;
  if (++ix.gen === 0x7fffffff) {
    ix.stamp.fill(0);
    ix.gen = 1;
  }
}

/** Number of distinct content terms interned since {@link beginTerms}. */
export function termCount(): number {
  return count;
}

/** Number of vocabulary terms strictly below `term` in code-unit order. */
function insertionPoint(sorted: string[], term: string): number {
  let lo = 0;
  let hi = sorted.length;
  while (lo < hi) {
    const mid = (lo + hi) >>> 1;
    if (sorted[mid] < term) lo = mid + 1;
    else hi = mid;
  }
  return lo;
}

/** Rank of `s[start, end)` in the table (hash `h`), -1 for a stopword, -2 if absent. */
function probe(ix: IdfIndex, s: string, start: number, end: number, h: number): number {
  const { slots, pool, mask } = ix;
  const len = end - start;
  let slot = (h ^ (h >>> 13)) & mask;
  for (;;) {
    const b = slot << 2;
    const v = slots[b + 1];
    if (v === 0) return -2;
    if (slots[b] === h && slots[b + 3] === len) {
      const off = slots[b + 2];
      let j = 0;
      while (j < len && pool[off + j] === s.charCodeAt(start + j)) j++;
      if (j === len) return v - 2;
    }
    slot = (slot + 1) & mask;
  }
}

/** Local id of the token `s[start, end)` with FNV-1a hash `h`, or -1 if it is a stopword. */
export function termId(s: string, start: number, end: number, h: number): number {
  const ix = index;
  const rank = probe(ix, s, start, end, h);
  if (rank !== -2) {
    if (rank < 0) return -1;
    if (ix.stamp[rank] === ix.gen) return ix.local[rank];
    ix.stamp[rank] = ix.gen;
    ix.local[rank] = count;
    KEY[count] = 2 * rank + 1;
    TERM_WEIGHT[count] = ix.weights[rank];
    return count++;
  }
  const tok = s.slice(start, end);
  oovIds ??= new Map();
  let id = oovIds.get(tok);
  if (id === undefined) {
    id = count++;
    oovIds.set(tok, id);
    KEY[id] = 2 * insertionPoint(ix.sorted, tok);
    TERM_WEIGHT[id] = ix.oov;
    OOV_TERM[id] = tok;
  }
  return id;
}

// In-place quicksort of a[lo, hi); median-of-three, insertion sort below 16 elements.
// Hand-written because TypedArray#sort measured slower on this input size.
function quicksort(a: Float64Array, lo: number, hi: number): void {
  while (hi - lo > 16) {
    const x = a[lo];
    const y = a[(lo + hi) >>> 1];
    const z = a[hi - 1];
    const p = x < y ? (y < z ? y : x < z ? z : x) : x < z ? x : y < z ? z : y;
    let i = lo;
    let j = hi - 1;
    while (i <= j) {
      while (a[i] < p) i++;
      while (a[j] > p) j--;
      if (i <= j) {
        const t = a[i];
        a[i++] = a[j];
        a[j--] = t;
      }
    }
    if (j - lo < hi - i) {
      quicksort(a, lo, j + 1);
      lo = i;
    } else {
      quicksort(a, i, hi);
      hi = j + 1;
    }
  }
  for (let k = lo + 1; k < hi; k++) {
    const v = a[k];
    let m = k - 1;
    while (m >= lo && a[m] > v) {
      a[m + 1] = a[m];
      m--;
    }
    a[m + 1] = v;
  }
}

/**
 * Writes into `order[0..count)` the local ids in ascending code-unit order of their terms.
 */
export function sortTerms(order: Int32Array): void {
  const n = count;
  for (let id = 0; id < n; id++) PACKED[id] = KEY[id] * ID_BITS + id;
  quicksort(PACKED, 0, n);
  let k = 0;
  while (k < n) {
    const key = Math.floor(PACKED[k] / ID_BITS);
    let e = k;
    do {
      order[e] = PACKED[e] - key * ID_BITS;
      e++;
    } while (e < n && Math.floor(PACKED[e] / ID_BITS) === key);
    // Equal keys only occur for OOV terms sharing an insertion point: order them by string.
    for (let i = k + 1; i < e; i++) {
      const v = order[i];
      const s = OOV_TERM[v];
      let j = i - 1;
      while (j >= k && OOV_TERM[order[j]] > s) {
        order[j + 1] = order[j];
        j--;
      }
      order[j + 1] = v;
    }
    k = e;
  }
}
