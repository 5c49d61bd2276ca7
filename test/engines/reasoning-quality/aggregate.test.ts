// Composite Q parity (spec §8): every line of aggregation_vectors.jsonl, expected values read losslessly.
// weight_table lines: the table as loaded exact, its effective weights within 1e-12, strategy and key order exact.
// aggregate lines: Q of every strategy of every table the line lists and every custom entry within 1e-12 (README
// tolerances). The custom entries with an unknown key or a negative weight (found by content) are what §8 [D]
// rejects: each is asserted to throw a RangeError naming the key, and to match [C] in codeCompatible mode.
// round4 lines are checked in round.test.ts.
import { describe, expect, it } from "vitest";
import {
  DEFAULT_PRESET,
  METRIC_KEYS,
  PRESETS,
  WEIGHT_TABLES,
  aggregate,
  aggregateAll,
  aggregateDetailed,
  checkWeights,
  effectiveWeights,
  mergeStrategies,
  resolveWeightTable,
  type WeightTable,
} from "../../../src/engines/reasoning-quality/index.ts";
import { itEachCase } from "../../support/reference.ts";
import { TOL, closeTo, describeRq, expectPy, vectorLines } from "./support.ts";

/** The first key of a custom entry that §8 [D] rejects: an unknown metric key or a negative weight. */
function rejectedKey(weights: Record<string, number>): string | null {
  for (const [k, v] of Object.entries(weights)) if (!(METRIC_KEYS as readonly string[]).includes(k) || v < 0) return k;
  return null;
}

const KINDS = ["weight_table", "aggregate", "round4"];

describeRq("aggregation_vectors.jsonl", ["aggregation_vectors.jsonl"], (ref) => {
  const lines = vectorLines(ref, "aggregation_vectors.jsonl");
  const tables = lines.filter((l) => l.value.kind === "weight_table");
  const aggregates = lines.filter((l) => l.value.kind === "aggregate");

  itEachCase(
    lines,
    (l) => `${l.label} is a kind these tests check`,
    "line in aggregation_vectors.jsonl",
    (l) => {
      expect(KINDS).toContain(l.value.kind);
    },
  );

  itEachCase(
    tables,
    (l) => `${l.label} weight table ${l.value.table}`,
    "weight_table line",
    (l) => {
      const v = l.value;
      expect(Object.keys(WEIGHT_TABLES), "a table we ship").toContain(v.table);
      const table: WeightTable = WEIGHT_TABLES[v.table as keyof typeof WEIGHT_TABLES];
      expectPy(table, l.exact.weights, `${l.label} weights`);
      expect(Object.keys(table)).toEqual(v.strategy_order);
      for (const s of v.strategy_order) {
        expect(Object.keys(table[s]), s).toEqual(Object.keys(v.weights[s]));
        expectPy(effectiveWeights(table[s]), l.exact.effective_weights[s], `${l.label} effective ${s}`, { tol: TOL });
      }
    },
  );

  itEachCase(
    aggregates,
    (l) => `${l.label}: every table strategy`,
    "aggregate line",
    (l) => {
      const v = l.value;
      for (const name of Object.keys(v.expected.tables)) {
        expect(Object.keys(WEIGHT_TABLES), "a table we ship").toContain(name);
        const got = aggregateAll(v.raw_metrics, name as keyof typeof WEIGHT_TABLES);
        expect(Object.keys(got), name).toEqual(Object.keys(v.expected.tables[name]));
        expectPy(got, l.exact.expected.tables[name], `${l.label} ${name}`, { tol: TOL, numbers: "float" });
      }
    },
  );

  itEachCase(
    aggregates,
    (l) => `${l.label}: every custom entry`,
    "aggregate line",
    (l) => {
      const v = l.value;
      (v.expected.custom as any[]).forEach((c, i) => {
        const want = l.exact.expected.custom[i];
        const label = `${l.label} custom ${i} ${JSON.stringify(c.weights)}`;
        const bad = rejectedKey(c.weights);
        if (bad === null) {
          const got = aggregateDetailed(v.raw_metrics, c.weights);
          expectPy(got.effective_weights, want.effective_weights, `${label} effective`, { tol: TOL });
          expectPy(got.q, want.q, `${label} q`, { tol: TOL, numbers: "float" });
        } else {
          // §8 [D]: rejected, with the offending key named.
          expect(() => aggregate(v.raw_metrics, c.weights), label).toThrow(RangeError);
          expect(() => aggregate(v.raw_metrics, c.weights), label).toThrow(`"${bad}"`);
        }
        // [C]-compatible mode reproduces every entry, the rejected ones included.
        const code = aggregateDetailed(v.raw_metrics, c.weights, { codeCompatible: true });
        expectPy(code.effective_weights, want.effective_weights, `${label} codeCompatible effective`, { tol: TOL });
        expectPy(code.q, want.q, `${label} codeCompatible q`, { tol: TOL, numbers: "float" });
      });
    },
  );
});

describe("aggregation rules (§8)", () => {
  it("ships camera-ready weights as the default preset and the README table as 1.1.4", () => {
    expect(DEFAULT_PRESET).toBe("paper-v8");
    expect(resolveWeightTable()).toBe(WEIGHT_TABLES.config_yaml);
    expect(PRESETS["1.1.4"]).toBe(WEIGHT_TABLES.readme_1_1_4);
    expect(() => resolveWeightTable("v9" as never)).toThrow(RangeError);
  });

  it("all-zero weights give Q = 0 with a warning", () => {
    const got = aggregateDetailed({ correctness: 1 }, { correctness: 0, stability: 0 });
    expect(got.q).toBe(0);
    expect(got.warnings.join()).toMatch(/all weights are zero/);
  });

  it("rejects non-finite weights", () => {
    expect(() => checkWeights({ correctness: Number.NaN })).toThrow(/"correctness"/);
    expect(() => checkWeights({ stability: Infinity })).toThrow(RangeError);
  });

  it("a null metric is renormalised away by default, or scored 0", () => {
    const raw = {
      correctness: 0.8,
      consistency: 0.6,
      robustness: null,
      logical_coherence: 1,
      efficiency: 0.4,
      stability: 0.2,
    };
    const w = { correctness: 0.5, robustness: 0.25, stability: 0.25 };
    closeTo(aggregate(raw, w), (0.5 / 0.75) * 0.8 + (0.25 / 0.75) * 0.2);
    closeTo(aggregate(raw, w, { missingMetric: "zero" }), 0.5 * 0.8 + 0.25 * 0.2);
    expect(aggregate({ ...raw, correctness: null, stability: null }, w)).toBe(0);
  });

  it("merges config strategies over the built-ins by name, keeping order", () => {
    const merged = mergeStrategies(WEIGHT_TABLES.code_defaults, {
      balanced: { correctness: 1 },
      mine: { stability: 2 },
    });
    expect(Object.keys(merged)).toEqual([
      "balanced",
      "safety_priority",
      "accuracy_priority",
      "efficiency_priority",
      "mine",
    ]);
    expect(aggregateAll({ correctness: 0.3, stability: 0.9 }, merged)).toMatchObject({ balanced: 0.3, mine: 0.9 });
    expect(() => mergeStrategies(WEIGHT_TABLES.code_defaults, { bad: { accuracy: 1 } })).toThrow(/"accuracy"/);
  });
});
