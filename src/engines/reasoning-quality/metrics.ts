/**
 * The six metrics over stored per-item records (spec §1.5, §2–§7). Scoring runs in two steps so a run can
 * be re-summarised without new model calls:
 * 1. `scoreItems`: everything that depends on one item only (CQ_i, CS_i, RS_i, LS_i, SS_i, token count).
 *    This is the only async step, because the LS `model` and SS `embeddings` backends are injected async
 *    functions; the engine itself does no I/O.
 * 2. `summarise`: the set-level means for any subset of items, with ES's min–max recomputed per subset (§6),
 *    then `round(x, 4)` (§1.5).
 * Sums run left to right in item order, as CPython 3.11's `sum()` does, so results match the reference bit
 * for bit.
 */
import { extractAnswer, isCorrect, type CqMatcher, type MatchOptions } from "./answer.ts";
import { compareCodePoints, isBlank, pySplit, pyStrip } from "../python/index.ts";
import { round4 } from "./round.ts";

/** The `metrics:` config block as [C] reads it; an absent key takes the code's default (see each metric). */
export type MetricsConfig = {
  consistency_runs?: number;
  stability_runs?: number;
  robustness_perturbations?: number;
};

/** One item as the evaluator stores it (§1); the metrics need nothing else. */
export type ItemRecord = {
  /** The primary response ("" when the primary generation failed). */
  prediction: string;
  gold_answer: string;
  /** Output tokens of the primary response (0 when it failed). */
  token_count: number;
  /** The primary response's steps (`[""]` when there are none); LS reads these. */
  reasoning_trace: string[];
  /** Answers of the K runs, the primary first; a failed extra run is omitted, not stored as "". */
  k_answers: string[];
  /** Traces of the K runs (steps joined by one space); SS compares these. */
  k_traces: string[];
  /** Answers to the first P perturbations ("" for an empty slot; a failed call is omitted). */
  perturbed_preds: string[];
  dataset?: string;
  question_id?: string;
  generation_failed?: boolean;
  /**
   * §4 [D]: false when the input item had no perturbations at all (field absent or every entry blank). Such
   * items are left out of RS under `rsWithoutPerturbations: "skip"`. Absent means "had perturbations", since
   * a record alone cannot tell an item without perturbations from one whose perturbation calls all failed.
   */
  has_perturbations?: boolean;
  /** How `token_count` was obtained (§10 `token_count_method`). */
  token_count_method?: string;
};

export type NliLabel = "contradiction" | "entailment" | "neutral";
/** Two consecutive steps of one trace, premise first. */
export type StepPair = { premise: string; hypothesis: string };
/** An injected NLI / contradiction checker: one label per pair, in order (§11 `NliBackend.classify`). */
export type ContradictionChecker = (pairs: StepPair[]) => Promise<NliLabel[]>;
/** An injected embedder: one vector per text, in order (§11 `embeddings-cosine`). */
export type EmbedFn = (texts: string[]) => Promise<number[][]>;

/**
 * Per record, the checker's labels for its trace's consecutive pairs, in order, as a platform recorded
 * them while the generations ran; a null entry (or a null list) is a pair the checker failed on.
 */
export type RecordedLabels = readonly (readonly (NliLabel | null)[] | null)[];

/** LS backends (§5, §11). `none` never pretends: LS is null and `ls_method` says "none". */
export type LsBackend =
  | { method: "lexical" }
  | ({
      method: "model";
      /** Pairs per call; [C] batches 32. */
      batchSize?: number;
      /** A failed call labels its pairs "neutral" ([C]) and is counted in `ls_failed_pairs`; or rethrow. */
      onError?: "neutral" | "throw";
      /**
       * [D] When any pair failed: "neutral" keeps [C]'s neutral labels; "lexical" or "none" replace the
       * whole set's LS by that backend, reported in `ls_method` with the reason in `ls_fallback`.
       */
      fallback?: "neutral" | "lexical" | "none";
      /** Reported as `ls_model`, e.g. "cross-encoder/nli-deberta-v3-small". */
      name?: string;
    } & ({ classify: ContradictionChecker; labels?: undefined } | { labels: RecordedLabels; classify?: undefined }))
  | { method: "none" };

