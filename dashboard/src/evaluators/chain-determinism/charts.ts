// What the chain-determinism run page draws, as pure functions of the run's result and samples: the
// divergence rate with its Wilson interval, per-query rows and modal shares, the distinct tool-call
// sequences of a query with the turn where they fork, and the errors kept apart from divergence.
// No DOM and no Chart.js runtime here (only its types), so Node tests can check every number.
import type { ChartConfiguration, TooltipItem } from "chart.js";
import type { ChainDeterminismQueryResult, ChainDeterminismResult, ChainDeterminismSample } from "@assay/sdk";
import { COLORS, pct, pointIntervalConfig, type Interval } from "../../charts/plot.ts";

export { pct };

/** The headline: the divergence rate and its Wilson 95 % interval, or null when nothing was measurable. */
export function divergenceInterval(result: ChainDeterminismResult): Interval | null {
  const [lo, hi] = result.wilson_ci_95;
  if (result.divergence_rate === null || lo === null || hi === null) return null;
  return { estimate: result.divergence_rate, lo, hi };
}

export function divergenceConfig(result: ChainDeterminismResult): ChartConfiguration<"scatter"> | null {
  const v = divergenceInterval(result);
  return v && pointIntervalConfig(v, { name: "divergence rate", intervalName: "Wilson 95% CI" });
}

/** One table row per query, in the result's order (query ids in code-point order). */
export type QueryRow = {
  query_id: string;
  status: ChainDeterminismQueryResult["status"];
  diverged: boolean | null;
  n_success: number;
  n_total: number;
  n_errors: number;
  n_unique_sequences: number | null;
  modal_share: number | null;
  first_divergence_turn: number | null;
};

export function queryRows(result: ChainDeterminismResult): QueryRow[] {
  return result.per_query.map((q) => ({
    query_id: q.query_id,
    status: q.status,
    diverged: q.diverged,
    n_success: q.n_success,
    n_total: q.n_total,
    n_errors: q.n_total - q.n_success,
    n_unique_sequences: q.n_unique_sequences ?? null,
    modal_share: q.modal_share ?? null,
    first_divergence_turn: q.first_divergence_turn ?? null,
  }));
}

/**
 * Modal share per measurable query as horizontal bars (one row per query, so many queries stay
 * readable on a phone); diverged queries in red, the others in green. The tooltip adds the number of
 * unique sequences. Insufficient queries have no modal share and are left out.
 */
export function modalShareConfig(result: ChainDeterminismResult): ChartConfiguration<"bar"> {
  const rows = queryRows(result).filter((r) => r.status === "measurable");
  return {
    type: "bar",
    data: {
      labels: rows.map((r) => r.query_id),
      datasets: [
        {
          label: "modal share",
          data: rows.map((r) => r.modal_share ?? 0),
          backgroundColor: rows.map((r) => (r.diverged ? COLORS.bad : COLORS.ok)),
          barPercentage: 0.8,
          maxBarThickness: 28,
        },
      ],
    },
    options: {
      indexAxis: "y",
      plugins: {
        legend: { display: false },
        tooltip: {
          callbacks: {
            label: (item: TooltipItem<"bar">) => {
              const r = rows[item.dataIndex];
              return `modal share ${pct(r.modal_share)}, ${r.n_unique_sequences} unique sequence${r.n_unique_sequences === 1 ? "" : "s"} over ${r.n_success} replays`;
            },
          },
        },
      },
      scales: {
        x: {
          min: 0,
          max: 1,
          ticks: { callback: (value) => pct(Number(value)), maxTicksLimit: 6 },
          title: { display: true, text: "share of successful replays with the most common sequence" },
        },
        y: { ticks: { autoSkip: false } },
      },
    },
  };
}

/** Pixels for a horizontal bar chart of `n` rows: enough for each label, never a squashed plot. */
export function barHeight(n: number): number {
  return Math.max(140, 60 + 28 * n);
}

// ---------------------------------------------------------------------------------------------------
// Errors apart from divergence

/**
 * An error's category: its first two `: `-separated parts (`api_error: RateLimitError`,
 * `replay_exception: KeyError`), or the whole text when it has no second part (`empty_choices`).
 * The rest of the message (a server's words, a key name) varies per replay and would split the count.
 */
export function errorCategory(text: string): string {
  const parts = text.split(": ");
  return parts.length >= 2 ? `${parts[0]}: ${parts[1]}` : text;
}

/** A sample's error as the harness counts it: the row's error_category, else the unit's own error. */
function sampleError(s: ChainDeterminismSample): string | null {
  return s.output?.row.error_category || (s.status === "failed" ? s.error || "unknown error" : null);
}

export type ErrorSummary = {
  /** Error replays (never divergence: they only lower a query's successes). */
  n_errors: number;
  /** Queries with fewer successful replays than min_success. */
  insufficient: string[];
  /** Category → replays, most frequent first (ties by name). */
  categories: Array<{ category: string; count: number; example: string }>;
};

export function errorSummary(result: ChainDeterminismResult, samples: readonly ChainDeterminismSample[]): ErrorSummary {
  const byCategory = new Map<string, { count: number; example: string }>();
  for (const s of samples) {
    const e = sampleError(s);
    if (!e) continue;
    const c = errorCategory(e);
    const cur = byCategory.get(c);
    if (cur) cur.count++;
    else byCategory.set(c, { count: 1, example: e });
  }
  return {
    n_errors: result.n_errors,
    insufficient: result.per_query.filter((q) => q.status === "insufficient").map((q) => q.query_id),
    categories: [...byCategory]
      .map(([category, v]) => ({ category, ...v }))
      .sort((a, b) => b.count - a.count || (a.category < b.category ? -1 : a.category > b.category ? 1 : 0)),
  };
}

