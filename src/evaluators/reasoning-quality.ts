/**
 * reasoning-quality on the run platform: every generation is a unit (model × item × call: the primary
 * run, runs 2..K, and one call per usable perturbation slot). The aggregate rebuilds each item's record
 * from its samples with the engine's failure policy and computes the six metrics, the per-dataset
 * breakdown and Q under every strategy, per model (src/engines/reasoning-quality).
 *
 * The calls of an item run in parallel, so when the primary fails its further runs may still have been
 * made; the record then ignores them, exactly as if they had been skipped (fixed denominators, spec §1.4).
 *
 * Model-backed LS and SS (rq-backends.ts): the primary unit also asks the contradiction checker about its
 * own trace and records the labels; SS embeddings are fetched by the aggregate, which has every trace.
 */
import {
  buildRecord,
  effectiveWeights,
  evaluateRecords,
  OWN_WORDING_NOTE,
  mergeStrategies,
  planItem,
  resolveWeightTable,
  splitSteps,
  stepPairs,
  storedTrace,
  type CallOutcome,
  type BackendFallback,
  type EvalItem,
  type EvaluationResult,
  type ItemPlan,
  type LsBackend,
  type PresetVersion,
  type RawMetrics,
  type SsBackend,
} from "../engines/reasoning-quality/index.ts";
import { createSimClient, defaultResponders, reasonerResponder, type ChatClient, type Usage } from "../providers/index.ts";
import type { AggregateContext, Evaluator, StoredSample, UnitOutcome } from "./types.ts";
import { checkerClient, checkPairs, embedFn, embeddingClient, LS_SECRET, SS_SECRET, type CheckerRecord, type EmbeddingStats, type RqLs, type RqSs } from "./rq-backends.ts";

export type RqModel = {
  /** Unique in the run; the result's `model`. */
  name: string;
  model: string;
  base_url: string | null;
  temperature: number;
  max_tokens: number;
  timeout_s: number;
  simulator: { accuracy: number; verbosity: number; variation: number; latency_ms: number } | null;
};

export type RqConfig = {
  models: RqModel[];
  items: (EvalItem & { id: string })[];
  /** Ids of generated synthetic items whose free-text gold is our wording (see goldInOurWords); absent in older runs. */
  own_wording_golds?: string[];
  metrics: { consistency_runs: number; stability_runs: number; robustness_perturbations: number };
  matcher: "canonical" | "legacy7";
  ls: RqLs;
  ss: RqSs;
  preset: PresetVersion;
  /** Extra strategies: name → weights over the six metrics (auto-normalised). */
  custom_strategies: Record<string, Record<string, number>>;
  seed: number;
};

export type RqOutput = {
  model: string;
  item: number;
  call: string;
  ok: boolean;
  text: string | null;
  output_tokens: number | null;
  usage: Usage | null;
  error: string | null;
  /** The primary run only, under the LS `model` backend: the checker's labels for this trace. */
  nli?: CheckerRecord;
};

/** The name of model m's API key among the run's secrets. */
export const modelSecret = (m: number): string => `model:${m}`;

// Call keys: "p" the primary, "r<run>" a further run (2..K), "x<slot>" a perturbation slot.
const callKeys = (plan: ItemPlan): { key: string; prompt: string }[] => [
  { key: "p", prompt: plan.primary.prompt },
  ...plan.extras.map((c) => ({ key: `r${c.run}`, prompt: c.prompt })),
  ...plan.perturbations.flatMap((c) => (c ? [{ key: `x${c.slot}`, prompt: c.prompt }] : [])),
];

const plans = new WeakMap<RqConfig, ItemPlan[]>();
function plansOf(config: RqConfig): ItemPlan[] {
  let p = plans.get(config);
  if (!p) plans.set(config, (p = config.items.map((item, i) => planItem(item, i, { metrics: config.metrics }))));
  return p;
}

function parseUnit(id: string): { m: number; i: number; call: string } {
  const match = /^(\d+):(\d+):(p|r\d+|x\d+)$/.exec(id);
  if (!match) throw new Error(`reasoning-quality: bad unit id '${id}'`);
  return { m: Number(match[1]), i: Number(match[2]), call: match[3] };
}

