import { describe, expect, it } from "vitest";
import {
  rpl,
  planRpl,
  providerModeOf,
  rplUnitId,
  type RplRunConfig,
  type RplOutput,
} from "../../../src/evaluators/rpl/index.ts";
import { promptBank, DEFAULT_RPL_PROMPT } from "../../../src/evaluators/rpl/prompts.ts";
import { evaluators } from "../../../src/evaluators/registry.ts";
import { storedSample, type SampleCache, type StoredSample, type UnitContext } from "../../../src/runs/plugin/types.ts";
import {
  composePrompt,
  planSampling,
  replicateIndices,
  runId,
  sampleCacheKey,
} from "../../../src/engines/rpl/index.ts";
import { ProviderError, createSimClient, type ChatClient, type ChatRequest } from "../../../src/providers/index.ts";

const bank = promptBank(DEFAULT_RPL_PROMPT);
const CLAIM = "Drinking coffee raises blood pressure in the short term";

async function configOf(over: Partial<RplRunConfig> & { model?: string } = {}): Promise<RplRunConfig> {
  const model = over.model ?? "sim:prior";
  const K = over.K ?? 5;
  const R = over.R ?? 2;
  const T = over.T === undefined ? 3 : over.T;
  const claim = over.claim ?? CLAIM;
  return {
    model,
    provider: model.startsWith("sim:") ? null : { base_url: "https://api.example.invalid/v1" },
    timeout_s: 30,
    seed: 11,
    simulator: null,
    claim,
    prompt_version: DEFAULT_RPL_PROMPT,
    prompt: bank,
    K,
    R,
    T,
    B: 200,
    bootstrap_seed: null,
    max_output_tokens: 1200,
    no_cache: false,
    plan: await planRpl({ claim, model, promptBank: bank, K, R, T }),
    ...over,
  };
}

/** An in-memory SampleCache that stores JSON text, like D1 does. */
function memoryCache(): SampleCache & { map: Map<string, string> } {
  const map = new Map<string, string>();
  return {
    map,
    async get(key) {
      const v = map.get(key);
      return v === undefined ? null : JSON.parse(v);
    },
    async put(key, value) {
      map.set(key, JSON.stringify(value));
    },
  };
}

type Calls = { n: number; salts: number[]; requests: ChatRequest[] };

/** Sim clients (or a scripted client) that count calls. */
function ctxOf(
  config: RplRunConfig,
  cache: SampleCache,
  script?: (req: ChatRequest, salt: number) => Promise<string> | string,
): UnitContext<RplRunConfig> & { calls: Calls } {
  const calls: Calls = { n: 0, salts: [], requests: [] };
  return {
    config,
    cache,
    calls,
    endpoint: () => {
      throw new Error("rpl calls only the config's model");
    },
    secret: () => undefined,
    chat(salt): ChatClient {
      const sim = createSimClient({
        model: config.model.startsWith("sim:") ? config.model : "sim:x",
        seed: config.seed ?? 0,
        replay: salt,
      });
      return {
        async chat(req, opts) {
          calls.n++;
          calls.salts.push(salt);
          calls.requests.push(req);
          if (!script) return sim.chat(req, opts);
          const content = await script(req, salt);
          return {
            id: `r-${calls.n}`,
            model: req.model,
            choices: [{ message: { role: "assistant", content }, finish_reason: "stop" }],
            usage: { prompt_tokens: 10, completion_tokens: 5, total_tokens: 15 },
          };
        },
      };
    },
  };
}

const signal = new AbortController().signal;

async function runAll(config: RplRunConfig, ctx: UnitContext<RplRunConfig>): Promise<StoredSample[]> {
  const out: StoredSample[] = [];
  for (const id of rpl.plan(config)) {
    const o = await rpl.execute(id, ctx, signal);
    // Round-trip through JSON text, as the platform stores outputs.
    out.push(
      storedSample(rpl as never, {
        unitId: id,
        status: o.status,
        output: JSON.stringify(o.output),
        error: o.error ?? null,
      }),
    );
  }
  return out;
}

const row = (s: StoredSample) => s.output as RplOutput;

