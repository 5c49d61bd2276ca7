// aggregateRq keeps one LS and one SS method per run, so that models can be ranked.
import { describe, expect, it } from "vitest";
import {
  aggregateRq,
  reasoningQuality,
  type RqRunConfig,
  type RqOutput,
} from "../../../src/evaluators/reasoning-quality/index.ts";
import type { AggregateContext, StoredSample } from "../../../src/runs/plugin/types.ts";
import {
  generateSynthetic,
  splitSteps,
  stepPairs,
  storedTrace,
  type NliLabel,
} from "../../../src/engines/reasoning-quality/index.ts";
import type { EmbeddingClient } from "../../../src/providers/index.ts";

const items = generateSynthetic({ seed: 3, numReasoning: 4, numAdversarial: 0, numRobustness: 0 }).map((it, n) => ({
  ...it,
  id: `${n}:${it.id}`,
}));
const model = (name: string) => ({
  name,
  model: name,
  base_url: "http://e",
  temperature: 0.7,
  max_tokens: 256,
  timeout_s: 5,
  simulator: null,
});

function config(over: Partial<RqRunConfig>): RqRunConfig {
  return {
    models: [model("A"), model("B"), model("C")],
    items,
    metrics: { consistency_runs: 2, stability_runs: 2, robustness_perturbations: 0 },
    matcher: "canonical",
    ls: { method: "lexical" },
    ss: { method: "jaccard" },
    preset: "paper-v8",
    custom_strategies: {},
    seed: 0,
    ...over,
  };
}

// Answers with a negated middle step, so lexical LS is below 1 while a checker saying "entailment" gives 1.
const text = (m: number, i: number, call: string) =>
  `Step one about item ${i}. Step one about item ${i} is not wrong. Run ${call} of model ${m}. The answer is ${items[i].answer}.`;

function samples(cfg: RqRunConfig, labelsFor: (m: number) => "ok" | "failed"): StoredSample[] {
  return reasoningQuality.plan(cfg).map((unitId) => {
    const [m, i, call] = unitId.split(":");
    const t = text(Number(m), Number(i), call);
    const pairs = stepPairs(storedTrace(splitSteps(t, "legacy_dot")));
    const ok = labelsFor(Number(m)) === "ok";
    const output: RqOutput = {
      model: cfg.models[Number(m)].name,
      item: Number(i),
      call,
      ok: true,
      text: t,
      output_tokens: 20,
      usage: null,
      error: null,
      ...(call === "p" && cfg.ls.method === "model"
        ? {
            nli: {
              labels: pairs.map(() => (ok ? "entailment" : null) as NliLabel | null),
              errors: ok ? [] : ["503"],
              calls: 1,
              failed_calls: ok ? 0 : 1,
              usage: { prompt_tokens: 0, completion_tokens: 0, total_tokens: 0 },
            },
          }
        : {}),
    };
    return { unitId, status: "succeeded", output, error: null };
  });
}

describe("one method per run", () => {
  it("LS: one model's failed checks put every model on the fallback, and say why", async () => {
    const cfg = config({
      ls: { method: "model", model: "judge", base_url: "http://e", batch_size: 16, timeout_s: 5, fallback: "lexical" },
    });
    const all = await aggregateRq(
      cfg,
      samples(cfg, () => "ok"),
    );
    expect(all.models.map((x) => x.extensions.ls_method)).toEqual(["model", "model", "model"]);
    expect(all.models.every((x) => x.raw_metrics.logical_coherence === 1)).toBe(true);

    const mixed = await aggregateRq(
      cfg,
      samples(cfg, (m) => (m === 1 ? "failed" : "ok")),
    );
    const lexical = await aggregateRq(
      config({}),
      samples(config({}), () => "ok"),
    );
    expect(mixed.models.map((x) => x.extensions.ls_method)).toEqual(["lexical", "lexical", "lexical"]);
    expect(mixed.models.map((x) => x.raw_metrics.logical_coherence)).toEqual(
      lexical.models.map((x) => x.raw_metrics.logical_coherence),
    );
    expect(mixed.models[0].raw_metrics.logical_coherence).toBeLessThan(1);
    expect(mixed.models[1].extensions.ls_fallback!.reason).toMatch(
      /^the contradiction checker failed on \d+ of \d+ step pairs$/,
    );
    expect(mixed.models[0].extensions.ls_fallback!.reason).toBe(
      `kept uniform with model 'B': ${mixed.models[1].extensions.ls_fallback!.reason}`,
    );
  });

  it("SS: after one model's embeddings fail, earlier models are rescored and later ones not asked", async () => {
    const cfg = config({
      ss: {
        method: "embeddings",
        model: "emb",
        base_url: "http://e",
        batch_size: 64,
        timeout_s: 5,
        dimensions: null,
        baseline: null,
        fallback: "jaccard",
      },
    });
    const asked: string[][] = [];
    let n = 0;
    const client: EmbeddingClient = {
      async embed(req) {
        asked.push(req.input);
        // Model A's one call succeeds, model B's fails.
        if (++n > 1) throw new Error("503 embeddings down");
        return { data: req.input.map(() => [1, 0]) };
      },
    };
    const ctx: AggregateContext = {
      canceled: false,
      signal: new AbortController().signal,
      embeddings: () => client,
      secret: () => undefined,
    };
    const got = await aggregateRq(
      cfg,
      samples(cfg, () => "ok"),
      ctx,
    );
    const jaccard = await aggregateRq(
      config({}),
      samples(config({}), () => "ok"),
    );
    expect(asked.length).toBe(2);
    expect(got.models.map((x) => x.extensions.ss_method)).toEqual(["jaccard", "jaccard", "jaccard"]);
    expect(got.models.map((x) => x.raw_metrics.stability)).toEqual(jaccard.models.map((x) => x.raw_metrics.stability));
    expect(got.models[1].extensions.ss_fallback).toEqual({ from: "embeddings", reason: "503 embeddings down" });
    for (const k of [0, 2])
      expect(got.models[k].extensions.ss_fallback).toEqual({
        from: "embeddings",
        reason: "kept uniform with model 'B': 503 embeddings down",
      });
    expect(got.models[0].backends.ss!.calls).toBe(1);
    expect(got.models[2].backends.ss!.calls).toBe(0);
  });
});