// ---------------------------------------------------------------------------------------------------
// The sequence view

/** One tool call as shown: its name and its arguments as compact JSON with sorted keys. */
export type CallView = { name: string; args: string };

export type SequenceGroup = {
  /** Identity of the sequence (equal keys ⇔ same calls in the same order). */
  key: string;
  calls: CallView[];
  /** Successful replays that made exactly this sequence, and their replay indexes (ascending). */
  count: number;
  replays: number[];
};

export type SequenceView = {
  query_id: string;
  /** Distinct sequences, the most common first (ties: the one whose first replay came first). */
  groups: SequenceGroup[];
  n_success: number;
  n_errors: number;
  /**
   * The first 0-based call index at which the sequences do not all agree (a sequence that has ended
   * differs from one that goes on); null when there is one sequence (or none).
   */
  fork: number | null;
  /** Rows to draw: the longest sequence's length. */
  turns: number;
};

function compareCodePoints(a: string, b: string): number {
  const x = Array.from(a);
  const y = Array.from(b);
  for (let i = 0; i < Math.min(x.length, y.length); i++) {
    const d = x[i].codePointAt(0)! - y[i].codePointAt(0)!;
    if (d !== 0) return d;
  }
  return x.length - y.length;
}

/** JSON with object keys in code-point order at every depth, as the harness's canonical key orders them. */
export function canonicalJson(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map(canonicalJson).join(",")}]`;
  if (value !== null && typeof value === "object") {
    const keys = Object.keys(value).sort(compareCodePoints);
    return `{${keys.map((k) => `${JSON.stringify(k)}:${canonicalJson((value as Record<string, unknown>)[k])}`).join(",")}}`;
  }
  return JSON.stringify(value) ?? "null";
}

type RawCall = { name?: unknown; args?: unknown };

/**
 * A call's identity as the harness keys it: the name and the arguments (key order ignored), where a
 * call without `args` differs from one with `{}`; `tool_call_id` does not count.
 */
export function callKey(call: RawCall): string {
  return JSON.stringify([call.name ?? null, Object.hasOwn(call, "args") ? canonicalJson(call.args) : "\u0000absent"]);
}

function callView(call: RawCall): CallView {
  return {
    name: typeof call.name === "string" ? call.name : String(call.name ?? "?"),
    args: Object.hasOwn(call, "args") ? canonicalJson(call.args) : "",
  };
}

/**
 * The distinct tool-call sequences of one query from its samples: successful replays (no error
 * category, no unit error) grouped by their sequence, as the harness compares them. A JSON reader
 * cannot tell `1.0` from `1`, so two sequences the server keeps apart for that alone show as one here.
 */
export function sequenceView(samples: readonly ChainDeterminismSample[], queryId: string): SequenceView {
  const groups = new Map<string, SequenceGroup & { first: number }>();
  let nErrors = 0;
  let nSuccess = 0;
  for (const s of samples) {
    const row = s.output?.row;
    if (!row || row.query_id !== queryId) continue;
    if (sampleError(s)) {
      nErrors++;
      continue;
    }
    nSuccess++;
    const calls = (row.tool_call_sequence ?? []) as RawCall[];
    const key = JSON.stringify(calls.map(callKey));
    let g = groups.get(key);
    if (!g) groups.set(key, (g = { key, calls: calls.map(callView), count: 0, replays: [], first: row.run_idx }));
    g.count++;
    g.replays.push(row.run_idx);
    g.first = Math.min(g.first, row.run_idx);
  }
  const sorted = [...groups.values()]
    .sort((a, b) => b.count - a.count || a.first - b.first)
    .map(({ first: _, ...g }) => ({ ...g, replays: [...g.replays].sort((x, y) => x - y) }));
  const keysByGroup = sorted.map((g) => JSON.parse(g.key) as string[]);
  const turns = Math.max(0, ...sorted.map((g) => g.calls.length));
  let fork: number | null = null;
  if (sorted.length > 1) {
    for (let i = 0; i <= turns && fork === null; i++) {
      if (new Set(keysByGroup.map((k) => (i < k.length ? k[i] : "\u0000end"))).size > 1) fork = i;
    }
  }
  return { query_id: queryId, groups: sorted, n_success: nSuccess, n_errors: nErrors, fork, turns };
}

/**
 * Whether group `g`'s call at turn `i` differs from the most common sequence's (group 0) call there,
 * or one of them has ended where the other goes on. Group 0 itself never differs.
 */
export function differsFromModal(view: SequenceView, g: number, i: number): boolean {
  if (g === 0) return false;
  const a = (JSON.parse(view.groups[0].key) as string[])[i];
  const b = (JSON.parse(view.groups[g].key) as string[])[i];
  return a !== b;
}

/** The query the sequence view opens on: the first diverged query, else the first measurable, else the first. */
export function defaultQuery(result: ChainDeterminismResult): string | null {
  const q = result.per_query;
  return (q.find((x) => x.diverged === true) ?? q.find((x) => x.status === "measurable") ?? q[0])?.query_id ?? null;
}
