import { describe, expect, it } from "vitest";
import {
  chainDivergenceRate,
  formatSummary,
  queryDivergenceDetails,
  type DivergenceRow,
} from "../../../src/engines/chain-determinism/index.ts";
import { describeReference, expectPythonError, itEachCase, lossless, type RefLine } from "../../support/reference.ts";
import { asJsNumbers, lineName } from "./parity.ts";

type SummaryLine = {
  desc?: string;
  runs: DivergenceRow[];
  min_success?: number;
  needs_lossless_parse?: boolean;
  expected?: Record<string, unknown>;
  expected_text?: string;
  expected_error?: string;
};

// `runs` are read losslessly (Python json.loads): some lines carry 1.0 vs 1 in tool args, which JSON.parse
// would merge. The expected stats are compared as JS numbers, because that is what the engine returns
// (see asJsNumbers): a JS number cannot carry Python's float type, only its value.
const runsOf = (r: RefLine<SummaryLine>) => (lossless(r.text) as { runs: DivergenceRow[] }).runs;

describeReference("summary_vectors.jsonl", "chain-determinism", ["summary_vectors.jsonl"], (ref) => {
  const lines = ref.records<SummaryLine>("summary_vectors.jsonl");
  const measured = lines.filter((r) => r.value.expected !== undefined);
  const raising = lines.filter((r) => r.value.expected_error !== undefined);

  it("has only lines with expected stats or an expected error", () => {
    for (const r of lines)
      expect(r.value.expected !== undefined || typeof r.value.expected_error === "string", lineName(r)).toBe(true);
  });

  itEachCase(
    measured,
    (r) => lineName(r, "stats"),
    "line with expected stats",
    (r) => {
      const stats = chainDivergenceRate(runsOf(r), r.value.min_success);
      const want = asJsNumbers((lossless(r.text) as { expected: unknown }).expected) as Record<string, unknown>;
      expect(stats).toEqual(want);
      // Key order as the reference emits it (the summary JSON spreads these keys), per query too.
      expect(Object.keys(stats)).toEqual(Object.keys(want));
      const perQuery = want.per_query as Array<Record<string, unknown>>;
      stats.per_query.forEach((q, k) => expect(Object.keys(q)).toEqual(Object.keys(perQuery[k])));
    },
  );

  itEachCase(
    measured.filter((r) => typeof r.value.expected_text === "string"),
    (r) => lineName(r, "summary text"),
    "line with an expected_text",
    (r) => {
      expect(formatSummary(chainDivergenceRate(runsOf(r), r.value.min_success), "test-model")).toBe(
        r.value.expected_text,
      );
    },
  );

  itEachCase(
    measured.filter((r) => r.value.needs_lossless_parse === false),
    (r) => lineName(r, "runs read with plain JSON.parse give the same stats"),
    "line whose runs JSON.parse keeps intact (needs_lossless_parse false)",
    (r) => {
      expect(chainDivergenceRate(r.value.runs, r.value.min_success)).toEqual(
        asJsNumbers((lossless(r.text) as { expected: unknown }).expected),
      );
    },
  );

  itEachCase(
    raising,
    (r) => lineName(r, `raises like ${r.value.expected_error}`),
    "line with an expected_error",
    (r) => {
      expectPythonError(() => chainDivergenceRate(runsOf(r), r.value.min_success), r.value.expected_error!);
    },
  );
});

const seq = (...names: string[]) => names.map((name) => ({ name, args: {} }));
const rows = (id: string, seqs: unknown[][]): DivergenceRow[] =>
  seqs.map((s) => ({ query_id: id, tool_call_sequence: s, error_category: null }));

describe("queryDivergenceDetails", () => {
  it("gives modal share 1 and no divergence turn for identical replays", () => {
    expect(queryDivergenceDetails(rows("q", Array(5).fill(seq("a", "b"))))).toEqual([
      { query_id: "q", modal_share: 1, first_divergence_turn: null },
    ]);
  });

  it("finds the first differing call, counting an early stop as a difference", () => {
    // 4 × [a,b,c] and 1 × [a,b]: indices 0 and 1 agree; at 2 one replay has ended → turn 2.
    // Modal sequence [a,b,c] holds 4 of 5 replays → 0.8.
    const r = rows("q", [...Array(4).fill(seq("a", "b", "c")), seq("a", "b")]);
    expect(queryDivergenceDetails(r)).toEqual([{ query_id: "q", modal_share: 0.8, first_divergence_turn: 2 }]);
  });

  it("compares args, not only names, and ignores error rows and insufficient queries", () => {
    // 3 × take(n=1) and 2 × take(n=1.0) differ at call 0; modal 3/5 = 0.6. The error row is not
    // counted; query z has 1 success < 5 so it is left out.
    const one = [{ name: "take", args: { n: 1 } }];
    const oneFloat = lossless('[{"name": "take", "args": {"n": 1.0}}]') as unknown[];
    const r = [
      ...rows("q", [one, one, one, oneFloat, oneFloat]),
      { query_id: "q", tool_call_sequence: [], error_category: "empty_choices" },
      ...rows("z", [one]),
    ];
    expect(queryDivergenceDetails(r)).toEqual([{ query_id: "q", modal_share: 0.6, first_divergence_turn: 0 }]);
  });

  it("rejects minSuccess < 2 like chainDivergenceRate", () => {
    expect(() => queryDivergenceDetails([], 1)).toThrow(RangeError);
  });
});

describe("chainDivergenceRate", () => {
  it("orders query ids by code point", () => {
    // "\uFF5E" (one unit) vs "\u{1F600}" (surrogates D83D..): by code point FF5E < 1F600.
    const r = [...rows("\u{1F600}", Array(5).fill([])), ...rows("\uFF5E", Array(5).fill([]))];
    expect(chainDivergenceRate(r).per_query.map((q) => q.query_id)).toEqual(["\uFF5E", "\u{1F600}"]);
  });

  it("rounds the summary percentages half-to-even like Python's .1f", () => {
    // 100 × 0.1225 = 12.25, 100 × 0.0625 = 6.25, 100 × 0.1275 = 12.75, all exact doubles, so all
    // three are exact ties: Python's format(x, ".1f") gives 12.2, 6.2 and 12.8 (half to even),
    // where JS toFixed(1) would give 12.3, 6.3 and 12.8 (half up).
    const stats = {
      n_total: 1,
      n_errors: 0,
      n_queries: 1,
      n_measurable: 1,
      n_diverged: 0,
      divergence_rate: 0.1225,
      wilson_ci_95: [0.0625, 0.1275] as [number, number],
      per_query: [],
    };
    expect(formatSummary(stats, "m").split("\n")[2]).toBe("  12.2%  [Wilson 95% CI 6.2%, 12.8%]");
  });
});
