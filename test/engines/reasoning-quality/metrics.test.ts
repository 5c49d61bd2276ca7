// The six metrics over stored records (spec §3–§7): every `kind: "records"` line of metric_vectors.jsonl, run
// with [C]'s RS/ES behaviour (CODE_PARITY); expected values read losslessly, per_item and raw within 1e-12, rounded
// exact (README tolerances). Then the [D] defaults that differ from [C] on purpose, each on its own hand-derived
// inputs, and the injected LS/SS backends. (Pipeline lines are checked in pipeline.test.ts.)
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import {
  aggregateAll,
  computeMetrics,
  consistencyItem,
  cosine,
  efficiencyScores,
  groupByDataset,
  jaccard,
  nliInputText,
  summarise,
  scoreItems,
  type ContradictionChecker,
  type EmbedFn,
  type ItemRecord,
  type NliLabel,
  type StepPair,
} from "../../../src/engines/reasoning-quality/index.ts";
import { itEachCase } from "../../support/reference.ts";
import { CODE_PARITY, TOL, closeList, closeTo, describeRq, expectPy, toItemRecord, vectorLines } from "./support.ts";

describeRq("metric_vectors.jsonl, kind records", ["metric_vectors.jsonl"], (ref) => {
  const records = vectorLines(ref, "metric_vectors.jsonl").filter((l) => l.value.kind === "records");

  itEachCase(
    records,
    (l) => `${l.label} ${l.value.note ?? ""}`,
    "records line in metric_vectors.jsonl",
    async (l) => {
      const v = l.value;
      const e = l.exact.expected;
      const got = await computeMetrics(v.records.map(toItemRecord), v.metrics_config, CODE_PARITY);
      expectPy(got.per_item, e.per_item, `${l.label} per_item`, { tol: TOL, numbers: "float" });
      expectPy(got.raw, e.raw, `${l.label} raw`, { tol: TOL, numbers: "float" });
      expectPy(got.raw_metrics, e.rounded, `${l.label} rounded`, { numbers: "float" });
      expect(got.ls_method).toBe("lexical");
      expect(got.ss_method).toBe("jaccard");
      expect(got.cq_matcher).toBe("canonical");
    },
  );
});

/** A record with defaults for the fields a test does not care about. */
function record(r: Partial<ItemRecord> & Pick<ItemRecord, "prediction" | "gold_answer">): ItemRecord {
  return {
    token_count: 10,
    reasoning_trace: ["x"],
    k_answers: [r.prediction],
    k_traces: ["x"],
    perturbed_preds: [],
    ...r,
  };
}
const KPS = { consistency_runs: 3, stability_runs: 3, robustness_perturbations: 3 };