/** SS backends (§7, §11). Embedding cosines are NOT comparable with BERTScore or Jaccard values. */
export type SsBackend =
  | { method: "jaccard" }
  | {
      method: "embeddings";
      embed: EmbedFn;
      /** Optional baseline rescale (s − b)/(1 − b) of every non-empty pair's cosine. */
      baseline?: number;
      /** Texts per `embed` call (distinct non-blank traces of consecutive items share calls); default 64. */
      batchSize?: number;
      /** [D] When `embed` fails: use this backend for the whole set and say so in `ss_fallback`; absent = rethrow. */
      fallback?: "jaccard" | "none";
      /** Reported as `ss_model`, e.g. "@cf/baai/bge-small-en-v1.5". */
      name?: string;
    }
  /** [D] SS left out: null, and Q renormalised over the rest. */
  | { method: "none" };

/** Why a model-backed method was replaced by its fallback. */
export type BackendFallback = { from: "model" | "embeddings"; reason: string };

export type MetricOptions = MatchOptions & {
  /** Default `{ method: "lexical" }`, the reference's fallback. */
  ls?: LsBackend;
  /** Default `{ method: "jaccard" }`, the reference's fallback. */
  ss?: SsBackend;
  /**
   * §4: "skip" ([D], default) leaves items with `has_perturbations === false` out of RS, and RS is null
   * (`rs_skipped`) when no item is left; "zero" keeps them in C with RS_i = 0, as [C] does.
   */
  rsWithoutPerturbations?: "skip" | "zero";
  /**
   * §6: false ([D], default) leaves failed generations out of T_min/T_max (they still score ES_i = 0);
   * true lets their 0 tokens become T_min, as [C] does.
   */
  esFailedInMinMax?: boolean;
};

export const METRIC_KEYS = [
  "correctness",
  "consistency",
  "robustness",
  "logical_coherence",
  "efficiency",
  "stability",
] as const;
export type MetricKey = (typeof METRIC_KEYS)[number];
/** Set-level metrics; RS and LS may be null (skipped / `none` backend). */
export type RawMetrics = {
  correctness: number;
  consistency: number;
  robustness: number | null;
  logical_coherence: number | null;
  efficiency: number;
  stability: number | null;
};

type Resolved = {
  matcher: CqMatcher;
  roundingAware: boolean;
  rsWithoutPerturbations: "skip" | "zero";
  esFailedInMinMax: boolean;
};

/** Per-item scores that do not depend on which other items are in the set. */
export type ItemScores = {
  cq: number[];
  cs: number[];
  /** The labels CS compared (null when K < 2). */
  cs_labels: (string[] | null)[];
  rs: number[];
  /** In RS's denominator: eligible and correct. */
  in_C: boolean[];
  rs_eligible: boolean[];
  /** null under the `none` backend. */
  ls: (number | null)[];
  /** null under the `none` backend. */
  ss: (number | null)[];
  tokens: number[];
  failed: boolean[];
  cq_matcher: CqMatcher;
  ls_method: LsBackend["method"];
  ls_model?: string;
  /** Pairs labelled "neutral" because the injected checker failed (model backend only). */
  ls_failed_pairs: number;
  ls_fallback?: BackendFallback;
  ss_method: SsBackend["method"];
  ss_model?: string;
  ss_fallback?: BackendFallback;
  options: Resolved;
};

export type SetMetrics = {
  num_samples: number;
  per_item: {
    cq: number[];
    cs: number[];
    cs_labels: (string[] | null)[];
    rs: number[];
    in_C: boolean[];
    ls: (number | null)[];
    es: number[];
    ss: (number | null)[];
  };
  /** Unrounded. */
  raw: RawMetrics;
  /** `round(x, 4)` of `raw` (§1.5), what aggregation reads. */
  raw_metrics: RawMetrics;
  rs_skipped: boolean;
  /** Which matcher and backends produced these numbers (§10, §11: never compare across methods). */
  cq_matcher: CqMatcher;
  ls_method: LsBackend["method"];
  ss_method: SsBackend["method"];
};

// ---- small numeric helpers (Python order of operations) -------------------------------------------------

function sum(xs: readonly number[]): number {
  let s = 0;
  for (const x of xs) s += x;
  return s;
}

