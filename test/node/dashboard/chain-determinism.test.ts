// The data the chain-determinism run page draws: the rate with its Wilson interval, per-query rows and
// modal-share bars, error categories, and the sequence view (checked by hand and against the engine).
import { describe, expect, it } from "vitest";
import type { ChainDeterminismResult, ChainDeterminismSample } from "@assay/sdk";
import {
  callKey,
  canonicalJson,
  defaultQuery,
  differsFromModal,
  divergenceConfig,
  divergenceInterval,
  errorCategory,
  errorSummary,
  modalShareConfig,
  pct,
  queryRows,
  sequenceView,
} from "../../../dashboard/src/evaluators/chain-determinism/charts.ts";
import { chainDivergenceRate, queryDivergenceDetails } from "../../../src/engines/chain-determinism/index.ts";

type Call = { name: string; args?: unknown };

let seq = 0;
function sample(
  query_id: string,
  run_idx: number,
  calls: Call[],
  error_category: string | null = null,
): ChainDeterminismSample {
  seq++;
  return {
    evaluator: "chain-determinism",
    seq,
    unit_id: `q.${query_id}.r${run_idx}`,
    status: error_category ? "failed" : "succeeded",
    attempts: 1,
    calls: null,
    error: error_category,
    created_at: "2026-01-01T00:00:00.000Z",
    output: {
      row: {
        query_id,
        query_type: null,
        run_idx,
        tool_call_sequence: calls.map((c, i) => ({ ...c, tool_call_id: `call_${seq}_${i}` })),
        rationale: "",
        n_tool_calls: calls.length,
        error_category,
      },
      turns: [],
    },
  };
}

function result(over: Partial<ChainDeterminismResult>): ChainDeterminismResult {
  return {
    model: "sim:agent",
    n_replays: 10,
    temperature: 0,
    n_total: 0,
    n_errors: 0,
    n_queries: 0,
    n_measurable: 0,
    n_diverged: 0,
    divergence_rate: null,
    wilson_ci_95: [null, null],
    per_query: [],
    summary_text: "",
    endpoint: {
      requests: 0,
      usage: { prompt_tokens: 0, completion_tokens: 0, total_tokens: 0 },
      system_fingerprints: {},
      models: {},
      providers: {},
    },
    ...over,
  };
}

const a = { name: "list_items", args: {} };
const b = { name: "stock_level", args: { sku: "open" } };
const c = { name: "pick_field", args: { in: "v6", field: "category" } };
const fin = { name: "final_answer", args: { answer: "x" } };

describe("pct", () => {
  it.each([
    [0.15003570882017148, "15.0%"],
    [0.5, "50.0%"],
    [1, "100.0%"],
    [0, "0.0%"],
    [null, "–"],
  ])("writes %s as %s", (x, text) => expect(pct(x)).toBe(text));
});

describe("the divergence rate plot", () => {
  const r = result({ divergence_rate: 0.5, wilson_ci_95: [0.15, 0.85], n_measurable: 4, n_diverged: 2 });

  it("is the rate as a dot on its Wilson interval, on a 0–1 axis", () => {
    expect(divergenceInterval(r)).toEqual({ estimate: 0.5, lo: 0.15, hi: 0.85 });
    const config = divergenceConfig(r)!;
    expect(config.type).toBe("scatter");
    expect(config.data.datasets[0].data).toEqual([
      { x: 0.15, y: 0 },
      { x: 0.85, y: 0 },
    ]);
    expect(config.data.datasets[1].data).toEqual([{ x: 0.5, y: 0 }]);
    expect(config.options?.scales?.x).toMatchObject({ min: 0, max: 1 });
  });

  it("is absent when no query was measurable", () => {
    expect(divergenceInterval(result({}))).toBeNull();
    expect(divergenceConfig(result({}))).toBeNull();
  });
});