describe("spec [D] defaults that deliberately differ from [C]", () => {
  it("§6: failed generations are left out of ES's min–max", async () => {
    const recs: ItemRecord[] = [
      record({
        prediction: "",
        gold_answer: "8",
        token_count: 0,
        reasoning_trace: [""],
        k_answers: [""],
        k_traces: [""],
        generation_failed: true,
      }),
      record({ prediction: "8", gold_answer: "8", token_count: 100 }),
      record({ prediction: "8", gold_answer: "8", token_count: 120 }),
    ];
    const fixed = await computeMetrics(recs, KPS);
    // Min–max over the two successful items only (100 and 120 tokens): the 100-token one is the most concise
    // (T' = 0, ES = 2·1·1/(1+1) = 1), the 120-token one has T' = 1 (ES = 0); the failed item scores 0.
    expect(fixed.per_item.es).toEqual([0, 1, 0]);
    expect(fixed.raw.efficiency).toBe(1 / 3);
    // [C]: the failed item's 0 tokens set T_min, so the 100-token item gets T' = 100/120, conc = 1/6 and
    // ES = 2·(1/6)/(1 + 1/6) = 2/7; ES = (0 + 2/7 + 0)/3 = 2/21.
    const code = await computeMetrics(recs, KPS, CODE_PARITY);
    closeList(code.per_item.es, [0, 2 / 7, 0], "[C] es");
    closeTo(code.raw.efficiency, 2 / 21);
  });

  it("§4: items without perturbations are skipped for RS, and RS is null when none is left", async () => {
    // Two correct items, neither with perturbations.
    const recs = [
      record({ prediction: "8", gold_answer: "8" }),
      record({ prediction: "Yes.", gold_answer: "yes" }),
    ].map((r) => ({ ...r, has_perturbations: false }));
    const skipped = await computeMetrics(recs, KPS);
    expect(skipped.raw.robustness).toBeNull();
    expect(skipped.raw_metrics.robustness).toBeNull();
    expect(skipped.rs_skipped).toBe(true);
    expect(skipped.per_item.in_C).toEqual([false, false]);
    // [C] keeps them in C with RS_i = 0/P = 0, so RS = 0.
    const code = await computeMetrics(recs, KPS, CODE_PARITY);
    expect(code.raw.robustness).toBe(0);
    expect(code.per_item.in_C).toEqual([true, true]);
    expect(code.rs_skipped).toBe(false);
  });

  it("§4: only items with perturbations form C when some have them", async () => {
    const recs: ItemRecord[] = [
      record({ prediction: "8", gold_answer: "8", perturbed_preds: ["8", "8", "9"] }), // RS_0 = 2/3
      { ...record({ prediction: "4", gold_answer: "4" }), has_perturbations: false }, // no perturbations
      record({ prediction: "Yes.", gold_answer: "yes", perturbed_preds: ["Yes.", "No.", "No."] }), // RS_2 = 1/3
    ];
    const got = await computeMetrics(recs, KPS);
    expect(got.per_item.in_C).toEqual([true, false, true]);
    closeTo(got.raw.robustness, (2 / 3 + 1 / 3) / 2);
    // [C] averages the item without perturbations in as 0: (2/3 + 0 + 1/3)/3.
    const code = await computeMetrics(recs, KPS, CODE_PARITY);
    closeTo(code.raw.robustness, 1 / 3);
  });

  it("§3: consistency_runs absent → K is the number of stored answers per item (README quirk kept)", () => {
    expect(consistencyItem(["yes", "yes"], "yes").score).toBe(1);
    expect(consistencyItem(["yes", "yes"], "yes", 3).score).toBe(1 / 3);
    expect(consistencyItem([], "yes").labels).toEqual(["__failed_run_0__", "__failed_run_1__", "__failed_run_2__"]);
  });

  it("§3: without a gold, labels are the trimmed lower-cased answers", () => {
    expect(consistencyItem([" Paris", "paris\u00a0", "PARIS"], null, 3)).toEqual({
      score: 1,
      labels: ["paris", "paris", "paris"],
    });
  });

  it("matcher choice reaches CQ and RS and is reported (legacy7)", async () => {
    const rec: ItemRecord = {
      prediction: "Parisian",
      gold_answer: "Paris",
      token_count: 1,
      reasoning_trace: ["x"],
      k_answers: ["Parisian"],
      k_traces: ["x"],
      perturbed_preds: [],
    };
    const canonical = await computeMetrics([rec], {});
    const legacy = await computeMetrics([rec], {}, { matcher: "legacy7" });
    expect(canonical.raw.correctness).toBe(1);
    expect(legacy.raw.correctness).toBe(0);
    expect(legacy.scores.cq_matcher).toBe("legacy7");
  });
});