/** `sum(xs) / len(xs)`, or `empty` for no items. */
function mean(xs: readonly number[], empty: number): number {
  return xs.length === 0 ? empty : sum(xs) / xs.length;
}

/** `int(x)` of a config number. */
function configInt(x: number | undefined, fallback: number): number {
  return x === undefined || x === null ? fallback : Math.trunc(Number(x));
}

// ---- CS (§3) -------------------------------------------------------------------------------------------

/**
 * CS_i (§3) with its labels. K = `consistency_runs`; when the config has no `consistency_runs`, [C] uses the
 * number of stored answers (3 if none), so a failed extra run then does not lower CS (README). The first K
 * answers are padded with "" and labelled: blank → unique `__failed_run_i__`; else the §2.1 extraction
 * (unique `__unparsed_run_i__` when none); without a gold, the trimmed lower-cased answer.
 */
export function consistencyItem(
  answers: readonly string[],
  gold: string | null,
  consistencyRuns?: number,
): { score: number; labels: string[] | null } {
  const k = configInt(consistencyRuns, answers.length || 3);
  if (k < 2) return { score: 0, labels: null };
  const labels: string[] = [];
  for (let i = 0; i < k; i++) {
    const answer = answers[i] ?? "";
    if (isBlank(answer)) labels.push(`__failed_run_${i}__`);
    else if (gold !== null) labels.push(extractAnswer(answer, gold) ?? `__unparsed_run_${i}__`);
    else labels.push(pyStrip(answer).toLowerCase());
  }
  let agree = 0;
  let pairs = 0;
  for (let i = 0; i < k; i++) {
    for (let j = i + 1; j < k; j++) {
      pairs++;
      if (labels[i] === labels[j]) agree++;
    }
  }
  return { score: pairs ? agree / pairs : 0, labels };
}

// ---- RS (§4) -------------------------------------------------------------------------------------------

/**
 * RS_i (§4): 0 unless the primary is correct; else the share of the first P perturbation answers (padded
 * with "") that are non-blank and correct, over the fixed P. P ≤ 0 gives 0.
 */
export function robustnessItem(
  prediction: string,
  perturbed: readonly string[],
  gold: string,
  perturbations: number,
  match: MatchOptions = {},
): number {
  if (!isCorrect(prediction, gold, match)) return 0;
  if (perturbations <= 0) return 0;
  let matches = 0;
  for (let p = 0; p < perturbations; p++) {
    const pred = perturbed[p] ?? "";
    if (!isBlank(pred) && isCorrect(pred, gold, match)) matches++;
  }
  return matches / perturbations;
}

// ---- LS (§5) -------------------------------------------------------------------------------------------

const NEGATIONS = new Set(["not", "no", "never", "false", "incorrect", "wrong", "cannot", "isn't", "aren't"]);

/**
 * [C]'s `_heuristic_contradiction` counts: a consecutive pair contradicts when its lower-cased whitespace
 * token sets share a non-negation token and exactly one side contains a negation word. Tokens keep their
 * punctuation ("wrong," is not a negation).
 */
export function lexicalContradictions(steps: readonly string[]): { contradictions: number; pairs: number } {
  let contradictions = 0;
  let pairs = 0;
  for (let i = 0; i + 1 < steps.length; i++) {
    pairs++;
    const a = new Set(pySplit(steps[i].toLowerCase()));
    const b = new Set(pySplit(steps[i + 1].toLowerCase()));
    const negA = [...a].some((w) => NEGATIONS.has(w));
    const negB = [...b].some((w) => NEGATIONS.has(w));
    const overlap = [...a].some((w) => !NEGATIONS.has(w) && b.has(w));
    if (overlap && negA !== negB) contradictions++;
  }
  return { contradictions, pairs };
}

/** LS_i under the `lexical` backend: 1 − contradictions/pairs, and 1.0 for fewer than two steps. */
export function lexicalCoherence(steps: readonly string[]): number {
  const { contradictions, pairs } = lexicalContradictions(steps);
  return 1.0 - (pairs ? contradictions / pairs : 0.0);
}

/** [C]'s NLI input for one pair: a single string with a literal "[SEP]" (a quirk kept for parity, §5). */
export function nliInputText(pair: StepPair): string {
  return `${pair.premise} [SEP] ${pair.hypothesis}`;
}