export const reasoningQuality: Evaluator<RqConfig> = {
  name: "reasoning-quality",

  plan(config) {
    const plan = plansOf(config);
    return config.models.flatMap((_, m) => plan.flatMap((p, i) => callKeys(p).map((c) => `${m}:${i}:${c.key}`)));
  },

  async execute(id, ctx, signal): Promise<UnitOutcome> {
    const { m, i, call } = parseUnit(id);
    const { config } = ctx;
    const model = config.models[m];
    const item = config.items[i];
    const prompt = callKeys(plansOf(config)[i]).find((c) => c.key === call)!.prompt;
    const client: ChatClient = model.simulator
      ? createSimClient({
          model: model.model,
          seed: config.seed,
          latencyMs: model.simulator.latency_ms,
          responders: [
            reasonerResponder({ model: model.name, item: String(i), gold: item.answer, call: call === "p" ? 0 : 1 + callKeys(plansOf(config)[i]).findIndex((c) => c.key === call), ...model.simulator }),
            ...defaultResponders,
          ],
        })
      : ctx.endpoint({ baseUrl: model.base_url!, apiKey: ctx.secret(modelSecret(m)), timeoutMs: model.timeout_s * 1000 });
    const base = { model: model.name, item: i, call };
    try {
      // The raw question as one user message, no system prompt (spec §1.1).
      const res = await client.chat({ model: model.model, messages: [{ role: "user", content: prompt }], temperature: model.temperature, max_tokens: model.max_tokens }, { signal });
      const text = res.choices?.[0]?.message?.content;
      if (typeof text !== "string") throw new Error("the response has no choices[0].message.content");
      const output: RqOutput = { ...base, ok: true, text, output_tokens: res.usage?.completion_tokens ?? null, usage: res.usage ?? null, error: null };
      const ls = config.ls;
      if (call === "p" && ls.method === "model") {
        // The same steps the aggregate's record will hold (buildRecord's default rule).
        const pairs = stepPairs(storedTrace(splitSteps(text, "legacy_dot")));
        const endpoint = () => ctx.endpoint({ baseUrl: ls.base_url!, apiKey: ctx.secret(LS_SECRET), timeoutMs: ls.timeout_s * 1000 });
        if (pairs.length > 0) output.nli = await checkPairs(pairs, ls, checkerClient(ls, config.seed, endpoint), signal);
      }
      return { status: "succeeded", output };
    } catch (err) {
      const error = err instanceof Error ? `${err.name}: ${err.message}` : String(err);
      return { status: "failed", output: { ...base, ok: false, text: null, output_tokens: null, usage: null, error } satisfies RqOutput, error };
    }
  },

  aggregate(config, samples, ctx) {
    return aggregateRq(config, samples, ctx);
  },

  parseOutput: (text) => JSON.parse(text),

  failureOutput(config, id, error): RqOutput {
    const { m, i, call } = parseUnit(id);
    return { model: config.models[m].name, item: i, call, ok: false, text: null, output_tokens: null, usage: null, error };
  },

  exportLine(sample) {
    return sample.output;
  },
};

/** Competition ranking ("1224") of the models under one strategy, best first. */
function rank(scores: { model: string; q: number }[]): { model: string; q: number; rank: number }[] {
  const sorted = [...scores].sort((a, b) => b.q - a.q);
  return sorted.map((s) => ({ ...s, rank: 1 + sorted.findIndex((t) => t.q === s.q) }));
}

export type RqModelResult = {
  model: string;
  raw_metrics: RawMetrics;
  aggregated: Record<string, number>;
  per_dataset: Record<string, { raw_metrics: RawMetrics; aggregated: Record<string, number>; num_samples: number }>;
  metadata: { num_samples: number; consistency_runs: number; stability_runs: number; robustness_perturbations: number; datasets: string[] };
  extensions: EvaluationResult["extensions"];
  calls: { planned: number; made: number; failed: number; missing: number };
  usage: { prompt_tokens: number; completion_tokens: number; total_tokens: number };
  generation_failed: number;
  /** Calls made by the model-backed LS / SS backends (null for the others). */
  backends: {
    ls: { model: string; calls: number; failed_calls: number; usage: Usage; first_error: string | null } | null;
    ss: { model: string; calls: number; texts: number; usage: EmbeddingStats["usage"] } | null;
  };
};

