/**
 * Comparing two judge runs (issue 18): the same items judged by two panels (another critic, prompt,
 * model or voting rule), item by item.
 *
 * Comparable runs judged the same items (by id, with the same `expected` labels where given) in the same
 * label vocabulary; the panel itself may differ, as that is what one compares. Every metric is paired by
 * item:
 * - `accuracy` (when items carry `expected`): consensus against `expected`, Newcombe's paired interval
 *   and McNemar's exact test on the items that became right or wrong;
 * - `agreement`: the mean per-item agreement_pct, with a paired bootstrap interval over items;
 * - `batch_alpha`: nominal Krippendorff's alpha over the items × critics matrix; its interval is a
 *   paired bootstrap over items that recomputes both runs' alpha on each resample of items.
 * What the metrics read is kept when the run is aggregated (issue 23), out of the result: per item its
 * id, expected label, consensus, agreement and valid verdicts, and its row of the items × critics matrix
 * the aggregate measured alpha on, labels as small numbers. A comparison of two 10,000-item runs then
 * reads about 60 bytes per item, not the 10,000 items' verdicts of each result.
 */
import {
  mcnemarExact,
  newcombePairedDifference,
  nominalAlphaResampler,
  pairedBootstrapCi,
} from "../../engines/stats/index.ts";
import type { FieldError } from "../../errors.ts";
import {
  metric,
  type BasisInput,
  type ComparedRun,
  type Comparer,
  type FlippedItem,
  type MetricComparison,
} from "../../runs/plugin/compare.ts";
import { JudgeComparisonDetails, type JudgePublicConfig, type JudgeResult } from "./schemas.ts";

/** One run's items as columns, in the result's item order. */
export type JudgeBasis = {
  ids: string[];
  expected: (string | null)[];
  consensus: string[];
  agreement_pct: number[];
  /** Valid verdicts per item. */
  valid: number[];
  /** The labels the matrix uses; `matrix` holds their index per item and critic, −1 where there is no valid verdict. */
  labels: string[];
  matrix: number[][];
  batch_alpha: number | null;
  per_critic: { critic: string; rate: number | null }[];
  contested: number;
};

type Run = ComparedRun<JudgePublicConfig, JudgeBasis>;

/**
 * The basis from the result: each item's row of the items × critics label matrix the aggregate measured
 * alpha on (a critic's valid verdict, else none), in the config's critic order.
 */
function judgeBasis({ config, result }: BasisInput<JudgeResult>): JudgeBasis {
  const critics = (config as { critics: { name: string }[] }).critics.map((c) => c.name);
  const labels: string[] = [];
  const code = new Map<string, number>();
  const codeOf = (label: string) => {
    let c = code.get(label);
    if (c === undefined) code.set(label, (c = labels.push(label) - 1));
    return c;
  };
  const matrix = result.items.map((it) => {
    const byCritic = new Map(
      it.verdicts.filter((v) => v.error === null || v.error === undefined).map((v) => [v.critic, v.kind]),
    );
    return critics.map((c) => {
      const label = byCritic.get(c);
      return label === undefined || label === null ? -1 : codeOf(label);
    });
  });
  return {
    ids: result.items.map((it) => it.id),
    expected: result.items.map((it) => it.expected),
    consensus: result.items.map((it) => it.consensus),
    agreement_pct: result.items.map((it) => it.agreement_pct),
    valid: result.items.map((it) => it.counts.valid),
    labels,
    matrix,
    batch_alpha: result.batch.alpha.alpha,
    per_critic: result.batch.per_critic.map((c) => ({ critic: c.critic, rate: c.rate })),
    contested: result.contested.count,
  };
}

/** A short list of ids for a message. */
const some = (ids: string[]) =>
  ids
    .slice(0, 5)
    .map((id) => `'${id}'`)
    .join(", ") + (ids.length > 5 ? ", …" : "");

function itemErrors(base: Run, head: Run): string | null {
  const [b, h] = [base.basis, head.basis];
  const headAt = new Map(h.ids.map((id, i) => [id, i]));
  const baseIds = new Set(b.ids);
  const onlyBase = [...baseIds].filter((id) => !headAt.has(id));
  const onlyHead = [...headAt.keys()].filter((id) => !baseIds.has(id));
  if (onlyBase.length || onlyHead.length) {
    const parts = [`base has ${baseIds.size} items, head ${headAt.size}`];
    if (onlyBase.length) parts.push(`only in base: ${some(onlyBase)}`);
    if (onlyHead.length) parts.push(`only in head: ${some(onlyHead)}`);
    return parts.join("; ");
  }
  const moved = b.ids.map((id, i) => [i, headAt.get(id)!] as const).filter(([i, j]) => b.expected[i] !== h.expected[j]);
  if (moved.length) {
    const [i, j] = moved[0];
    return `items expect different labels (${moved.length}; '${b.ids[i]}' expects ${b.expected[i] ?? "nothing"} in base, ${h.expected[j] ?? "nothing"} in head)`;
  }
  return null;
}

/** The pairs of item positions (base, head), in base's item order. */
type Pairs = readonly (readonly [number, number])[];