/** The consecutive step pairs of each trace, premise first. */
export function stepPairs(steps: readonly string[]): StepPair[] {
  const pairs: StepPair[] = [];
  for (let j = 0; j + 1 < steps.length; j++) pairs.push({ premise: steps[j], hypothesis: steps[j + 1] });
  return pairs;
}

/** LS_i from a trace's pair labels (null = failed, counted and read as "neutral", [C]). */
function coherenceFromLabels(labels: readonly (NliLabel | null)[]): number {
  if (labels.length === 0) return 1.0;
  return 1.0 - labels.filter((l) => l === "contradiction").length / labels.length;
}

async function modelCoherence(
  traces: readonly string[][],
  backend: Extract<LsBackend, { method: "model" }>,
): Promise<{ ls: number[]; failed: number }> {
  const perTrace = traces.map(stepPairs);
  let labelled: (NliLabel | null)[][];
  if (backend.labels) {
    if (backend.labels.length !== traces.length)
      throw new RangeError(`recorded labels for ${backend.labels.length} records, expected ${traces.length}`);
    // A recorded list that does not fit its trace (another splitter, a truncated record) counts as failed.
    labelled = perTrace.map((pairs, t) => {
      const got = backend.labels![t];
      return got && got.length === pairs.length ? [...got] : pairs.map(() => null);
    });
  } else {
    const flat = perTrace.flat();
    const labels: (NliLabel | null)[] = [];
    const batchSize = Math.max(1, Math.trunc(backend.batchSize ?? 32));
    for (let start = 0; start < flat.length; start += batchSize) {
      const batch = flat.slice(start, start + batchSize);
      let got: NliLabel[] | null = null;
      try {
        got = await backend.classify(batch);
        if (!Array.isArray(got) || got.length !== batch.length)
          throw new Error(
            `contradiction checker returned ${Array.isArray(got) ? got.length : typeof got} labels for ${batch.length} pairs`,
          );
      } catch (error) {
        if (backend.onError === "throw") throw error;
        got = null;
      }
      labels.push(...(got ?? batch.map(() => null)));
    }
    let at = 0;
    labelled = perTrace.map((pairs) => labels.slice(at, (at += pairs.length)));
  }
  const failed = labelled.reduce((n, ls) => n + ls.filter((l) => l === null).length, 0);
  return { ls: labelled.map(coherenceFromLabels), failed };
}

// ---- SS (§7) -------------------------------------------------------------------------------------------

/** [C]'s Jaccard fallback: |A∩B|/|A∪B| of lower-cased whitespace-token sets; 0 if either is empty. */
export function jaccard(a: string, b: string): number {
  const ta = new Set(pySplit(a.toLowerCase()));
  const tb = new Set(pySplit(b.toLowerCase()));
  if (ta.size === 0 || tb.size === 0) return 0;
  let inter = 0;
  for (const w of ta) if (tb.has(w)) inter++;
  return inter / (ta.size + tb.size - inter);
}

/** Cosine similarity; 0 for a zero vector. */
export function cosine(a: readonly number[], b: readonly number[]): number {
  if (a.length !== b.length) throw new RangeError(`embedding sizes differ: ${a.length} vs ${b.length}`);
  let dot = 0;
  let na = 0;
  let nb = 0;
  for (let i = 0; i < a.length; i++) {
    dot += a[i] * b[i];
    na += a[i] * a[i];
    nb += b[i] * b[i];
  }
  return na === 0 || nb === 0 ? 0 : dot / (Math.sqrt(na) * Math.sqrt(nb));
}

/** The K traces cut or padded with "" to `stability_runs` (§7 step 1). */
export function padTraces(traces: readonly string[], runs: number): string[] {
  const fixed = traces.slice(0, Math.max(0, runs));
  while (fixed.length < runs) fixed.push("");
  return fixed;
}

/** SS_i from the pair similarities in `itertools.combinations` order: (2/(K(K−1))) · Σ sim, and 0 for K ≤ 1. */
export function stabilityFromPairs(k: number, sims: readonly number[]): number {
  if (k <= 1 || sims.length === 0) return 0;
  return (2.0 / (k * (k - 1))) * sum(sims);
}