describe("per-query rows and modal-share bars", () => {
  const r = result({
    per_query: [
      {
        query_id: "q1",
        n_total: 10,
        n_success: 10,
        diverged: false,
        status: "measurable",
        n_unique_sequences: 1,
        modal_share: 1,
        first_divergence_turn: null,
      },
      { query_id: "q2", n_total: 10, n_success: 3, diverged: null, status: "insufficient" },
      {
        query_id: "q3",
        n_total: 10,
        n_success: 8,
        diverged: true,
        status: "measurable",
        n_unique_sequences: 3,
        modal_share: 0.625,
        first_divergence_turn: 2,
      },
    ],
  });

  it("gives each query its successes, errors (total − successes) and our descriptors, null where not measurable", () => {
    expect(queryRows(r)).toEqual([
      {
        query_id: "q1",
        status: "measurable",
        diverged: false,
        n_success: 10,
        n_total: 10,
        n_errors: 0,
        n_unique_sequences: 1,
        modal_share: 1,
        first_divergence_turn: null,
      },
      {
        query_id: "q2",
        status: "insufficient",
        diverged: null,
        n_success: 3,
        n_total: 10,
        n_errors: 7,
        n_unique_sequences: null,
        modal_share: null,
        first_divergence_turn: null,
      },
      {
        query_id: "q3",
        status: "measurable",
        diverged: true,
        n_success: 8,
        n_total: 10,
        n_errors: 2,
        n_unique_sequences: 3,
        modal_share: 0.625,
        first_divergence_turn: 2,
      },
    ]);
  });

  it("draws one bar per measurable query, red when it diverged", () => {
    const config = modalShareConfig(r);
    expect(config.data.labels).toEqual(["q1", "q3"]);
    expect(config.data.datasets[0].data).toEqual([1, 0.625]);
    expect(config.data.datasets[0].backgroundColor).toEqual(["#1f7a3d", "#b3261e"]);
    expect(config.options?.indexAxis).toBe("y");
  });

  it("opens the sequence view on the first diverged query, else the first measurable, else the first", () => {
    expect(defaultQuery(r)).toBe("q3");
    expect(defaultQuery(result({ per_query: [r.per_query[1], r.per_query[0]] }))).toBe("q1");
    expect(defaultQuery(result({ per_query: [r.per_query[1]] }))).toBe("q2");
    expect(defaultQuery(result({}))).toBeNull();
  });
});

describe("errors apart from divergence", () => {
  it.each([
    ["api_error: RateLimitError: Error code: 429 - {'error': …}", "api_error: RateLimitError"],
    ["replay_exception: KeyError: 'nope'", "replay_exception: KeyError"],
    ["empty_choices", "empty_choices"],
  ])("puts %s under %s", (text, category) => expect(errorCategory(text)).toBe(category));

  it("counts error replays by category, a unit with no output by its own error, and lists the insufficient queries", () => {
    const gaveUp: ChainDeterminismSample = {
      ...sample("q1", 4, []),
      status: "failed",
      output: null,
      error: "unit failed: lane lost",
    };
    const samples = [
      sample("q1", 0, [a, fin]),
      sample("q1", 1, [], "empty_choices"),
      sample("q1", 2, [a], "api_error: RateLimitError: Error code: 429"),
      sample("q1", 3, [], "empty_choices"),
      gaveUp,
    ];
    const r = result({
      n_errors: 4,
      per_query: [{ query_id: "q1", n_total: 5, n_success: 1, diverged: null, status: "insufficient" }],
    });
    expect(errorSummary(r, samples)).toEqual({
      n_errors: 4,
      insufficient: ["q1"],
      // 2 empty_choices first; then the ties of 1 by name ("api…" < "unit…").
      categories: [
        { category: "empty_choices", count: 2, example: "empty_choices" },
        { category: "api_error: RateLimitError", count: 1, example: "api_error: RateLimitError: Error code: 429" },
        { category: "unit failed: lane lost", count: 1, example: "unit failed: lane lost" },
      ],
    });
  });
});

describe("sequence identity", () => {
  it("orders object keys by code point at every depth (U+FFFF before U+1F600, unlike UTF-16 order)", () => {
    expect(canonicalJson({ b: 1, a: { d: [1, { z: 0, y: null }], c: "x" } })).toBe(
      '{"a":{"c":"x","d":[1,{"y":null,"z":0}]},"b":1}',
    );
    expect(canonicalJson({ "\u{1F600}": 2, "\uFFFF": 1 })).toBe('{"\uFFFF":1,"\u{1F600}":2}');
  });

  it("compares name and arguments, not the call id nor key order; no args differs from {}", () => {
    expect(callKey({ name: "f", args: { x: 1, y: 2 }, tool_call_id: "a" } as Call)).toBe(
      callKey({ name: "f", args: { y: 2, x: 1 }, tool_call_id: "b" } as Call),
    );
    expect(callKey({ name: "f" })).not.toBe(callKey({ name: "f", args: {} }));
    expect(callKey({ name: "f", args: { x: 1 } })).not.toBe(callKey({ name: "g", args: { x: 1 } }));
    expect(callKey({ name: "f", args: { x: 1 } })).not.toBe(callKey({ name: "f", args: { x: "1" } }));
  });
});