describe("LS backends (§5, §11)", () => {
  // Traces with 3, 1, 2 and 4 steps (2, 0, 1 and 3 consecutive pairs); the expectations below are derived
  // from the traces themselves.
  const recs: ItemRecord[] = [
    ["The sum is 8", "The sum is not 8", "So the sum is 8"],
    ["Yes"],
    ["It is cold", "It is not cold"],
    ["a b", "b c", "c is not d", "d e"],
  ].map((reasoning_trace, i) =>
    record({
      prediction: "8",
      gold_answer: "8",
      token_count: 10 + i,
      reasoning_trace,
      k_answers: ["8", "8", "9"],
      k_traces: ["a b", "a b", "a c"],
      perturbed_preds: ["8", "9", "8"],
    }),
  );
  const v = { records: recs, metrics_config: KPS };
  // A checker that calls a pair a contradiction when exactly one side contains " not ".
  const negated = (s: string) => ` ${s.toLowerCase()} `.includes(" not ");
  const checker =
    (log: StepPair[][]): ContradictionChecker =>
    async (pairs) => {
      log.push(pairs);
      return pairs.map((p) => (negated(p.premise) !== negated(p.hypothesis) ? "contradiction" : "neutral"));
    };

  it("model: batched pairs from traces with ≥ 2 steps; LS_i = 1 − contradictions/pairs", async () => {
    const log: StepPair[][] = [];
    const got = await computeMetrics(recs, v.metrics_config, {
      ls: { method: "model", classify: checker(log), batchSize: 2, name: "fake-nli" },
    });
    const traces: string[][] = v.records.map((r: any) => r.reasoning_trace);
    const expected = traces.map((t) => {
      if (t.length <= 1) return 1.0;
      let c = 0;
      for (let j = 0; j + 1 < t.length; j++) if (negated(t[j]) !== negated(t[j + 1])) c++;
      return 1.0 - c / (t.length - 1);
    });
    expect(got.per_item.ls).toEqual(expected);
    const pairCount = traces.reduce((n, t) => n + Math.max(0, t.length - 1), 0);
    expect(log.flat().length).toBe(pairCount);
    expect(log.map((b) => b.length)).toEqual(
      Array.from({ length: Math.ceil(pairCount / 2) }, (_, i) => Math.min(2, pairCount - 2 * i)),
    );
    expect(got.scores.ls_method).toBe("model");
    expect(got.scores.ls_model).toBe("fake-nli");
    expect(got.scores.ls_failed_pairs).toBe(0);
  });

  it("model: a failing call labels its pairs neutral and is counted, or rethrows on request", async () => {
    const failing: ContradictionChecker = async () => {
      throw new Error("endpoint down");
    };
    const got = await computeMetrics(recs, v.metrics_config, { ls: { method: "model", classify: failing } });
    expect(got.per_item.ls.every((x) => x === 1)).toBe(true);
    expect(got.scores.ls_failed_pairs).toBe(
      v.records.reduce((n: number, r: any) => n + Math.max(0, r.reasoning_trace.length - 1), 0),
    );
    await expect(
      computeMetrics(recs, v.metrics_config, { ls: { method: "model", classify: failing, onError: "throw" } }),
    ).rejects.toThrow("endpoint down");
    const short: ContradictionChecker = async () => [];
    expect(
      (await computeMetrics(recs, v.metrics_config, { ls: { method: "model", classify: short } })).scores
        .ls_failed_pairs,
    ).toBeGreaterThan(0);
  });

  it("model with recorded labels: one list per record, nulls are failed pairs read as neutral", async () => {
    const traces: string[][] = v.records.map((r: any) => r.reasoning_trace);
    const labels = traces.map((t) =>
      Array.from(
        { length: Math.max(0, t.length - 1) },
        (_, j) => (j === 0 ? "contradiction" : null) as NliLabel | null,
      ),
    );
    const got = await computeMetrics(recs, v.metrics_config, { ls: { method: "model", labels, fallback: "neutral" } });
    expect(got.per_item.ls).toEqual(traces.map((t) => (t.length <= 1 ? 1 : 1 - 1 / (t.length - 1))));
    expect(got.scores.ls_failed_pairs).toBe(traces.reduce((n, t) => n + Math.max(0, t.length - 2), 0));
    // A list that does not fit its trace counts as failed, not as a shorter trace.
    const wrong = traces.map(() => ["contradiction" as const]);
    const misfit = await computeMetrics(recs, v.metrics_config, { ls: { method: "model", labels: wrong } });
    expect(misfit.scores.ls_failed_pairs).toBe(
      traces.reduce((n, t) => n + (t.length - 1 === 1 ? 0 : Math.max(0, t.length - 1)), 0),
    );
  });

  it("model with failed pairs: fallback lexical or none replaces the set's LS and says why", async () => {
    const traces: string[][] = v.records.map((r: any) => r.reasoning_trace);
    const pairCount = traces.reduce((n, t) => n + Math.max(0, t.length - 1), 0);
    const labels = traces.map((t, i) =>
      i === 0 ? null : Array.from({ length: Math.max(0, t.length - 1) }, () => "entailment" as const),
    );
    const failedPairs = Math.max(0, traces[0].length - 1);
    expect(failedPairs).toBeGreaterThan(0);
    const lexical = await computeMetrics(recs, v.metrics_config, { ls: { method: "lexical" } });
    const fell = await computeMetrics(recs, v.metrics_config, {
      ls: { method: "model", labels, fallback: "lexical", name: "m" },
    });
    expect(fell.per_item.ls).toEqual(lexical.per_item.ls);
    expect(fell.scores.ls_method).toBe("lexical");
    expect(fell.scores.ls_fallback).toEqual({
      from: "model",
      reason: `the contradiction checker failed on ${failedPairs} of ${pairCount} step pairs`,
    });
    const none = await computeMetrics(recs, v.metrics_config, { ls: { method: "model", labels, fallback: "none" } });
    expect(none.raw.logical_coherence).toBeNull();
    // No failure, no fallback.
    const clean = traces.map((t) => Array.from({ length: Math.max(0, t.length - 1) }, () => "entailment" as const));
    const kept = await computeMetrics(recs, v.metrics_config, {
      ls: { method: "model", labels: clean, fallback: "lexical" },
    });
    expect(kept.scores.ls_method).toBe("model");
    expect(kept.per_item.ls.every((x) => x === 1)).toBe(true);
  });

  it("none: LS is null, never a silent 1.0, and Q renormalises over the other metrics", async () => {
    const got = await computeMetrics(recs, v.metrics_config, { ls: { method: "none" } });
    expect(got.raw.logical_coherence).toBeNull();
    expect(got.raw_metrics.logical_coherence).toBeNull();
    expect(got.per_item.ls.every((x) => x === null)).toBe(true);
    expect(got.scores.ls_method).toBe("none");
    const q = aggregateAll(got.raw_metrics, "code_defaults");
    const others = [
      got.raw_metrics.correctness,
      got.raw_metrics.consistency,
      got.raw_metrics.robustness!,
      got.raw_metrics.efficiency,
      got.raw_metrics.stability!,
    ];
    closeTo(q.balanced, others.reduce((a, b) => a + b, 0) / 5);
  });

  it("the [C] NLI input is one string with a literal [SEP]", () => {
    expect(nliInputText({ premise: "a", hypothesis: "b" })).toBe("a [SEP] b");
  });
});