describe("planRpl and plan", () => {
  it("follows the engine's sampling plan, with one unit per (slot, r) in slot-major order", async () => {
    const config = await configOf({ K: 5, R: 2, T: 3 });
    const sampling = await planSampling({
      claim: CLAIM,
      model: "sim:prior",
      promptVersionFull: bank.version,
      tBank: 16,
      T: 3,
      K: 5,
    });
    expect(config.plan.tpl_indices).toEqual(sampling.tpl_indices);
    expect(config.plan.seq).toEqual(sampling.seq);
    expect(config.plan.slots.map((s) => s.template_index)).toEqual(sampling.seq_bank);
    expect(config.plan.planned_counts).toEqual([2, 2, 1]);
    expect(config.plan.planned_imbalance_ratio).toBe(2);
    for (const s of config.plan.slots) {
      const p = await composePrompt({
        system: bank.system,
        userTemplate: bank.user_template,
        paraphrase: bank.paraphrases[s.template_index],
        claim: CLAIM,
        schema: bank.schema,
      });
      expect(s.prompt_sha256).toBe(p.prompt_sha256);
    }
    const reps = replicateIndices(
      config.plan.slots.map((s) => s.prompt_sha256),
      2,
    );
    expect(config.plan.slots.flatMap((s) => s.replicate_idx)).toEqual(reps.map((u) => u.replicate_idx));
    // Block layout [0,0,1,1,2]: a template's replicates are numbered 0..3 without gaps.
    expect(config.plan.slots.map((s) => s.replicate_idx)).toEqual([
      [0, 1],
      [2, 3],
      [0, 1],
      [2, 3],
      [0, 1],
    ]);
    expect(rpl.plan(config)).toEqual([
      "s0.r0",
      "s0.r1",
      "s1.r0",
      "s1.r1",
      "s2.r0",
      "s2.r1",
      "s3.r0",
      "s3.r1",
      "s4.r0",
      "s4.r1",
    ]);
    expect(config.plan.prompt_char_len_max).toBeGreaterThan(bank.system.length);
    expect(JSON.parse(JSON.stringify(config.plan))).toEqual(config.plan);
  });

  it("validates counts and clamps T like the engine", async () => {
    await expect(planRpl({ claim: "c", model: "m", promptBank: bank, K: 0, R: 1, T: null })).rejects.toThrow(
      RangeError,
    );
    await expect(planRpl({ claim: "c", model: "m", promptBank: bank, K: 2, R: 1.5, T: null })).rejects.toThrow(
      /R must be an integer/,
    );
    expect((await planRpl({ claim: "c", model: "m", promptBank: bank, K: 2, R: 1, T: 0 })).T_stage).toBe(1);
    expect((await planRpl({ claim: "c", model: "m", promptBank: bank, K: 16, R: 1, T: null })).T_stage).toBe(16);
  });

  it("is registered", () => {
    expect(evaluators.get("rpl")).toBe(rpl);
    expect(providerModeOf("sim:prior?latency_ms=5")).toBe("MOCK");
    expect(providerModeOf("gpt-4o-mini")).toBe("LIVE");
  });
});