describe("the sequence view", () => {
  // Replays of q: 0 [a b fin], 1 [a b fin], 2 [a c fin], 3 [a b fin], 4 [a b] (ends early), 5 error; q' is another query.
  const samples = [
    sample("q", 0, [a, b, fin]),
    sample("q", 1, [a, b, fin]),
    sample("q", 2, [a, c, fin]),
    sample("q", 3, [a, b, fin]),
    sample("q", 4, [a, b]),
    sample("q", 5, [a], "empty_choices"),
    sample("q'", 0, [c]),
  ];

  it("groups successful replays by sequence, most common first, and finds the turn where they part", () => {
    const view = sequenceView(samples, "q");
    // A = [a b fin] × 3 (replays 0, 1, 3); B = [a c fin] (2) and C = [a b] (4) tie at 1: the earlier replay first.
    expect(view.groups.map((g) => [g.count, g.replays, g.calls.map((x) => x.name)])).toEqual([
      [3, [0, 1, 3], ["list_items", "stock_level", "final_answer"]],
      [1, [2], ["list_items", "pick_field", "final_answer"]],
      [1, [4], ["list_items", "stock_level"]],
    ]);
    expect(view.groups[0].calls[1]).toEqual({ name: "stock_level", args: '{"sku":"open"}' });
    expect(view).toMatchObject({ query_id: "q", n_success: 5, n_errors: 1, turns: 3 });
    // Turn 0: all list_items; turn 1: stock_level vs pick_field → the fork is 1.
    expect(view.fork).toBe(1);
  });

  it("marks each call that departs from the most common sequence, an early end included", () => {
    const view = sequenceView(samples, "q");
    expect([0, 1, 2].map((i) => differsFromModal(view, 0, i))).toEqual([false, false, false]);
    expect([0, 1, 2].map((i) => differsFromModal(view, 1, i))).toEqual([false, true, false]);
    expect([0, 1, 2].map((i) => differsFromModal(view, 2, i))).toEqual([false, false, true]);
  });

  it("has one group and no fork when every replay made the same calls; a sequence that only ends early forks where it ends", () => {
    expect(sequenceView(samples, "q'")).toMatchObject({ fork: null, turns: 1, n_success: 1 });
    const prefix = [sample("p", 0, [a, b, fin]), sample("p", 1, [a, b])];
    expect(sequenceView(prefix, "p").fork).toBe(2);
  });

  it("agrees with the engine's n_unique_sequences, modal_share and first_divergence_turn", () => {
    // Three queries with varied departures (a swapped call, changed args, an early end, key order).
    const calls: Call[][] = [
      [a, b, fin],
      [a, b, fin],
      [a, { name: "stock_level", args: { sku: "closed" } }, fin],
      [a, b, fin],
      [a, b, fin],
      [c, fin],
      [c, fin],
      [c, fin],
      [c, fin],
      [c, fin],
      [a, b, c, fin],
      [a, b, fin],
      [a, b],
      [{ name: "list_items" }, b],
      [a, { name: "stock_level", args: { sku: "open" } }, fin],
    ];
    const rows = calls.map((cs, i) => sample(`x${Math.floor(i / 5)}`, i % 5, cs));
    const engineRows = rows.map((s) => s.output!.row);
    const stats = chainDivergenceRate(engineRows, 5);
    const details = queryDivergenceDetails(engineRows, 5);
    for (const q of stats.per_query) {
      if (q.status !== "measurable") throw new Error("all measurable");
      const view = sequenceView(rows, q.query_id);
      const d = details.find((x) => x.query_id === q.query_id)!;
      expect(view.groups.length).toBe(q.n_unique_sequences);
      expect(view.groups[0].count / view.n_success).toBe(d.modal_share);
      expect(view.fork).toBe(d.first_divergence_turn);
    }
    expect(stats.per_query.map((q) => (q.status === "measurable" ? q.n_unique_sequences : 0))).toEqual([2, 1, 4]);
  });
});