describe("SS backends (§7, §11)", () => {
  // One-hot-ish embeddings: every distinct text gets its own axis, except texts that differ only in case.
  const axis = new Map<string, number>();
  const embedLog: string[][] = [];
  const embed: EmbedFn = async (texts) => {
    embedLog.push(texts);
    return texts.map((t) => {
      const key = t.toLowerCase();
      if (!axis.has(key)) axis.set(key, axis.size);
      const v = new Array(64).fill(0);
      v[axis.get(key)!] = 1;
      return v;
    });
  };
  const rec = (k_traces: string[]): ItemRecord => ({
    prediction: "x",
    gold_answer: "x",
    token_count: 1,
    reasoning_trace: ["x"],
    k_answers: ["x"],
    k_traces,
    perturbed_preds: [],
  });

  it("embeddings: cosine per pair, blank traces score 0, (2/(K(K−1)))·Σ", async () => {
    const got = await computeMetrics(
      [rec(["A b", "a B", "c"]), rec(["a", "", "a"]), rec(["a"])],
      { stability_runs: 3 },
      { ss: { method: "embeddings", embed, name: "fake-emb" } },
    );
    // Pairs (0,1),(0,2),(1,2): cosines 1,0,0 → (2/6)·1; 0,1,0 → (2/6)·1; "a" with two pads → 0.
    expect(got.per_item.ss).toEqual([(2 / 6) * 1, (2 / 6) * 1, 0]);
    expect(got.scores.ss_method).toBe("embeddings");
    expect(got.scores.ss_model).toBe("fake-emb");
    // Blank traces are never sent; identical traces are embedded once; consecutive items share a call.
    expect(embedLog).toEqual([["A b", "a B", "c", "a"]]);
  });

  it("embeddings: calls hold at most batchSize texts and an item's traces are never split from its scores", async () => {
    embedLog.length = 0;
    const recs = [rec(["p", "q", "r"]), rec(["q", "s", "t"]), rec(["u", "u", "v"]), rec(["w", "x", "y"])];
    const batched = await computeMetrics(
      recs,
      { stability_runs: 3 },
      { ss: { method: "embeddings", embed, batchSize: 6 } },
    );
    // Items 0+1 (5 distinct texts) share a call, then items 2+3: two calls for four items.
    expect(embedLog).toEqual([
      ["p", "q", "r", "s", "t"],
      ["u", "v", "w", "x", "y"],
    ]);
    expect([...new Set(embedLog.flat())].sort()).toEqual(["p", "q", "r", "s", "t", "u", "v", "w", "x", "y"]);
    embedLog.length = 0;
    const oneCall = await computeMetrics(
      recs,
      { stability_runs: 3 },
      { ss: { method: "embeddings", embed, batchSize: 100 } },
    );
    expect(embedLog.length).toBe(1);
    expect(batched.per_item.ss).toEqual(oneCall.per_item.ss);
  });

  it("embeddings failing: the configured fallback scores the whole set and says why; without one it throws", async () => {
    const down: EmbedFn = async () => {
      throw new Error("503 embeddings unavailable");
    };
    const recs = [rec(["a b c", "a b d", "x"]), rec(["same words", "same words", "other"])];
    const jac = await computeMetrics(recs, { stability_runs: 3 }, { ss: { method: "jaccard" } });
    const fell = await computeMetrics(
      recs,
      { stability_runs: 3 },
      { ss: { method: "embeddings", embed: down, fallback: "jaccard", name: "e" } },
    );
    expect(fell.per_item.ss).toEqual(jac.per_item.ss);
    expect(fell.scores.ss_method).toBe("jaccard");
    expect(fell.scores.ss_fallback).toEqual({ from: "embeddings", reason: "503 embeddings unavailable" });
    const none = await computeMetrics(
      recs,
      { stability_runs: 3 },
      { ss: { method: "embeddings", embed: down, fallback: "none" } },
    );
    expect(none.raw.stability).toBeNull();
    expect(none.scores.ss_method).toBe("none");
    await expect(
      computeMetrics(recs, { stability_runs: 3 }, { ss: { method: "embeddings", embed: down } }),
    ).rejects.toThrow("503");
  });

  it("none: SS is null and Q renormalises over the other metrics", async () => {
    const got = await computeMetrics([rec(["a", "b", "c"])], { stability_runs: 3 }, { ss: { method: "none" } });
    expect(got.raw_metrics.stability).toBeNull();
    const q = aggregateAll(got.raw_metrics, "code_defaults");
    const m = got.raw_metrics;
    const others = [m.correctness, m.consistency, m.robustness, m.logical_coherence, m.efficiency].filter(
      (x): x is number => x !== null,
    );
    closeTo(q.balanced, others.reduce((a, b) => a + b, 0) / others.length);
  });

  it("embeddings: optional baseline rescale (s − b)/(1 − b) of non-empty pairs", async () => {
    const got = await computeMetrics(
      [rec(["a", "a", "z"])],
      { stability_runs: 3 },
      { ss: { method: "embeddings", embed, baseline: 0.5 } },
    );
    expect(got.per_item.ss[0]).toBe((2 / 6) * ((1 - 0.5) / 0.5 + (0 - 0.5) / 0.5 + (0 - 0.5) / 0.5));
  });

  it("cosine of a zero vector is 0 and sizes must agree", () => {
    expect(cosine([0, 0], [1, 0])).toBe(0);
    expect(cosine([3, 4], [3, 4])).toBe(1);
    expect(() => cosine([1], [1, 2])).toThrow(RangeError);
  });
});