/** SS_i with the Jaccard similarity. */
export function stabilityItem(traces: readonly string[], stabilityRuns: number): number {
  const fixed = padTraces(traces, stabilityRuns);
  const sims: number[] = [];
  for (let a = 0; a < fixed.length; a++)
    for (let b = a + 1; b < fixed.length; b++) sims.push(jaccard(fixed[a], fixed[b]));
  return stabilityFromPairs(fixed.length, sims);
}

/** SS_i for every record with embedding cosines: distinct non-blank traces of consecutive records share `embed` calls. */
async function embeddingStabilities(
  traceSets: readonly (readonly string[])[],
  stabilityRuns: number,
  backend: Extract<SsBackend, { method: "embeddings" }>,
): Promise<number[]> {
  const batchSize = Math.max(1, Math.trunc(backend.batchSize ?? 64));
  const fixed = traceSets.map((t) => padTraces(t, stabilityRuns));
  const out: number[] = [];
  // Records are taken in chunks whose distinct texts fill about one call, so only one chunk's vectors are held.
  for (let start = 0; start < fixed.length; ) {
    const texts = new Set<string>();
    let end = start;
    while (end < fixed.length) {
      const mine = fixed[end].filter((t) => !isBlank(t) && !texts.has(t));
      if (end > start && texts.size + mine.length > batchSize) break;
      for (const t of mine) texts.add(t);
      end++;
    }
    const list = [...texts];
    const vectors = new Map<string, number[]>();
    for (let i = 0; i < list.length; i += batchSize) {
      const chunk = list.slice(i, i + batchSize);
      const got = await backend.embed(chunk);
      if (!Array.isArray(got) || got.length !== chunk.length)
        throw new Error(
          `embedder returned ${Array.isArray(got) ? got.length : typeof got} vectors for ${chunk.length} texts`,
        );
      chunk.forEach((t, j) => vectors.set(t, got[j]));
    }
    for (let r = start; r < end; r++) out.push(pairStability(fixed[r], vectors, backend.baseline));
    start = end;
  }
  return out;
}

function pairStability(
  traces: readonly string[],
  vectors: ReadonlyMap<string, number[]>,
  baseline: number | undefined,
): number {
  if (traces.length <= 1) return 0;
  const sims: number[] = [];
  for (let i = 0; i < traces.length; i++) {
    for (let j = i + 1; j < traces.length; j++) {
      const va = vectors.get(traces[i]);
      const vb = vectors.get(traces[j]);
      if (!va || !vb) sims.push(0);
      else {
        const s = cosine(va, vb);
        sims.push(baseline === undefined ? s : (s - baseline) / (1 - baseline));
      }
    }
  }
  return stabilityFromPairs(traces.length, sims);
}

// ---- ES (§6) -------------------------------------------------------------------------------------------

/**
 * ES_i (§6) over one set: T' = (T − T_min)/(T_max − T_min) (0 when equal), ES_i = 2·CQ_i·(1−T')/(CQ_i + 1−T'),
 * 0 when that denominator is 0. Items with `inMinMax[i] === false` are left out of T_min/T_max and score 0.
 */
export function efficiencyScores(
  cq: readonly number[],
  tokens: readonly number[],
  inMinMax?: readonly boolean[],
): number[] {
  const used = tokens.filter((_, i) => inMinMax?.[i] !== false);
  if (used.length === 0) return tokens.map(() => 0);
  let tMin = used[0];
  let tMax = used[0];
  for (const t of used) {
    if (t < tMin) tMin = t;
    if (t > tMax) tMax = t;
  }
  return tokens.map((t, i) => {
    if (inMinMax?.[i] === false) return 0;
    const tNorm = tMax === tMin ? 0.0 : (t - tMin) / (tMax - tMin);
    const conciseness = 1.0 - tNorm;
    const denom = cq[i] + conciseness;
    return denom === 0 ? 0.0 : (2 * cq[i] * conciseness) / denom;
  });
}

// ---- the two steps -------------------------------------------------------------------------------------

function resolve(options: MetricOptions): Resolved {
  return {
    matcher: options.matcher ?? "canonical",
    roundingAware: options.roundingAware ?? false,
    rsWithoutPerturbations: options.rsWithoutPerturbations ?? "skip",
    esFailedInMinMax: options.esFailedInMinMax ?? false,
  };
}

