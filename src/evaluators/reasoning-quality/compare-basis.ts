/**
 * What a comparison of a reasoning-quality run needs, kept when the run is aggregated (issue 23): per
 * model, each item's scores as columns of numbers, and the few figures of the result the comparer reads.
 * A comparison then reads about 80 bytes per item and model instead of every sample (147 MiB of heap
 * for two 60,000-unit runs before).
 *
 * The scores are the ones the comparer rebuilt from the samples before (issue 18): the engine's per-item
 * scores with LS from the recorded checker labels (a missing label neutral) or lexical, SS by Jaccard,
 * and SS by embeddings not kept (its vectors never are), so such a figure has no interval. They are read
 * off the items the aggregate keeps (aggregate-items.ts), which score each item by the same engine calls.
 *
 * `setFigures` is the engine's `summarise` over those columns for a resample of items, step for step in
 * the same order, so the bootstrap's figures are the same bit for bit without allocating per item.
 */
import { roundMetrics, type RawMetrics } from "../../engines/reasoning-quality/index.ts";
import type { BasisInput } from "../../runs/plugin/compare.ts";
import { keepAll } from "./aggregate.ts";
import type { KeptItem } from "./aggregate-items.ts";
import type { RqModelResult, RqResult } from "./schemas.ts";
import type { RqRunConfig } from "./units.ts";

/** One model's kept scores, item by item in the run's item order; flags are 0/1. */
export type RqItemColumns = {
  cq: number[];
  cs: number[];
  rs: number[];
  in_c: number[];
  rs_eligible: number[];
  /** null under LS `none`, or for an item without any step pair to score. */
  ls: (number | null)[];
  /** null unless SS is by Jaccard. */
  ss: (number | null)[];
  tokens: number[];
  failed: number[];
};

export type RqModelBasis = {
  model: string;
  raw_metrics: RqModelResult["raw_metrics"];
  aggregated: RqModelResult["aggregated"];
  extensions: Pick<RqModelResult["extensions"], "ls_method" | "ss_method" | "missing_metric">;
  /** The methods the columns were scored by (`none`: that metric is null). */
  ls_method: "model" | "lexical" | "none";
  ss_method: "jaccard" | "none";
  /** False when SS was by embeddings: its figure cannot be rebuilt item by item. */
  ss_stored: boolean;
  scores: RqItemColumns;
};

export type RqBasis = {
  /** Item ids as the run made them unique (`3:adversarial_3`), in item order. */
  items: string[];
  models: RqModelBasis[];
  rankings: RqResult["rankings"];
  strategies: RqResult["strategies"];
};

function modelBasis(result: RqModelResult, items: readonly KeptItem[]): RqModelBasis {
  const e = result.extensions;
  const ls_method = e.ls_method === "model" ? "model" : e.ls_method === "none" ? "none" : "lexical";
  const ss_method = e.ss_method === "jaccard" ? "jaccard" : "none";
  const flag = (b: boolean) => (b ? 1 : 0);
  return {
    model: result.model,
    raw_metrics: result.raw_metrics,
    aggregated: result.aggregated,
    extensions: { ls_method: e.ls_method, ss_method: e.ss_method, missing_metric: e.missing_metric },
    ls_method,
    ss_method,
    ss_stored: e.ss_method !== "embeddings",
    scores: {
      cq: items.map((x) => x.cq),
      cs: items.map((x) => x.cs),
      rs: items.map((x) => x.rs),
      in_c: items.map((x) => flag(x.in_C)),
      rs_eligible: items.map((x) => flag(x.rs_eligible)),
      ls: items.map((x) => (ls_method === "model" ? x.ls_model : ls_method === "lexical" ? x.ls_lexical : null)),
      ss: items.map((x) => (ss_method === "jaccard" ? x.ss_jaccard : null)),
      tokens: items.map((x) => x.tokens),
      failed: items.map((x) => flag(x.failed)),
    },
  };
}

/**
 * The basis of a run from its samples, read once as the aggregate reads them (only the items still
 * open are held). Without samples (a run aggregated before bases were kept) there is none.
 */
