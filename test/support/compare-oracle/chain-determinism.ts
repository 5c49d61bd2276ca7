/**
 * Comparing two chain-determinism runs (issue 18): did the change make tool-call sequences diverge more?
 *
 * Comparable runs replayed each query the same number of times (`n_replays`) and needed the same number
 * of successful replays to measure one (`min_success`): a query replayed 20 times has more chances to
 * show a second sequence than one replayed 5 times, so divergence rates at different `n_replays` do not
 * measure the same thing. The model, its endpoint, the temperature, `max_turns` and even the suite may
 * differ: they are what one compares.
 *
 * When both runs replayed the same queries (the same suite content, by its sha256, and the same query
 * ids), queries are paired: the divergence rate over queries measurable in both runs, with Newcombe's
 * paired interval and McNemar's exact test on the queries that went from stable to diverged or back;
 * the error rate and the mean modal share with a paired bootstrap over queries. Otherwise the two rates
 * are independent proportions (Newcombe's interval), and the modal shares are only described.
 */
import {
  mcnemarExact,
  newcombeDifference,
  newcombePairedDifference,
  pairedBootstrapCi,
} from "../../../src/engines/stats/index.ts";
import type { FieldError } from "../../../src/errors.ts";
import { metric, type ComparedRun, type Comparer, type FlippedItem, type MetricComparison } from "./compare.ts";
import type {
  ChainDeterminismPublicConfig,
  ChainDeterminismResult,
} from "../../../src/evaluators/chain-determinism/schemas.ts";

type Run = ComparedRun<ChainDeterminismPublicConfig, ChainDeterminismResult>;
type QueryResult = ChainDeterminismResult["per_query"][number];

/** Settings two runs must share for their divergence rates to measure the same thing. */
const HELD_EQUAL = ["n_replays", "min_success"] as const;

const state = (q: QueryResult): string =>
  q.status === "measurable" ? (q.diverged ? "diverged" : "stable") : "insufficient";

/** Why the queries cannot be paired, or null when they can: the same suite content and the same query ids. */
function unpairedReason(base: Run, head: Run): string | null {
  if (base.config.suite.sha256 !== head.config.suite.sha256) {
    return `different suites (base '${base.config.suite.id}', head '${head.config.suite.id}')`;
  }
  const ids = (r: Run) =>
    r.result.per_query
      .map((q) => q.query_id)
      .sort()
      .join("\u0000");
  if (ids(base) !== ids(head))
    return `different queries of the suite (base ${base.result.n_queries}, head ${head.result.n_queries})`;
  return null;
}

const mean = (xs: readonly number[]) => xs.reduce((s, x) => s + x, 0) / xs.length;