function ssBackend(config: RqConfig, stats: EmbeddingStats, ctx: AggregateContext | undefined): SsBackend {
  const ss = config.ss;
  if (ss.method !== "embeddings") return ss;
  const unavailable = ctx?.canceled ? "the run was canceled, and no model call is made after cancel" : !ctx ? "no model access outside a run" : null;
  const embed = unavailable
    ? async (): Promise<number[][]> => {
        throw new Error(unavailable);
      }
    : embedFn(ss, embeddingClient(ss, () => ctx!.embeddings({ baseUrl: ss.base_url!, apiKey: ctx!.secret(SS_SECRET), timeoutMs: ss.timeout_s * 1000 })), stats, ctx!.signal);
  return { method: "embeddings", embed, batchSize: ss.batch_size, fallback: ss.fallback, name: ss.model, ...(ss.baseline !== null ? { baseline: ss.baseline } : {}) };
}

/**
 * Every model of a run is scored by one LS method and one SS method, so they can be ranked (spec §7,
 * §11: figures of different methods are not comparable). When a model's checker or embeddings fail and
 * its fallback applies, the other models take the same fallback, told so in their `ls_fallback` /
 * `ss_fallback`; once one model's embeddings fail, the rest are not asked for any.
 */
export async function aggregateRq(config: RqConfig, samples: readonly StoredSample[], ctx?: AggregateContext) {
  const byUnit = new Map(samples.map((s) => [s.unitId, s.output as RqOutput | null]));
  const table = mergeStrategies(resolveWeightTable(config.preset), config.custom_strategies);
  const outcome = (o: RqOutput | null | undefined): CallOutcome | undefined =>
    !o ? undefined : o.ok ? { ok: true, text: o.text ?? "", output_tokens: o.output_tokens } : { ok: false, error: o.error ?? "failed" };

  const inputs = config.models.map((model, m) => {
    const calls = { planned: 0, made: 0, failed: 0, missing: 0 };
    const usage = { prompt_tokens: 0, completion_tokens: 0, total_tokens: 0 };
    const records = plansOf(config).map((plan, i) => {
      const get = (key: string) => {
        calls.planned++;
        const o = byUnit.get(`${m}:${i}:${key}`);
        if (!o) calls.missing++;
        else {
          calls.made++;
          if (!o.ok) calls.failed++;
          usage.prompt_tokens += o.usage?.prompt_tokens ?? 0;
          usage.completion_tokens += o.usage?.completion_tokens ?? 0;
          usage.total_tokens += o.usage?.total_tokens ?? 0;
        }
        return outcome(o);
      };
      // A unit that never ran (a canceled run) counts as a failed call.
      const primary = get("p") ?? { ok: false as const, error: "not run" };
      const extras = plan.extras.map((c) => get(`r${c.run}`));
      const perturbations = plan.perturbations.map((c) => (c ? get(`x${c.slot}`) : null));
      return buildRecord(config.items[i], plan, { primary, extras, perturbations }, { metrics: config.metrics });
    });
    const { ls, stats: lsStats } = lsOf(config, m, byUnit);
    const ssStats: EmbeddingStats = { calls: 0, texts: 0, usage: { prompt_tokens: 0, total_tokens: 0 } };
    return { model, records, calls, usage, ls, lsStats, ssStats };
  });
  const evaluate = (x: (typeof inputs)[number], ls: LsBackend, ss: SsBackend) =>
    evaluateRecords(x.records, { metrics: config.metrics, matcher: config.matcher, ls, ss, weights: table });

  // LS: the recorded labels decide each model's method without any call; one fallback makes all fall back.
  const lsMethods: { ls_fallback?: BackendFallback; ls_failed_pairs: number }[] =
    config.ls.method === "model" ? await Promise.all(inputs.map(async (x) => (await evaluate(x, x.ls, { method: "none" })).extensions)) : inputs.map(() => ({ ls_failed_pairs: 0 }));
  const lsFell = inputs.findIndex((_, k) => lsMethods[k].ls_fallback);
  if (lsFell >= 0 && config.ls.method === "model") {
    const why = `kept uniform with model '${inputs[lsFell].model.name}': ${lsMethods[lsFell].ls_fallback!.reason}`;
    inputs.forEach((x, k) => {
      if (!lsMethods[k].ls_fallback) x.ls = { method: (config.ls as { fallback: "lexical" | "none" }).fallback };
    });
    lsMethods.forEach((e, k) => (e.ls_fallback ??= { from: "model", reason: why }));
  }

  // SS: the embeddings are asked for model by model; after a failure the rest use the fallback at once.
  const results: EvaluationResult[] = [];
  let ssFell: { model: string; reason: string } | null = null;
  for (const x of inputs) {
    const backend = ssFell ? ssFallbackOf(config) : ssBackend(config, x.ssStats, ctx);
    const r = await evaluate(x, x.ls, backend);
    if (ssFell) r.extensions.ss_fallback = { from: "embeddings", reason: `kept uniform with model '${ssFell.model}': ${ssFell.reason}` };
    else if (r.extensions.ss_fallback) ssFell = { model: x.model.name, reason: r.extensions.ss_fallback.reason };
    results.push(r);
  }
  if (ssFell) {
    for (const [k, x] of inputs.entries()) {
      if (results[k].extensions.ss_fallback) continue;
      results[k] = await evaluate(x, x.ls, ssFallbackOf(config));
      results[k].extensions.ss_fallback = { from: "embeddings", reason: `kept uniform with model '${ssFell.model}': ${ssFell.reason}` };
    }
  }

  // Synthetic items whose golds are in our words (the same for every model): said in every model's extensions.
  const ownWording = config.own_wording_golds ?? [];
  const models: RqModelResult[] = inputs.map((x, k) => {
    const result = results[k];
    return {
      model: x.model.name,
      raw_metrics: result.raw_metrics,
      aggregated: result.aggregated,
      per_dataset: result.per_dataset,
      metadata: result.metadata,
      extensions: {
        ...result.extensions,
        ...(lsMethods[k].ls_fallback ? { ls_fallback: lsMethods[k].ls_fallback } : {}),
        ls_failed_pairs: lsMethods[k].ls_failed_pairs,
        preset_version: config.preset,
        ...(ownWording.length ? { synthetic_golds: { own_wording: ownWording, note: OWN_WORDING_NOTE } } : {}),
      },
      calls: x.calls,
      usage: x.usage,
      generation_failed: x.records.filter((r) => r.generation_failed).length,
      backends: { ls: x.lsStats, ss: config.ss.method === "embeddings" ? { model: config.ss.model, ...x.ssStats } : null },
    };
  });
  const strategies = Object.keys(table);
  const rankings = Object.fromEntries(strategies.map((s) => [s, rank(models.map((x) => ({ model: x.model, q: x.aggregated[s] })))]));
  return {
    models,
    rankings,
    strategies: Object.fromEntries(strategies.map((s) => [s, effectiveWeights(table[s])])),
    metric_keys: ["correctness", "consistency", "robustness", "logical_coherence", "efficiency", "stability"] satisfies (keyof RawMetrics)[],
  };
}