describe("set-level helpers", () => {
  it("ES min–max is per set and 0 when T_max = T_min", () => {
    expect(efficiencyScores([1, 1], [7, 7])).toEqual([1, 1]);
    expect(efficiencyScores([1, 0, 1], [10, 20, 30])).toEqual([1, 0, 0]);
    expect(efficiencyScores([0], [0], [false])).toEqual([0]);
  });

  it("summarise recomputes ES per subset", async () => {
    const recs = [10, 20, 30].map((token_count) => record({ prediction: "8", gold_answer: "8", token_count }));
    const scores = await scoreItems(recs, KPS, CODE_PARITY);
    // All correct. Whole set: T' = 0, 1/2, 1 → ES = 1, 2·(1/2)/(1 + 1/2) = 2/3, 0.
    closeList(summarise(scores).per_item.es, [1, 2 / 3, 0]);
    // Items 0 and 1 alone (10 and 20 tokens): 10 is T_min (ES 1), 20 is T_max (ES 0); likewise items 1 and 2.
    expect(summarise(scores, [0, 1]).per_item.es).toEqual([1, 0]);
    expect(summarise(scores, [1, 2]).per_item.es).toEqual([1, 0]);
  });

  it("groupByDataset: sorted by code point, untagged → unknown, [] for a single name", () => {
    expect(groupByDataset([{ dataset: "b" }, {}, { dataset: "a" }, { dataset: "b" }])).toEqual([
      { name: "a", indices: [2] },
      { name: "b", indices: [0, 3] },
      { name: "unknown", indices: [1] },
    ]);
    expect(groupByDataset([{ dataset: "\u{1F600}" }, { dataset: "\uFB01" }]).map((g) => g.name)).toEqual([
      "\uFB01",
      "\u{1F600}",
    ]);
    expect(groupByDataset([{}, { dataset: "unknown" }])).toEqual([]);
  });
});

