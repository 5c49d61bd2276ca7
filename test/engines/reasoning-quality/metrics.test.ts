// The six metrics over stored records (spec §3–§7): every `kind: "records"` line of metric_vectors.jsonl,
// run with [C]'s RS/ES behaviour (CODE_PARITY); per_item and raw within 1e-12, rounded exact. Then the [D]
// defaults that differ from [C] on purpose, and the injected LS/SS backends.
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
import { CODE_PARITY, closeRecord, closeTo, expectPerItem, toItemRecord, vectors } from "./support.ts";

const all = vectors("metric_vectors.jsonl");
const records = all.filter((v) => v.kind === "records");
const byId = (id: string) => records.find((v) => v.id === id);

describe("metric_vectors.jsonl, kind records", () => {
  it("reads every line (20 records + 12 pipeline)", () => {
    expect(all.length).toBe(32);
    expect(records.length).toBe(20);
  });

  it.each(records.map((v) => [`${v.id} ${v.note}`, v]))("%s", async (_n, v: any) => {
    const got = await computeMetrics(v.records.map(toItemRecord), v.metrics_config, CODE_PARITY);
    expectPerItem(got.per_item, v.expected.per_item, v.id);
    closeRecord(got.raw, v.expected.raw, `${v.id} raw`);
    expect(got.raw_metrics).toEqual(v.expected.rounded);
    expect(got.ls_method).toBe("lexical");
    expect(got.ss_method).toBe("jaccard");
    expect(got.cq_matcher).toBe("canonical");
  });
});

describe("spec [D] defaults that deliberately differ from [C]", () => {
  it("§6: failed generations are left out of ES's min–max (rec_es_failed_zero_tokens)", async () => {
    const v = byId("rec_es_failed_zero_tokens");
    const recs: ItemRecord[] = v.records.map(toItemRecord);
    recs[0].generation_failed = true;
    const fixed = await computeMetrics(recs, v.metrics_config);
    // Min–max over the two successful items only (100 and 120 tokens): the 100-token one is the most
    // concise (T' = 0, ES = 2·1·1/(1+1) = 1), the 120-token one has T' = 1 (ES = 0); the failed item scores 0.
    expect(fixed.per_item.es).toEqual([0, 1, 0]);
    expect(fixed.raw.efficiency).toBe(1 / 3);
    // [C] let the failed item's 0 tokens set T_min, which compresses everyone else.
    const code = await computeMetrics(recs, v.metrics_config, CODE_PARITY);
    closeList2(code.per_item.es, v.expected.per_item.es);
  });

  it("§4: items without perturbations are skipped for RS, and RS is null when none is left", async () => {
    const v = byId("rec_cs_numeric_labels"); // four correct items, none with perturbations
    const recs: ItemRecord[] = v.records.map((r: any) => ({ ...toItemRecord(r), has_perturbations: false }));
    const skipped = await computeMetrics(recs, v.metrics_config);
    expect(skipped.raw.robustness).toBeNull();
    expect(skipped.raw_metrics.robustness).toBeNull();
    expect(skipped.rs_skipped).toBe(true);
    expect(skipped.per_item.in_C).toEqual([false, false, false, false]);
    // [C] keeps them in C with RS_i = 0.
    const code = await computeMetrics(recs, v.metrics_config, CODE_PARITY);
    expect(code.raw.robustness).toBe(v.expected.raw.robustness);
    expect(code.rs_skipped).toBe(false);
  });

  it("§4: only items with perturbations form C when some have them", async () => {
    const v = byId("rec_basic_all_correct");
    const recs: ItemRecord[] = v.records.map(toItemRecord);
    recs[1].has_perturbations = false;
    const got = await computeMetrics(recs, v.metrics_config);
    const rs = v.expected.per_item.rs;
    expect(got.per_item.in_C).toEqual([true, false, true]);
    expect(got.raw.robustness).toBe((rs[0] + rs[2]) / 2);
  });

  it("§3: consistency_runs absent → K is the number of stored answers per item (README quirk kept)", () => {
    expect(consistencyItem(["yes", "yes"], "yes").score).toBe(1);
    expect(consistencyItem(["yes", "yes"], "yes", 3).score).toBe(1 / 3);
    expect(consistencyItem([], "yes").labels).toEqual(["__failed_run_0__", "__failed_run_1__", "__failed_run_2__"]);
  });

  it("§3: without a gold, labels are the trimmed lower-cased answers", () => {
    expect(consistencyItem([" Paris", "paris\u00a0", "PARIS"], null, 3)).toEqual({ score: 1, labels: ["paris", "paris", "paris"] });
  });

  it("matcher choice reaches CQ and RS and is reported (legacy7)", async () => {
    const rec: ItemRecord = { prediction: "Parisian", gold_answer: "Paris", token_count: 1, reasoning_trace: ["x"], k_answers: ["Parisian"], k_traces: ["x"], perturbed_preds: [] };
    const canonical = await computeMetrics([rec], {});
    const legacy = await computeMetrics([rec], {}, { matcher: "legacy7" });
    expect(canonical.raw.correctness).toBe(1);
    expect(legacy.raw.correctness).toBe(0);
    expect(legacy.scores.cq_matcher).toBe("legacy7");
  });
});