function accuracyMetric(b: JudgeBasis, h: JudgeBasis, pairs: Pairs, confidence: number, minEffect: number) {
  // Items with a known label and a valid verdict in both runs: the result's accuracy counts the same items per run.
  const known = pairs.filter(([i, j]) => b.expected[i] !== null && b.valid[i] > 0 && h.valid[j] > 0);
  if (!known.length) return { metric: null, table: null };
  const t = { both: 0, baseOnly: 0, headOnly: 0, neither: 0 };
  for (const [i, j] of known) {
    const [rb, rh] = [b.consensus[i] === b.expected[i], h.consensus[j] === h.expected[j]];
    if (rb && rh) t.both++;
    else if (rb) t.baseOnly++;
    else if (rh) t.headOnly++;
    else t.neither++;
  }
  const n = known.length;
  return {
    metric: metric(
      "accuracy",
      (t.both + t.baseOnly) / n,
      (t.both + t.headOnly) / n,
      newcombePairedDifference(t, confidence),
      {
        higherIsBetter: true,
        method: "newcombe-paired",
        minEffect,
        pValue: mcnemarExact(t.baseOnly, t.headOnly),
        confidence: confidence,
      },
    ),
    table: {
      items: n,
      both_correct: t.both,
      base_only_correct: t.baseOnly,
      head_only_correct: t.headOnly,
      neither_correct: t.neither,
    },
  };
}

function agreementMetric(
  b: JudgeBasis,
  h: JudgeBasis,
  pairs: Pairs,
  confidence: number,
  minEffect: number,
): MetricComparison {
  // An item without a valid verdict has agreement_pct 0 by the library's rule, which measures nothing.
  const judged = pairs.filter(([i, j]) => b.valid[i] > 0 && h.valid[j] > 0);
  const n = judged.length;
  const [pb, ph] = [
    Float64Array.from(judged, ([i]) => b.agreement_pct[i]),
    Float64Array.from(judged, ([, j]) => h.agreement_pct[j]),
  ];
  const mean = (xs: Float64Array) => xs.reduce((s, x) => s + x, 0) / n;
  const ci = pairedBootstrapCi(
    n,
    (idx) => {
      let d = 0;
      for (let i = 0; i < idx.length; i++) d += ph[idx[i]] - pb[idx[i]];
      return d / idx.length;
    },
    { confidence },
  );
  return metric("agreement", n ? mean(pb) : null, n ? mean(ph) : null, ci, {
    higherIsBetter: true,
    method: "paired-bootstrap",
    minEffect,
  });
}

/** A run's label rows in the order of `positions`, labels as the strings they stand for (null: no valid verdict). */
const rowsAt = (basis: JudgeBasis, positions: readonly number[]) =>
  positions.map((p) => basis.matrix[p].map((c) => (c < 0 ? null : basis.labels[c])));

function alphaMetric(
  b: JudgeBasis,
  h: JudgeBasis,
  pairs: Pairs,
  confidence: number,
  minEffect: number,
): MetricComparison {
  const alphaB = nominalAlphaResampler(
    rowsAt(
      b,
      pairs.map((p) => p[0]),
    ),
  );
  const alphaH = nominalAlphaResampler(
    rowsAt(
      h,
      pairs.map((p) => p[1]),
    ),
  );
  // A resample on which either alpha is undefined (one label only, say) is NaN, which the bootstrap leaves out.
  const ci = pairedBootstrapCi(
    pairs.length,
    (idx) => {
      const [ab, ah] = [alphaB(idx), alphaH(idx)];
      return ab === null || ah === null ? NaN : ah - ab;
    },
    { confidence },
  );
  return metric("batch_alpha", b.batch_alpha, h.batch_alpha, ci, {
    higherIsBetter: true,
    method: "paired-bootstrap",
    minEffect,
  });
}

export const judgeComparer: Comparer<JudgePublicConfig, JudgeResult, JudgeBasis, JudgeComparisonDetails> = {
  details: JudgeComparisonDetails,
  basis: judgeBasis,

  incomparable(base, head) {
    const errors: FieldError[] = [];
    const items = itemErrors(base, head);
    if (items) errors.push({ path: "config.items", message: items });
    const [lb, lh] = [base.config.labels, head.config.labels];
    if (lb.length !== lh.length || lb.some((l) => !lh.includes(l)))
      errors.push({ path: "config.labels", message: `base has ${lb.join(", ")}; head ${lh.join(", ")}` });
    return errors;
  },

  async compare(base, head, { confidence, minEffect }) {
    const [b, h] = [base.basis, head.basis];
    const headAt = new Map(h.ids.map((id, j) => [id, j]));
    const pairs = b.ids.map((id, i) => [i, headAt.get(id)!] as const);
    const flipped: FlippedItem[] = pairs
      .filter(([i, j]) => b.consensus[i] !== h.consensus[j])
      .map(([i, j]) => ({ id: b.ids[i], base: b.consensus[i], head: h.consensus[j] }));
    const accuracy = accuracyMetric(b, h, pairs, confidence, minEffect);
    const metrics = [
      ...(accuracy.metric ? [accuracy.metric] : []),
      agreementMetric(b, h, pairs, confidence, minEffect),
      alphaMetric(b, h, pairs, confidence, minEffect),
    ];
    // Each critic's agreement with its run's consensus, matched by name: where a changed critic shows.
    const rate = (r: JudgeBasis, name: string) => r.per_critic.find((c) => c.critic === name)?.rate ?? null;
    const names = [...new Set([...base.config.critics, ...head.config.critics].map((c) => c.name))];
    const details: JudgeComparisonDetails = {
      items: pairs.length,
      consensus_changes: flipped.length,
      accuracy: accuracy.table,
      per_critic: names.map((critic) => ({ critic, base: rate(b, critic), head: rate(h, critic) })),
      contested: { base: b.contested, head: h.contested },
    };
    return { paired: true, metrics, flipped, details };
  },
};