function pairedMetrics(base: Run, head: Run, confidence: number, minEffect: number) {
  const headBy = new Map(head.result.per_query.map((q) => [q.query_id, q]));
  const pairs = base.result.per_query.map((b) => [b, headBy.get(b.query_id)!] as const);
  const measurable = pairs.filter(([b, h]) => b.status === "measurable" && h.status === "measurable");
  const flipped: FlippedItem[] = [];
  const t = { both: 0, baseOnly: 0, headOnly: 0, neither: 0 };
  for (const [b, h] of measurable) {
    if (b.diverged && h.diverged) t.both++;
    else if (b.diverged) t.baseOnly++;
    else if (h.diverged) t.headOnly++;
    else t.neither++;
    if (b.diverged !== h.diverged) flipped.push({ id: b.query_id, base: state(b), head: state(h) });
  }
  const m = measurable.length;
  const metrics: MetricComparison[] = [
    // The rates over the queries measurable in both runs: the ones the interval and the test are about.
    metric(
      "divergence_rate",
      m ? (t.both + t.baseOnly) / m : null,
      m ? (t.both + t.headOnly) / m : null,
      m ? newcombePairedDifference(t, confidence) : null,
      {
        higherIsBetter: false,
        method: "newcombe-paired",
        minEffect,
        pValue: m ? mcnemarExact(t.baseOnly, t.headOnly) : null,
        confidence: confidence,
      },
    ),
  ];
  // Error replays per query: a query's replays share its prompt, so the query (not the replay) is resampled.
  const errors = (q: QueryResult) => q.n_total - q.n_success;
  const errorRate = (idx: ArrayLike<number>, side: 0 | 1) => {
    let e = 0;
    let n = 0;
    for (let i = 0; i < idx.length; i++) {
      const q = pairs[idx[i]][side];
      e += errors(q);
      n += q.n_total;
    }
    return n ? e / n : NaN;
  };
  const all = pairs.map((_, i) => i);
  const errorCi = pairedBootstrapCi(pairs.length, (idx) => errorRate(idx, 1) - errorRate(idx, 0), { confidence });
  metrics.push(
    metric("error_rate", pairs.length ? errorRate(all, 0) : null, pairs.length ? errorRate(all, 1) : null, errorCi, {
      higherIsBetter: false,
      method: "paired-bootstrap",
      minEffect,
    }),
  );
  // (A result stored before modal shares were reported has none: such queries are left out.)
  const shares = measurable
    .filter(([b, h]) => b.modal_share !== undefined && h.modal_share !== undefined)
    .map(([b, h]) => ({ query_id: b.query_id, base: b.modal_share!, head: h.modal_share! }));
  const shareCi = pairedBootstrapCi(
    shares.length,
    (idx) => {
      let d = 0;
      for (let i = 0; i < idx.length; i++) d += shares[idx[i]].head - shares[idx[i]].base;
      return d / idx.length;
    },
    { confidence },
  );
  metrics.push(
    metric(
      "modal_share_mean",
      shares.length ? mean(shares.map((s) => s.base)) : null,
      shares.length ? mean(shares.map((s) => s.head)) : null,
      shareCi,
      { higherIsBetter: true, method: "paired-bootstrap", minEffect },
    ),
  );
  const details = {
    pairing: {
      paired: true,
      queries: pairs.length,
      measurable_in_both: m,
      discordant: { stable_to_diverged: t.headOnly, diverged_to_stable: t.baseOnly },
    },
    modal_share: shares.map((s) => ({ ...s, delta: s.head - s.base })),
    // Queries measurable in one run only: left out of the divergence rate above.
    measurable_changes: pairs
      .filter(([b, h]) => (b.status === "measurable") !== (h.status === "measurable"))
      .map(([b, h]) => ({ id: b.query_id, base: state(b), head: state(h) })),
  };
  return { metrics, flipped, details };
}

function unpairedMetrics(base: Run, head: Run, confidence: number, minEffect: number, reason: string) {
  const b = base.result;
  const h = head.result;
  const rateCi =
    b.n_measurable && h.n_measurable
      ? newcombeDifference(b.n_diverged, b.n_measurable, h.n_diverged, h.n_measurable, confidence)
      : null;
  const errorCi =
    b.n_total && h.n_total ? newcombeDifference(b.n_errors, b.n_total, h.n_errors, h.n_total, confidence) : null;
  const metrics = [
    metric("divergence_rate", b.divergence_rate, h.divergence_rate, rateCi, {
      higherIsBetter: false,
      method: "newcombe",
      minEffect,
    }),
    // Replays counted as independent trials: without pairing there is no better unit to resample.
    metric(
      "error_rate",
      b.n_total ? b.n_errors / b.n_total : null,
      h.n_total ? h.n_errors / h.n_total : null,
      errorCi,
      { higherIsBetter: false, method: "newcombe", minEffect },
    ),
  ];
  const sharesOf = (r: ChainDeterminismResult) =>
    r.per_query.flatMap((q) =>
      q.modal_share === undefined ? [] : [{ query_id: q.query_id, modal_share: q.modal_share }],
    );
  const [bs, hs] = [sharesOf(b), sharesOf(h)];
  const details = {
    pairing: { paired: false, reason },
    // Without pairing the modal shares have no interval here, so they are described, not judged.
    modal_share: {
      base_mean: bs.length ? mean(bs.map((s) => s.modal_share)) : null,
      head_mean: hs.length ? mean(hs.map((s) => s.modal_share)) : null,
      base: bs,
      head: hs,
    },
  };
  return { metrics, flipped: [], details };
}

export const chainDeterminismComparer: Comparer<ChainDeterminismPublicConfig, ChainDeterminismResult> = {
  incomparable(base, head) {
    const errors: FieldError[] = [];
    for (const key of HELD_EQUAL) {
      if (base.config[key] !== head.config[key])
        errors.push({ path: `config.${key}`, message: `base has ${base.config[key]}, head ${head.config[key]}` });
    }
    return errors;
  },

  async compare(base, head, { confidence, minEffect }) {
    const reason = unpairedReason(base, head);
    const { metrics, flipped, details } =
      reason === null
        ? pairedMetrics(base, head, confidence, minEffect)
        : unpairedMetrics(base, head, confidence, minEffect, reason);
    return { paired: reason === null, metrics, flipped, details };
  },
};