export async function rqBasis({ config, result, samples }: BasisInput<RqResult>): Promise<RqBasis | null> {
  if (!samples) return null;
  const c = config as RqRunConfig;
  const kept = await keepAll(c, samples);
  return {
    items: c.items.map((it) => it.id),
    models: result.models.map((r, m) => modelBasis(r, kept[m].items as KeptItem[])),
    rankings: result.rankings,
    strategies: result.strategies,
  };
}

/** A model's columns as typed arrays, read by every resample (null reads as 0 in a sum, as it did). */
export type Columns = {
  n: number;
  cq: Float64Array;
  cs: Float64Array;
  rs: Float64Array;
  inC: Uint8Array;
  eligible: Uint8Array;
  ls: Float64Array | null;
  ss: Float64Array | null;
  tokens: Float64Array;
  failed: Uint8Array;
};

export function columnsOf(m: RqModelBasis): Columns {
  const s = m.scores;
  // `sum` in the engine adds a null as 0 (JS's `x + null`), so 0 here adds the same.
  const f = (xs: readonly (number | null)[]) => Float64Array.from(xs, (x) => x ?? 0);
  return {
    n: s.cq.length,
    cq: f(s.cq),
    cs: f(s.cs),
    rs: f(s.rs),
    inC: Uint8Array.from(s.in_c),
    eligible: Uint8Array.from(s.rs_eligible),
    ls: m.ls_method === "none" ? null : f(s.ls),
    ss: m.ss_method === "none" ? null : f(s.ss),
    tokens: f(s.tokens),
    failed: Uint8Array.from(s.failed),
  };
}

/**
 * The engine's `summarise(scores, idx)` figures (raw and rounded) over the items at `idx` (every item
 * when absent), for scores made with the engine's default options (RS skipped without eligible items,
 * failed items outside ES's token min–max), as the aggregate and the comparer always made them. Every
 * mean adds left to right from 0 and divides by the count, as the engine's `mean` does.
 */
export function setFigures(c: Columns, idx?: ArrayLike<number>): { raw: RawMetrics; rounded: RawMetrics } {
  const n = idx ? idx.length : c.n;
  const at = idx ? (j: number) => idx[j] : (j: number) => j;
  let cq = 0;
  let cs = 0;
  let rs = 0;
  let inC = 0;
  let anyEligible = false;
  let ls = 0;
  let ss = 0;
  let tMin = NaN;
  let tMax = NaN;
  let used = 0;
  for (let j = 0; j < n; j++) {
    const i = at(j);
    cq += c.cq[i];
    cs += c.cs[i];
    if (c.inC[i]) {
      rs += c.rs[i];
      inC++;
    }
    if (c.eligible[i]) anyEligible = true;
    if (c.ls) ls += c.ls[i];
    if (c.ss) ss += c.ss[i];
    if (!c.failed[i]) {
      const t = c.tokens[i];
      if (used++ === 0) tMin = tMax = t;
      else if (t < tMin) tMin = t;
      else if (t > tMax) tMax = t;
    }
  }
  // ES: each item's F1 of correctness and conciseness (0 for a failed one, or when no item is in the min–max).
  let es = 0;
  if (used > 0) {
    for (let j = 0; j < n; j++) {
      const i = at(j);
      if (c.failed[i]) {
        es += 0;
        continue;
      }
      const tNorm = tMax === tMin ? 0.0 : (c.tokens[i] - tMin) / (tMax - tMin);
      const conciseness = 1.0 - tNorm;
      const denom = c.cq[i] + conciseness;
      es += denom === 0 ? 0.0 : (2 * c.cq[i] * conciseness) / denom;
    }
  }
  const mean = (s: number, count: number, empty: number) => (count === 0 ? empty : s / count);
  const raw: RawMetrics = {
    correctness: mean(cq, n, 0.0),
    consistency: mean(cs, n, 0.0),
    robustness: anyEligible ? mean(rs, inC, 0.0) : null,
    logical_coherence: c.ls ? mean(ls, n, 1.0) : null,
    efficiency: mean(es, n, 0.0),
    stability: c.ss ? mean(ss, n, 0.0) : null,
  };
  return { raw, rounded: roundMetrics(raw) };
}