describe("properties", () => {
  const words = fc
    .array(fc.constantFrom("a", "B", "c", "not", "yes", "8", "\u00a0", " ", "."), { maxLength: 8 })
    .map((w) => w.join(" "));

  it("Jaccard is symmetric, in [0, 1], and 1 for equal non-blank texts", () => {
    fc.assert(
      fc.property(words, words, (a, b) => {
        const s = jaccard(a, b);
        expect(s).toBe(jaccard(b, a));
        expect(s >= 0 && s <= 1).toBe(true);
        if (a.replaceAll("\u00a0", " ").trim() !== "") expect(jaccard(a, a.toUpperCase())).toBe(1);
      }),
    );
  });

  it("CS_i does not depend on the order of non-blank answers", () => {
    const answers = fc.array(fc.constantFrom("8", "8.0", "#### 8", "9", "nine", "x 8"), { minLength: 2, maxLength: 5 });
    fc.assert(
      fc.property(answers, (xs) => {
        const k = xs.length;
        expect(consistencyItem([...xs].reverse(), "8", k).score).toBe(consistencyItem(xs, "8", k).score);
      }),
    );
  });

  it("ES_i is in [0, 1] and 0 for wrong answers", () => {
    const item = fc.record({ cq: fc.constantFrom(0, 1), t: fc.nat(500) });
    fc.assert(
      fc.property(fc.array(item, { minLength: 1, maxLength: 10 }), (xs) => {
        const es = efficiencyScores(
          xs.map((x) => x.cq),
          xs.map((x) => x.t),
        );
        es.forEach((e, i) => {
          expect(e >= 0 && e <= 1).toBe(true);
          if (xs[i].cq === 0) expect(e).toBe(0);
        });
      }),
    );
  });
});
