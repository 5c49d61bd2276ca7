// Composite Q parity (spec §8): every line of aggregation_vectors.jsonl. weight_table lines: the tables and
// effective weights exact, strategy order exact. aggregate lines: Q of every strategy of the three tables and
// every custom entry within 1e-12. The custom entries with an unknown key or a negative weight are what §8
// [D] rejects: each is asserted to throw a RangeError naming the key, and to match [C] in codeCompatible mode.
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
import { closeRecord, closeTo, vectors } from "./support.ts";

const lines = vectors("aggregation_vectors.jsonl");
const tables = lines.filter((v) => v.kind === "weight_table");
const aggregates = lines.filter((v) => v.kind === "aggregate");

/** The custom entries §8 [D] rejects: an unknown metric key or a negative weight. */
function rejectedKey(weights: Record<string, number>): string | null {
  for (const [k, v] of Object.entries(weights)) if (!(METRIC_KEYS as readonly string[]).includes(k) || v < 0) return k;
  return null;
}

describe("aggregation_vectors.jsonl", () => {
  it("reads every line (3 tables, 16 aggregates, 1 round4)", () => {
    expect(lines.length).toBe(20);
    expect(tables.length).toBe(3);
    expect(aggregates.length).toBe(16);
    expect(lines.filter((v) => v.kind === "round4").length).toBe(1);
  });

  it.each(tables.map((v) => [v.table, v]))("weight table %s", (name, v: any) => {
    const table: WeightTable = WEIGHT_TABLES[name as keyof typeof WEIGHT_TABLES];
    expect(table).toEqual(v.weights);
    expect(Object.keys(table)).toEqual(v.strategy_order);
    for (const s of v.strategy_order) {
      expect(Object.keys(table[s])).toEqual(Object.keys(v.weights[s]));
      expect(effectiveWeights(table[s])).toEqual(v.effective_weights[s]);
    }
  });

  it.each(aggregates.map((v) => [v.id, v]))("%s: every table strategy", (_n, v: any) => {
    for (const [name, expected] of Object.entries(v.expected.tables)) {
      const got = aggregateAll(v.raw_metrics, name as keyof typeof WEIGHT_TABLES);
      expect(Object.keys(got)).toEqual(Object.keys(expected as object));
      closeRecord(got, expected as Record<string, number>, `${v.id} ${name}`);
    }
  });

  it.each(aggregates.map((v) => [v.id, v]))("%s: every custom entry", (_n, v: any) => {
    expect(v.expected.custom.length).toBe(10);
    for (const c of v.expected.custom) {
      const label = `${v.id} ${JSON.stringify(c.weights)}`;
      const bad = rejectedKey(c.weights);
      if (bad === null) {
        const got = aggregateDetailed(v.raw_metrics, c.weights);
        expect(got.effective_weights, label).toEqual(c.effective_weights);
        closeTo(got.q, c.q, 1e-12, label);
      } else {
        // §8 [D]: rejected, with the offending key named.
        expect(() => aggregate(v.raw_metrics, c.weights), label).toThrow(RangeError);
        expect(() => aggregate(v.raw_metrics, c.weights), label).toThrow(`"${bad}"`);
      }
      // [C]-compatible mode reproduces every entry, the rejected ones included.
      const code = aggregateDetailed(v.raw_metrics, c.weights, { codeCompatible: true });
      expect(code.effective_weights, label).toEqual(c.effective_weights);
      closeTo(code.q, c.q, 1e-12, label);
    }
  });
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
    const raw = { correctness: 0.8, consistency: 0.6, robustness: null, logical_coherence: 1, efficiency: 0.4, stability: 0.2 };
    const w = { correctness: 0.5, robustness: 0.25, stability: 0.25 };
    closeTo(aggregate(raw, w), (0.5 / 0.75) * 0.8 + (0.25 / 0.75) * 0.2);
    closeTo(aggregate(raw, w, { missingMetric: "zero" }), 0.5 * 0.8 + 0.25 * 0.2);
    expect(aggregate({ ...raw, correctness: null, stability: null }, w)).toBe(0);
  });

  it("merges config strategies over the built-ins by name, keeping order", () => {
    const merged = mergeStrategies(WEIGHT_TABLES.code_defaults, { balanced: { correctness: 1 }, mine: { stability: 2 } });
    expect(Object.keys(merged)).toEqual(["balanced", "safety_priority", "accuracy_priority", "efficiency_priority", "mine"]);
    expect(aggregateAll({ correctness: 0.3, stability: 0.9 }, merged)).toMatchObject({ balanced: 0.3, mine: 0.9 });
    expect(() => mergeStrategies(WEIGHT_TABLES.code_defaults, { bad: { accuracy: 1 } })).toThrow(/"accuracy"/);
  });
});
