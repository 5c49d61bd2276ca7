import {
  buildRecord,
  effectiveWeights,
  evaluateRecords,
  METRIC_KEYS,
  OWN_WORDING_NOTE,
  mergeStrategies,
  resolveWeightTable,
  type BackendFallback,
  type CallOutcome,
  type EvaluationResult,
  type LsBackend,
  type SsBackend,
} from "../../engines/reasoning-quality/index.ts";
import { addUsage, emptyUsage } from "../usage.ts";
import type { AggregateContext, StoredSample } from "../types.ts";
import { embedFn, embeddingClient, SS_SECRET, type EmbeddingStats } from "./backends.ts";
import type { RqModelResult, RqResult } from "./schemas.ts";
import { plansOf, type RqConfig, type RqOutput } from "./units.ts";

/** Competition ranking ("1224") of the models under one strategy, best first. */
function rank(scores: { model: string; q: number }[]): { model: string; q: number; rank: number }[] {
  const sorted = [...scores].sort((a, b) => b.q - a.q);
  return sorted.map((s) => ({ ...s, rank: 1 + sorted.findIndex((t) => t.q === s.q) }));
}

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
export async function aggregateRq(config: RqConfig, samples: readonly StoredSample[], ctx?: AggregateContext): Promise<RqResult> {
  const byUnit = new Map(samples.map((s) => [s.unitId, s.output as RqOutput | null]));
  const table = mergeStrategies(resolveWeightTable(config.preset), config.custom_strategies);
  const outcome = (o: RqOutput | null | undefined): CallOutcome | undefined =>
    !o ? undefined : o.ok ? { ok: true, text: o.text ?? "", output_tokens: o.output_tokens } : { ok: false, error: o.error ?? "failed" };

  const inputs = config.models.map((model, m) => {
    const calls = { planned: 0, made: 0, failed: 0, missing: 0 };
    const usage = emptyUsage();
    const records = plansOf(config).map((plan, i) => {
      const get = (key: string) => {
        calls.planned++;
        const o = byUnit.get(`${m}:${i}:${key}`);
        if (!o) calls.missing++;
        else {
          calls.made++;
          if (!o.ok) calls.failed++;
          addUsage(usage, o.usage);
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
    metric_keys: [...METRIC_KEYS],
  };
}

/** Model m's LS backend: for the `model` method, the labels its primary units recorded, and their cost. */
function lsOf(config: RqConfig, m: number, byUnit: ReadonlyMap<string, RqOutput | null>): { ls: LsBackend; stats: RqModelResult["backends"]["ls"] } {
  const ls = config.ls;
  if (ls.method !== "model") return { ls, stats: null };
  const checks = config.items.map((_, i) => byUnit.get(`${m}:${i}:p`)?.nli ?? null);
  const stats = { model: ls.model, calls: 0, failed_calls: 0, usage: emptyUsage(), first_error: null as string | null };
  for (const c of checks) {
    if (!c) continue;
    stats.calls += c.calls;
    stats.failed_calls += c.failed_calls;
    addUsage(stats.usage, c.usage);
    stats.first_error ??= c.errors[0] ?? null;
  }
  return { ls: { method: "model", labels: checks.map((c) => c?.labels ?? null), fallback: ls.fallback, name: ls.model }, stats };
}

function ssFallbackOf(config: RqConfig): SsBackend {
  return config.ss.method === "embeddings" ? { method: config.ss.fallback } : config.ss;
}

