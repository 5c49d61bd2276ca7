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
 * Metrics read the stored result (each item's verdicts rebuild the matrix the aggregate measured);
 * the samples are not needed.
 */
import {
  mcnemarExact,
  newcombePairedDifference,
  nominalAlpha,
  pairedBootstrapCi,
} from "../../../src/engines/stats/index.ts";
import type { FieldError } from "../../../src/errors.ts";
import { metric, type ComparedRun, type Comparer, type FlippedItem, type MetricComparison } from "./compare.ts";
import type { JudgePublicConfig, JudgeItemResult, JudgeResult } from "../../../src/evaluators/judge/schemas.ts";

type Run = ComparedRun<JudgePublicConfig, JudgeResult>;

/** A short list of ids for a message. */
const some = (ids: string[]) =>
  ids
    .slice(0, 5)
    .map((id) => `'${id}'`)
    .join(", ") + (ids.length > 5 ? ", …" : "");

function itemErrors(base: Run, head: Run): string | null {
  const headBy = new Map(head.result.items.map((it) => [it.id, it]));
  const baseIds = new Set(base.result.items.map((it) => it.id));
  const onlyBase = [...baseIds].filter((id) => !headBy.has(id));
  const onlyHead = [...headBy.keys()].filter((id) => !baseIds.has(id));
  if (onlyBase.length || onlyHead.length) {
    const parts = [`base has ${baseIds.size} items, head ${headBy.size}`];
    if (onlyBase.length) parts.push(`only in base: ${some(onlyBase)}`);
    if (onlyHead.length) parts.push(`only in head: ${some(onlyHead)}`);
    return parts.join("; ");
  }
  const moved = base.result.items.filter((it) => it.expected !== headBy.get(it.id)!.expected);
  if (moved.length) {
    const it = moved[0];
    return `items expect different labels (${moved.length}; '${it.id}' expects ${it.expected ?? "nothing"} in base, ${headBy.get(it.id)!.expected ?? "nothing"} in head)`;
  }
  return null;
}

/** The items × critics label matrix the aggregate measured alpha on: a critic's valid verdict, else null. */
function labelMatrix(run: Run, items: readonly JudgeItemResult[]): (string | null)[][] {
  const critics = run.config.critics.map((c) => c.name);
  return items.map((it) => {
    const byCritic = new Map(
      it.verdicts.filter((v) => v.error === null || v.error === undefined).map((v) => [v.critic, v.kind]),
    );
    return critics.map((c) => byCritic.get(c) ?? null);
  });
}

const pick = <T>(rows: readonly T[], idx: ArrayLike<number>): T[] =>
  Array.from({ length: idx.length }, (_, i) => rows[idx[i]]);

function accuracyMetric(
  pairs: readonly (readonly [JudgeItemResult, JudgeItemResult])[],
  confidence: number,
  minEffect: number,
) {
  // Items with a known label and a valid verdict in both runs: the result's accuracy counts the same items per run.
  const known = pairs.filter(([b, h]) => b.expected !== null && b.counts.valid > 0 && h.counts.valid > 0);
  if (!known.length) return { metric: null, table: null };
  const t = { both: 0, baseOnly: 0, headOnly: 0, neither: 0 };
  for (const [b, h] of known) {
    const [rb, rh] = [b.consensus === b.expected, h.consensus === h.expected];
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
  pairs: readonly (readonly [JudgeItemResult, JudgeItemResult])[],
  confidence: number,
  minEffect: number,
): MetricComparison {
  // An item without a valid verdict has agreement_pct 0 by the library's rule, which measures nothing.
  const judged = pairs.filter(([b, h]) => b.counts.valid > 0 && h.counts.valid > 0);
  const n = judged.length;
  const mean = (side: 0 | 1) => judged.reduce((s, p) => s + p[side].agreement_pct, 0) / n;
  const ci = pairedBootstrapCi(
    n,
    (idx) => {
      let d = 0;
      for (let i = 0; i < idx.length; i++) d += judged[idx[i]][1].agreement_pct - judged[idx[i]][0].agreement_pct;
      return d / idx.length;
    },
    { confidence },
  );
  return metric("agreement", n ? mean(0) : null, n ? mean(1) : null, ci, {
    higherIsBetter: true,
    method: "paired-bootstrap",
    minEffect,
  });
}

function alphaMetric(
  base: Run,
  head: Run,
  pairs: readonly (readonly [JudgeItemResult, JudgeItemResult])[],
  confidence: number,
  minEffect: number,
): MetricComparison {
  const mb = labelMatrix(
    base,
    pairs.map((p) => p[0]),
  );
  const mh = labelMatrix(
    head,
    pairs.map((p) => p[1]),
  );
  // A resample on which either alpha is undefined (one label only, say) is NaN, which the bootstrap leaves out.
  const ci = pairedBootstrapCi(
    pairs.length,
    (idx) => {
      const [ab, ah] = [nominalAlpha(pick(mb, idx)).alpha, nominalAlpha(pick(mh, idx)).alpha];
      return ab === null || ah === null ? NaN : ah - ab;
    },
    { confidence },
  );
  return metric("batch_alpha", base.result.batch.alpha.alpha, head.result.batch.alpha.alpha, ci, {
    higherIsBetter: true,
    method: "paired-bootstrap",
    minEffect,
  });
}

export const judgeComparer: Comparer<JudgePublicConfig, JudgeResult> = {
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
    const headBy = new Map(head.result.items.map((it) => [it.id, it]));
    const pairs = base.result.items.map((b) => [b, headBy.get(b.id)!] as const);
    const flipped: FlippedItem[] = pairs
      .filter(([b, h]) => b.consensus !== h.consensus)
      .map(([b, h]) => ({ id: b.id, base: b.consensus, head: h.consensus }));
    const accuracy = accuracyMetric(pairs, confidence, minEffect);
    const metrics = [
      ...(accuracy.metric ? [accuracy.metric] : []),
      agreementMetric(pairs, confidence, minEffect),
      alphaMetric(base, head, pairs, confidence, minEffect),
    ];
    // Each critic's agreement with its run's consensus, matched by name: where a changed critic shows.
    const rate = (r: Run, name: string) => r.result.batch.per_critic.find((c) => c.critic === name)?.rate ?? null;
    const names = [...new Set([...base.config.critics, ...head.config.critics].map((c) => c.name))];
    const details = {
      items: pairs.length,
      consensus_changes: flipped.length,
      accuracy: accuracy.table,
      per_critic: names.map((critic) => ({ critic, base: rate(base, critic), head: rate(head, critic) })),
      contested: { base: base.result.contested.count, head: head.result.contested.count },
    };
    return { paired: true, metrics, flipped, details };
  },
};