/** Model m's LS backend: for the `model` method, the labels its primary units recorded, and their cost. */
function lsOf(config: RqConfig, m: number, byUnit: ReadonlyMap<string, RqOutput | null>): { ls: LsBackend; stats: RqModelResult["backends"]["ls"] } {
  const ls = config.ls;
  if (ls.method !== "model") return { ls, stats: null };
  const checks = config.items.map((_, i) => byUnit.get(`${m}:${i}:p`)?.nli ?? null);
  const stats = { model: ls.model, calls: 0, failed_calls: 0, usage: { prompt_tokens: 0, completion_tokens: 0, total_tokens: 0 }, first_error: null as string | null };
  for (const c of checks) {
    if (!c) continue;
    stats.calls += c.calls;
    stats.failed_calls += c.failed_calls;
    stats.usage.prompt_tokens += c.usage.prompt_tokens;
    stats.usage.completion_tokens += c.usage.completion_tokens;
    stats.usage.total_tokens += c.usage.total_tokens;
    stats.first_error ??= c.errors[0] ?? null;
  }
  return { ls: { method: "model", labels: checks.map((c) => c?.labels ?? null), fallback: ls.fallback, name: ls.model }, stats };
}

function ssFallbackOf(config: RqConfig): SsBackend {
  return config.ss.method === "embeddings" ? { method: config.ss.fallback } : config.ss;
}

export type RqResult = Awaited<ReturnType<typeof aggregateRq>>;