/** Step 1: the per-item scores of every record (async only for the injected LS/SS backends). */
export async function scoreItems(
  records: readonly ItemRecord[],
  config: MetricsConfig = {},
  options: MetricOptions = {},
): Promise<ItemScores> {
  const o = resolve(options);
  const match: MatchOptions = { matcher: o.matcher, roundingAware: o.roundingAware };
  const ls = options.ls ?? { method: "lexical" };
  const ss = options.ss ?? { method: "jaccard" };
  const perturbations = configInt(config.robustness_perturbations, 3);
  const stabilityRuns = configInt(config.stability_runs, 3);

  const cq = records.map((r) => (isCorrect(r.prediction, r.gold_answer, match) ? 1.0 : 0.0));
  const csPairs = records.map((r) => consistencyItem(r.k_answers, r.gold_answer, config.consistency_runs));
  const rsEligible = records.map((r) => o.rsWithoutPerturbations === "zero" || r.has_perturbations !== false);
  const rs = records.map((r, i) =>
    rsEligible[i] ? robustnessItem(r.prediction, r.perturbed_preds, r.gold_answer, perturbations, match) : 0,
  );

  let lsScores: (number | null)[];
  let lsMethod: LsBackend["method"] = ls.method;
  let lsFailed = 0;
  let lsFallback: BackendFallback | undefined;
  if (ls.method === "none") lsScores = records.map(() => null);
  else if (ls.method === "lexical") lsScores = records.map((r) => lexicalCoherence(r.reasoning_trace));
  else if (ls.method === "model") {
    const got = await modelCoherence(
      records.map((r) => r.reasoning_trace),
      ls,
    );
    lsScores = got.ls;
    lsFailed = got.failed;
    const fallback = ls.fallback ?? "neutral";
    if (lsFailed > 0 && fallback !== "neutral") {
      lsMethod = fallback;
      lsFallback = {
        from: "model",
        reason: `the contradiction checker failed on ${lsFailed} of ${records.reduce((n, r) => n + stepPairs(r.reasoning_trace).length, 0)} step pairs`,
      };
      lsScores =
        fallback === "lexical" ? records.map((r) => lexicalCoherence(r.reasoning_trace)) : records.map(() => null);
    }
  } else throw new RangeError(`unknown LS backend "${String((ls as { method: unknown }).method)}"`);

  let ssScores: (number | null)[];
  let ssMethod: SsBackend["method"] = ss.method;
  let ssFallback: BackendFallback | undefined;
  const jaccardScores = () => records.map((r) => stabilityItem(r.k_traces, stabilityRuns));
  if (ss.method === "jaccard") ssScores = jaccardScores();
  else if (ss.method === "none") ssScores = records.map(() => null);
  else if (ss.method === "embeddings") {
    try {
      ssScores = await embeddingStabilities(
        records.map((r) => r.k_traces),
        stabilityRuns,
        ss,
      );
    } catch (error) {
      if (!ss.fallback) throw error;
      ssMethod = ss.fallback;
      ssFallback = { from: "embeddings", reason: error instanceof Error ? error.message : String(error) };
      ssScores = ss.fallback === "jaccard" ? jaccardScores() : records.map(() => null);
    }
  } else throw new RangeError(`unknown SS backend "${String((ss as { method: unknown }).method)}"`);

  return {
    cq,
    cs: csPairs.map((c) => c.score),
    cs_labels: csPairs.map((c) => c.labels),
    rs,
    in_C: records.map((_, i) => rsEligible[i] && cq[i] === 1),
    rs_eligible: rsEligible,
    ls: lsScores,
    ss: ssScores,
    tokens: records.map((r) => r.token_count),
    failed: records.map((r) => r.generation_failed === true),
    cq_matcher: o.matcher,
    ls_method: lsMethod,
    ...(ls.method === "model" && ls.name !== undefined ? { ls_model: ls.name } : {}),
    ls_failed_pairs: lsFailed,
    ...(lsFallback ? { ls_fallback: lsFallback } : {}),
    ss_method: ssMethod,
    ...(ss.method === "embeddings" && ss.name !== undefined ? { ss_model: ss.name } : {}),
    ...(ssFallback ? { ss_fallback: ssFallback } : {}),
    options: o,
  };
}