function closeList2(a: readonly number[], b: readonly number[]) {
  a.forEach((x, i) => closeTo(x, b[i]));
}

describe("LS backends (§5, §11)", () => {
  const v = byId("rec_ls_heuristic");
  const recs: ItemRecord[] = v.records.map(toItemRecord);
  // A checker that calls a pair a contradiction when exactly one side contains " not ".
  const negated = (s: string) => ` ${s.toLowerCase()} `.includes(" not ");
  const checker = (log: StepPair[][]): ContradictionChecker => async (pairs) => {
    log.push(pairs);
    return pairs.map((p) => (negated(p.premise) !== negated(p.hypothesis) ? "contradiction" : "neutral"));
  };

  it("model: batched pairs from traces with ≥ 2 steps; LS_i = 1 − contradictions/pairs", async () => {
    const log: StepPair[][] = [];
    const got = await computeMetrics(recs, v.metrics_config, { ls: { method: "model", classify: checker(log), batchSize: 2, name: "fake-nli" } });
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
    expect(log.map((b) => b.length)).toEqual(Array.from({ length: Math.ceil(pairCount / 2) }, (_, i) => Math.min(2, pairCount - 2 * i)));
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
    expect(got.scores.ls_failed_pairs).toBe(v.records.reduce((n: number, r: any) => n + Math.max(0, r.reasoning_trace.length - 1), 0));
    await expect(computeMetrics(recs, v.metrics_config, { ls: { method: "model", classify: failing, onError: "throw" } })).rejects.toThrow("endpoint down");
    const short: ContradictionChecker = async () => [];
    expect((await computeMetrics(recs, v.metrics_config, { ls: { method: "model", classify: short } })).scores.ls_failed_pairs).toBeGreaterThan(0);
  });

  it("model with recorded labels: one list per record, nulls are failed pairs read as neutral", async () => {
    const traces: string[][] = v.records.map((r: any) => r.reasoning_trace);
    const labels = traces.map((t) => Array.from({ length: Math.max(0, t.length - 1) }, (_, j) => (j === 0 ? "contradiction" : null) as NliLabel | null));
    const got = await computeMetrics(recs, v.metrics_config, { ls: { method: "model", labels, fallback: "neutral" } });
    expect(got.per_item.ls).toEqual(traces.map((t) => (t.length <= 1 ? 1 : 1 - 1 / (t.length - 1))));
    expect(got.scores.ls_failed_pairs).toBe(traces.reduce((n, t) => n + Math.max(0, t.length - 2), 0));
    // A list that does not fit its trace counts as failed, not as a shorter trace.
    const wrong = traces.map(() => ["contradiction" as const]);
    const misfit = await computeMetrics(recs, v.metrics_config, { ls: { method: "model", labels: wrong } });
    expect(misfit.scores.ls_failed_pairs).toBe(traces.reduce((n, t) => n + (t.length - 1 === 1 ? 0 : Math.max(0, t.length - 1)), 0));
  });

  it("model with failed pairs: fallback lexical or none replaces the set's LS and says why", async () => {
    const traces: string[][] = v.records.map((r: any) => r.reasoning_trace);
    const pairCount = traces.reduce((n, t) => n + Math.max(0, t.length - 1), 0);
    const labels = traces.map((t, i) => (i === 0 ? null : Array.from({ length: Math.max(0, t.length - 1) }, () => "entailment" as const)));
    const failedPairs = Math.max(0, traces[0].length - 1);
    expect(failedPairs).toBeGreaterThan(0);
    const lexical = await computeMetrics(recs, v.metrics_config, { ls: { method: "lexical" } });
    const fell = await computeMetrics(recs, v.metrics_config, { ls: { method: "model", labels, fallback: "lexical", name: "m" } });
    expect(fell.per_item.ls).toEqual(lexical.per_item.ls);
    expect(fell.scores.ls_method).toBe("lexical");
    expect(fell.scores.ls_fallback).toEqual({ from: "model", reason: `the contradiction checker failed on ${failedPairs} of ${pairCount} step pairs` });
    const none = await computeMetrics(recs, v.metrics_config, { ls: { method: "model", labels, fallback: "none" } });
    expect(none.raw.logical_coherence).toBeNull();
    // No failure, no fallback.
    const clean = traces.map((t) => Array.from({ length: Math.max(0, t.length - 1) }, () => "entailment" as const));
    const kept = await computeMetrics(recs, v.metrics_config, { ls: { method: "model", labels: clean, fallback: "lexical" } });
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
    const others = [got.raw_metrics.correctness, got.raw_metrics.consistency, got.raw_metrics.robustness!, got.raw_metrics.efficiency, got.raw_metrics.stability!];
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
  const rec = (k_traces: string[]): ItemRecord => ({ prediction: "x", gold_answer: "x", token_count: 1, reasoning_trace: ["x"], k_answers: ["x"], k_traces, perturbed_preds: [] });

  it("embeddings: cosine per pair, blank traces score 0, (2/(K(K−1)))·Σ", async () => {
    const got = await computeMetrics([rec(["A b", "a B", "c"]), rec(["a", "", "a"]), rec(["a"])], { stability_runs: 3 }, { ss: { method: "embeddings", embed, name: "fake-emb" } });
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
    const batched = await computeMetrics(recs, { stability_runs: 3 }, { ss: { method: "embeddings", embed, batchSize: 6 } });
    // Items 0+1 (5 distinct texts) share a call, then items 2+3: two calls for four items.
    expect(embedLog).toEqual([["p", "q", "r", "s", "t"], ["u", "v", "w", "x", "y"]]);
    expect([...new Set(embedLog.flat())].sort()).toEqual(["p", "q", "r", "s", "t", "u", "v", "w", "x", "y"]);
    embedLog.length = 0;
    const oneCall = await computeMetrics(recs, { stability_runs: 3 }, { ss: { method: "embeddings", embed, batchSize: 100 } });
    expect(embedLog.length).toBe(1);
    expect(batched.per_item.ss).toEqual(oneCall.per_item.ss);
  });

  it("embeddings failing: the configured fallback scores the whole set and says why; without one it throws", async () => {
    const down: EmbedFn = async () => {
      throw new Error("503 embeddings unavailable");
    };
    const recs = [rec(["a b c", "a b d", "x"]), rec(["same words", "same words", "other"])];
    const jac = await computeMetrics(recs, { stability_runs: 3 }, { ss: { method: "jaccard" } });
    const fell = await computeMetrics(recs, { stability_runs: 3 }, { ss: { method: "embeddings", embed: down, fallback: "jaccard", name: "e" } });
    expect(fell.per_item.ss).toEqual(jac.per_item.ss);
    expect(fell.scores.ss_method).toBe("jaccard");
    expect(fell.scores.ss_fallback).toEqual({ from: "embeddings", reason: "503 embeddings unavailable" });
    const none = await computeMetrics(recs, { stability_runs: 3 }, { ss: { method: "embeddings", embed: down, fallback: "none" } });
    expect(none.raw.stability).toBeNull();
    expect(none.scores.ss_method).toBe("none");
    await expect(computeMetrics(recs, { stability_runs: 3 }, { ss: { method: "embeddings", embed: down } })).rejects.toThrow("503");
  });

  it("none: SS is null and Q renormalises over the other metrics", async () => {
    const got = await computeMetrics([rec(["a", "b", "c"])], { stability_runs: 3 }, { ss: { method: "none" } });
    expect(got.raw_metrics.stability).toBeNull();
    const q = aggregateAll(got.raw_metrics, "code_defaults");
    const m = got.raw_metrics;
    const others = [m.correctness, m.consistency, m.robustness, m.logical_coherence, m.efficiency].filter((x): x is number => x !== null);
    closeTo(q.balanced, others.reduce((a, b) => a + b, 0) / others.length);
  });

  it("embeddings: optional baseline rescale (s − b)/(1 − b) of non-empty pairs", async () => {
    const got = await computeMetrics([rec(["a", "a", "z"])], { stability_runs: 3 }, { ss: { method: "embeddings", embed, baseline: 0.5 } });
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
    const v = byId("rec_es_shapes");
    const scores = await scoreItems(v.records.map(toItemRecord), v.metrics_config, CODE_PARITY);
    // Items 0 and 1 alone (10 and 20 tokens): 10 is T_min (ES 1), 20 is T_max (ES 0).
    expect(summarise(scores, [0, 1]).per_item.es).toEqual([1, 0]);
    expect(summarise(scores).per_item.es).toEqual(v.expected.per_item.es);
  });

  it("groupByDataset: sorted by code point, untagged → unknown, [] for a single name", () => {
    expect(groupByDataset([{ dataset: "b" }, {}, { dataset: "a" }, { dataset: "b" }])).toEqual([
      { name: "a", indices: [2] },
      { name: "b", indices: [0, 3] },
      { name: "unknown", indices: [1] },
    ]);
    expect(groupByDataset([{ dataset: "\u{1F600}" }, { dataset: "\uFB01" }]).map((g) => g.name)).toEqual(["\uFB01", "\u{1F600}"]);
    expect(groupByDataset([{}, { dataset: "unknown" }])).toEqual([]);
  });
});

describe("properties", () => {
  const words = fc.array(fc.constantFrom("a", "B", "c", "not", "yes", "8", "\u00a0", " ", "."), { maxLength: 8 }).map((w) => w.join(" "));

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