describe("execute", () => {
  it("sends the engine's prompt, salts by replicate index, and caches every reply", async () => {
    const config = await configOf();
    const cache = memoryCache();
    const ctx = ctxOf(config, cache);
    const samples = await runAll(config, ctx);
    expect(ctx.calls.n).toBe(10);
    expect(ctx.calls.salts).toEqual(config.plan.slots.flatMap((s) => s.replicate_idx));
    const first = ctx.calls.requests[0];
    const p = await composePrompt({
      system: bank.system,
      userTemplate: bank.user_template,
      paraphrase: bank.paraphrases[config.plan.slots[0].template_index],
      claim: CLAIM,
      schema: bank.schema,
    });
    expect(first).toEqual({
      model: "sim:prior",
      messages: [
        { role: "system", content: p.instructions },
        { role: "user", content: p.user_text },
      ],
      max_tokens: 1200,
    });
    for (const s of samples) {
      expect(s.status).toBe("succeeded");
      const r = row(s);
      expect(r.json_valid).toBe(true);
      expect(r.cache_hit).toBe(false);
      expect(r.prob_true).toBeGreaterThan(0);
      expect(r.logit).toBeCloseTo(Math.log(r.prob_true! / (1 - r.prob_true!)), 12);
    }
    const r0 = row(samples[3]);
    expect(r0).toMatchObject({
      slot: 1,
      r: 1,
      paraphrase_idx: config.plan.slots[1].template_index,
      replicate_idx: 3,
      prompt_sha256: config.plan.slots[1].prompt_sha256,
    });
    expect(r0.cache_key).toBe(
      await sampleCacheKey({
        claim: CLAIM,
        model: "sim:prior",
        promptVersionFull: bank.version,
        promptSha256: r0.prompt_sha256,
        replicateIdx: 3,
        maxOutputTokens: 1200,
        providerMode: "MOCK",
      }),
    );
    expect(cache.map.size).toBe(10);

    // Second pass: every unit is a cache hit and no model is called.
    const again = ctxOf(config, cache);
    const second = await runAll(config, again);
    expect(again.calls.n).toBe(0);
    for (const [i, s] of second.entries()) {
      expect(row(s).cache_hit).toBe(true);
      expect({ ...row(s), cache_hit: false }).toEqual(row(samples[i]));
    }
    const agg = (await rpl.aggregate(config, second)) as any;
    expect(agg.aggregates.cache_hit_rate).toBe(1);
    expect(agg.aggregates.rpl_compliance_rate).toBe(1);

    // no_cache: neither reads nor writes.
    const fresh = memoryCache();
    const noCache = { ...config, no_cache: true };
    const nc = ctxOf(noCache, fresh);
    await runAll(noCache, nc);
    expect(nc.calls.n).toBe(10);
    expect(fresh.map.size).toBe(0);
    const nc2 = ctxOf(noCache, cache);
    await runAll(noCache, nc2);
    expect(nc2.calls.n).toBe(10);
  });

  it("keys the cache by max tokens and provider mode", async () => {
    const cache = memoryCache();
    const a = await configOf();
    await runAll(a, ctxOf(a, cache));
    const b = { ...a, max_output_tokens: 1024 };
    const ctxB = ctxOf(b, cache);
    await runAll(b, ctxB);
    expect(ctxB.calls.n).toBe(10);
    const live = await configOf({ model: "gpt-4o-mini" });
    const ctxLive = ctxOf(live, memoryCache(), () => JSON.stringify({ prob_true: 0.4 }));
    const s = await runAll(live, ctxLive);
    expect(row(s[0]).cache_key).toBe(
      await sampleCacheKey({
        claim: CLAIM,
        model: "gpt-4o-mini",
        promptVersionFull: bank.version,
        promptSha256: row(s[0]).prompt_sha256,
        replicateIdx: 0,
        maxOutputTokens: 1200,
        providerMode: "LIVE",
      }),
    );
  });

  it("keeps non-compliant replies as invalid samples, and caches them", async () => {
    const replies = [
      "The probability is about 0.7.",
      JSON.stringify({ prob_true: 1.3 }),
      JSON.stringify({ prob_true: "0.6" }),
      JSON.stringify({ prob_true: 0.6, reasoning_bullets: ["see https://example.org/study"] }),
      "",
      '```json\n{"prob_true": 0.5}\n```',
      JSON.stringify({ confidence_self: 0.5 }),
      JSON.stringify([0.5]),
      JSON.stringify({ prob_true: true }),
      JSON.stringify({ prob_true: 0.55, confidence_self: 0.6 }),
    ];
    const config = await configOf();
    const cache = memoryCache();
    let i = 0;
    const ctx = ctxOf(config, cache, () => replies[i++]);
    const samples = await runAll(config, ctx);
    const got = samples.map((s) => [s.status, row(s).invalid_reason, row(s).prob_true, row(s).json_valid]);
    expect(got).toEqual([
      ["failed", "unparsable", null, false],
      ["failed", "prob_true_out_of_range", null, false],
      ["failed", "prob_true_not_number", null, false],
      ["failed", "contains_url", 0.6, false],
      ["failed", "unparsable", null, false],
      ["failed", "unparsable", null, false],
      ["failed", "missing_prob_true", null, false],
      ["failed", "not_object", null, false],
      ["failed", "prob_true_not_number", null, false],
      ["succeeded", null, 0.55, true],
    ]);
    expect(samples[0].error).toBe("invalid answer: unparsable");
    expect(row(samples[0]).response_text).toBe("The probability is about 0.7.");
    expect(row(samples[1]).response_text).toBeUndefined();
    expect(row(samples[1]).raw).toEqual({ prob_true: 1.3 });
    expect(row(samples[1]).logit).toBeNull();
    expect(row(samples[9]).provider_model_id).toBe("sim:prior");
    expect(row(samples[9]).tokens_out).toBe(5);
    expect(cache.map.size).toBe(10);

    // A cached invalid sample is reused as is.
    const again = ctxOf(config, cache, () => JSON.stringify({ prob_true: 0.5 }));
    const second = await runAll(config, again);
    expect(again.calls.n).toBe(0);
    expect(second.map((s) => s.status)).toEqual(samples.map((s) => s.status));
    expect(second[0].error).toBe("invalid answer: unparsable");

    // 1 valid of 10: aggregation fails with the engine's RangeError, naming the reasons.
    const err: any = await (rpl.aggregate(config, samples) as Promise<unknown>).catch((e) => e);
    expect(err).toBeInstanceOf(RangeError);
    expect(err.message).toMatch(/need at least 3 valid samples to aggregate, got 1 of 10 attempted/);
    expect(err.message).toMatch(/unparsable ×3/);
  });

  it("turns a failed model call into an invalid, uncached sample, and rethrows other errors", async () => {
    const config = await configOf();
    const cache = memoryCache();
    const ids = rpl.plan(config);
    const failing = ctxOf(config, cache, () => {
      throw new ProviderError({
        name: "RateLimitError",
        kind: "rate_limit",
        message: "429 Too Many Requests",
        status: 429,
      });
    });
    const o = await rpl.execute(ids[2], failing, signal);
    expect(o.status).toBe("failed");
    expect(o.error).toBe("RateLimitError: 429 Too Many Requests");
    expect(o.output).toMatchObject({
      slot: 1,
      r: 0,
      json_valid: false,
      invalid_reason: "provider_error",
      prob_true: null,
      logit: null,
      cache_hit: false,
      error: "RateLimitError: 429 Too Many Requests",
    });
    expect(cache.map.size).toBe(0);
    const timeout = ctxOf(config, cache, () => {
      throw new ProviderError({ name: "APITimeoutError", kind: "timeout", message: "Request timed out." });
    });
    expect((await rpl.execute(ids[0], timeout, signal)).error).toBe("APITimeoutError: Request timed out.");
    expect(cache.map.size).toBe(0);
    // The next attempt reaches the model again.
    const ok = ctxOf(config, cache);
    expect((await rpl.execute(ids[2], ok, signal)).status).toBe("succeeded");
    expect(ok.calls.n).toBe(1);

    const bug = ctxOf(config, cache, () => {
      throw new TypeError("boom");
    });
    await expect(rpl.execute(ids[1], bug, signal)).rejects.toThrow("boom");
    const aborted = new AbortController();
    aborted.abort();
    await expect(rpl.execute(ids[3], failing, aborted.signal)).rejects.toThrow(ProviderError);
    await expect(rpl.execute("q0.r0", ok, signal)).rejects.toThrow(/bad unit id/);
    await expect(rpl.execute("s9.r0", ok, signal)).rejects.toThrow(/not in the run's plan/);
  });

  it("ignores a malformed cache entry", async () => {
    const config = await configOf();
    const cache = memoryCache();
    const ctx = ctxOf(config, cache);
    const id = rpl.plan(config)[0];
    await rpl.execute(id, ctx, signal);
    const [key] = [...cache.map.keys()];
    cache.map.set(key, JSON.stringify({ nonsense: true }));
    const again = ctxOf(config, cache);
    const o = await rpl.execute(id, again, signal);
    expect(again.calls.n).toBe(1);
    expect((o.output as RplOutput).cache_hit).toBe(false);
  });
});

describe("aggregate", () => {
  it("reports the original's aggregates, metadata, rates and diagnostics", async () => {
    const config = await configOf({ K: 8, R: 2, T: 4, B: 500 });
    const cache = memoryCache();
    // Warm the cache for the first two units only.
    const warm = ctxOf(config, cache);
    for (const id of rpl.plan(config).slice(0, 2)) await rpl.execute(id, warm, signal);
    let n = 0;
    const ctx = ctxOf(config, cache);
    const samples = await runAll(config, ctx);
    expect(ctx.calls.n).toBe(14);
    // Make three replies invalid after the fact (as a scripted endpoint would).
    for (const s of samples.slice(4, 7)) {
      Object.assign(s.output as RplOutput, {
        json_valid: false,
        prob_true: null,
        logit: null,
        invalid_reason: "unparsable",
      });
      n++;
    }
    const agg = (await rpl.aggregate(config, samples)) as any;
    expect(agg.run_id).toBe(
      await runId({ claim: CLAIM, model: "sim:prior", promptVersionFull: bank.version, K: 8, R: 2 }),
    );
    expect(agg.prompt_version).toBe(bank.version);
    expect(agg.prompt_version_name).toBe("rpl-assay-v1");
    expect(agg.sampling).toEqual({ K: 8, R: 2, T: 4 });
    expect(agg.aggregates.rpl_compliance_rate).toBeCloseTo(13 / 16, 15);
    expect(agg.aggregates.cache_hit_rate).toBe(2 / 16);
    expect(agg.aggregates.prob_true_rpl).toBeGreaterThan(0);
    expect(agg.aggregates.ci95[0]).toBeLessThanOrEqual(agg.aggregates.prob_true_rpl);
    expect(agg.aggregates.ci95[1]).toBeGreaterThanOrEqual(agg.aggregates.prob_true_rpl);
    expect(agg.aggregation).toMatchObject({
      method: "equal_by_template_cluster_bootstrap_trimmed",
      B: 500,
      center: "trimmed",
      trim: 0.2,
      n_templates: 4,
    });
    expect(agg.aggregation.bootstrap_seed).toMatch(/^\d+$/);
    expect(Object.values(agg.aggregation.counts_by_template).reduce((a: number, b: any) => a + b, 0)).toBe(13);
    expect(agg.diagnostics).toMatchObject({
      attempted: 16,
      valid_count: 13,
      cache_hits: 2,
      planned_units: 16,
      invalid_reasons: { unparsable: n },
    });
    expect(agg.quality.pqs_version).toBe("v1");
    expect(agg.plan.tpl_indices).toEqual(config.plan.tpl_indices);
    expect(JSON.parse(JSON.stringify(agg))).toEqual(agg);

    // Completion order does not matter: samples are put back in plan order.
    const shuffled = [...samples].reverse();
    expect(await rpl.aggregate(config, shuffled)).toEqual(agg);
    // An explicit seed is used as given.
    const seeded = (await rpl.aggregate({ ...config, bootstrap_seed: "18446744073709551615" }, samples)) as any;
    expect(seeded.aggregation.bootstrap_seed).toBe("18446744073709551615");
  });

  it("throws when fewer than 3 samples are valid, naming the first error", async () => {
    const config = await configOf({ K: 2, R: 2, T: 2 });
    const ctx = ctxOf(config, memoryCache(), (_req, salt) => {
      if (salt === 0) return JSON.stringify({ prob_true: 0.3 });
      throw new ProviderError({ name: "APIConnectionError", kind: "connection", message: "Connection error." });
    });
    const samples = await runAll(config, ctx);
    expect(samples.filter((s) => s.status === "succeeded")).toHaveLength(2);
    await expect(rpl.aggregate(config, samples) as Promise<unknown>).rejects.toThrow(
      /got 2 of 4 attempted \(invalid: provider_error ×2\); first error: APIConnectionError: Connection error\./,
    );
  });

  it("failureOutput and exportLine give the usual sample shape", async () => {
    const config = await configOf();
    const out = rpl.failureOutput(config, rplUnitId(2, 1), "attempts exhausted") as RplOutput;
    expect(out).toMatchObject({
      slot: 2,
      r: 1,
      json_valid: false,
      invalid_reason: "unit_failed",
      error: "attempts exhausted",
      cache_key: null,
      prompt_sha256: config.plan.slots[2].prompt_sha256,
      replicate_idx: config.plan.slots[2].replicate_idx[1],
    });
    const s: StoredSample = { unitId: "s2.r1", status: "failed", output: out, error: "attempts exhausted" };
    expect(rpl.exportLine(s)).toBe(out);
    expect(rpl.parseOutput(JSON.stringify(out))).toEqual(out);
  });
});