/** Rounds every non-null metric with `round(x, 4)` (§1.5). */
export function roundMetrics(raw: RawMetrics): RawMetrics {
  const r = (x: number | null) => (x === null ? null : round4(x));
  return {
    correctness: round4(raw.correctness),
    consistency: round4(raw.consistency),
    robustness: r(raw.robustness),
    logical_coherence: r(raw.logical_coherence),
    efficiency: round4(raw.efficiency),
    stability: r(raw.stability),
  };
}

/**
 * Step 2: set-level metrics over `indices` (default: every item, in order). Empty-set values follow [C]:
 * 0 for every metric except LS, which is 1.0.
 */
export function summarise(scores: ItemScores, indices?: readonly number[]): SetMetrics {
  const idx = indices ?? scores.cq.map((_, i) => i);
  const pick = <T>(xs: readonly T[]) => idx.map((i) => xs[i]);
  const cq = pick(scores.cq);
  const inMinMax = scores.options.esFailedInMinMax ? undefined : pick(scores.failed).map((f) => !f);
  const es = efficiencyScores(cq, pick(scores.tokens), inMinMax);
  const ls = pick(scores.ls);
  const inC = pick(scores.in_C);
  const rsValues = pick(scores.rs);
  const eligible = pick(scores.rs_eligible);
  const rsSkipped = scores.options.rsWithoutPerturbations === "skip" && !eligible.some(Boolean);
  const inCValues = rsValues.filter((_, j) => inC[j]);
  const raw: RawMetrics = {
    correctness: mean(cq, 0.0),
    consistency: mean(pick(scores.cs), 0.0),
    robustness: rsSkipped ? null : mean(inCValues, 0.0),
    logical_coherence: scores.ls_method === "none" ? null : mean(ls as number[], 1.0),
    efficiency: mean(es, 0.0),
    stability: scores.ss_method === "none" ? null : mean(pick(scores.ss) as number[], 0.0),
  };
  return {
    num_samples: idx.length,
    per_item: {
      cq,
      cs: pick(scores.cs),
      cs_labels: pick(scores.cs_labels),
      rs: rsValues,
      in_C: inC,
      ls,
      es,
      ss: pick(scores.ss),
    },
    raw,
    raw_metrics: roundMetrics(raw),
    rs_skipped: rsSkipped,
    cq_matcher: scores.cq_matcher,
    ls_method: scores.ls_method,
    ss_method: scores.ss_method,
  };
}

/** Both steps over the whole set. */
export async function computeMetrics(
  records: readonly ItemRecord[],
  config: MetricsConfig = {},
  options: MetricOptions = {},
): Promise<SetMetrics & { scores: ItemScores }> {
  const scores = await scoreItems(records, config, options);
  return { ...summarise(scores), scores };
}

/** The dataset label of a record; untagged items are "unknown" (§9.5, [C]'s default). */
export function datasetOf(record: Pick<ItemRecord, "dataset">): string {
  return record.dataset === undefined || record.dataset === null ? "unknown" : String(record.dataset);
}

/**
 * The per-dataset subsets (§1.5): record positions grouped by dataset label, names in Python `sorted()`
 * order, only when more than one name is present (else []).
 *
 * QUIRK fixes (README "Quirk lines"): [C] rebuilt each subset by looking items up again, by `question_id`
 * in a dict (a shared id let the last record win for both items) or by `list.index(item)` (identical item
 * dicts all reused the first record), and filtered on the raw `dataset` field (untagged items were counted
 * as a dataset name "unknown" but then matched nothing and were dropped). Grouping the stored records by
 * position and by their own label fixes all three: every record lands in exactly one subset, its own.
 */
export function groupByDataset(records: readonly Pick<ItemRecord, "dataset">[]): { name: string; indices: number[] }[] {
  const groups = new Map<string, number[]>();
  records.forEach((r, i) => {
    const name = datasetOf(r);
    const list = groups.get(name);
    if (list) list.push(i);
    else groups.set(name, [i]);
  });
  if (groups.size <= 1) return [];
  return [...groups.keys()].sort(compareCodePoints).map((name) => ({ name, indices: groups.get(name)! }));
}
