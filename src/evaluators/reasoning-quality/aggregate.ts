import {
  effectiveWeights,
  METRIC_KEYS,
  OWN_WORDING_NOTE,
  mergeStrategies,
  resolveWeightTable,
  type BackendFallback,
  type EvaluationResult,
  type LsBackend,
  type SsBackend,
} from "../../engines/reasoning-quality/index.ts";
import type { AggregateContext, StoredSample } from "../../runs/plugin/types.ts";
import { evaluateKept, keepItem, keptModel, type KeptItem, type KeptModel } from "./aggregate-items.ts";
import { embedFn, embeddingClient, SS_SECRET, type EmbeddingStats } from "./backends.ts";
import type { RqModelResult, RqOutput, RqResult } from "./schemas.ts";
import { callKeys, plansOf, type RqRunConfig } from "./units.ts";

/** Competition ranking ("1224") of the models under one strategy, best first. */
function rank(scores: { model: string; q: number }[]): { model: string; q: number; rank: number }[] {
  const sorted = [...scores].sort((a, b) => b.q - a.q);
  return sorted.map((s) => ({ ...s, rank: 1 + sorted.findIndex((t) => t.q === s.q) }));
}

function ssBackend(config: RqRunConfig, stats: EmbeddingStats, ctx: AggregateContext | undefined): SsBackend {
  const ss = config.ss;
  if (ss.method !== "embeddings") return ss;
  const unavailable = ctx?.canceled
    ? "the run was canceled, and no model call is made after cancel"
    : !ctx
      ? "no model access outside a run"
      : null;
  const embed = unavailable
    ? async (): Promise<number[][]> => {
        throw new Error(unavailable);
      }
    : embedFn(
        ss,
        embeddingClient(ss, () =>
          ctx!.embeddings({ baseUrl: ss.base_url!, apiKey: ctx!.secret(SS_SECRET), timeoutMs: ss.timeout_s * 1000 }),
        ),
        stats,
        ctx!.signal,
      );
  return {
    method: "embeddings",
    embed,
    batchSize: ss.batch_size,
    fallback: ss.fallback,
    name: ss.model,
    ...(ss.baseline !== null ? { baseline: ss.baseline } : {}),
  };
}

/** A unit id, "model:item:call" (units.ts); others are not this run's and are left out, as before. */
const UNIT_ID = /^(\d+):(\d+):(p|r\d+|x\d+)$/;

/**
 * Reads the samples once, reducing each item of each model to its scores as soon as its calls are all
 * read (aggregate-items.ts). Units are dispatched in plan order, where an item's calls are adjacent, so
 * in recorded order they end close together: the outputs held are those of the items still open (about
 * as many as the run's concurrency), never the run's. Items with calls never run are reduced at the end.
 */
export async function keepAll(config: RqRunConfig, samples: Iterable<StoredSample>): Promise<KeptModel[]> {
  const kept = config.models.map(() => keptModel(config));
  const planned = plansOf(config).map((plan) => new Set(callKeys(plan).map((c) => c.key)));
  const open = new Map<string, Map<string, RqOutput | null>>();
  for (const s of samples) {
    const id = UNIT_ID.exec(s.unitId);
    if (!id) continue;
    const [m, i, call] = [Number(id[1]), Number(id[2]), id[3]];
    if (m >= kept.length || i >= planned.length || !planned[i].has(call) || kept[m].items[i]) continue;
    const key = `${m}:${i}`;
    let outputs = open.get(key);
    if (!outputs) open.set(key, (outputs = new Map()));
    outputs.set(call, s.output as RqOutput | null);
    if (outputs.size === planned[i].size) {
      open.delete(key);
      await keepItem(config, kept[m], i, outputs);
    }
  }
  for (const [m, model] of kept.entries()) {
    for (let i = 0; i < planned.length; i++)
      if (!model.items[i]) await keepItem(config, model, i, open.get(`${m}:${i}`) ?? new Map());
  }
  return kept;
}

/**
 * Every model of a run is scored by one LS method and one SS method, so they can be ranked (spec §7,
 * §11: figures of different methods are not comparable). When a model's checker or embeddings fail and
 * its fallback applies, the other models take the same fallback, told so in their `ls_fallback` /
 * `ss_fallback`; once one model's embeddings fail, the rest are not asked for any.
 */
export async function aggregateRq(
  config: RqRunConfig,
  samples: Iterable<StoredSample>,
  ctx?: AggregateContext,
): Promise<RqResult> {
  const table = mergeStrategies(resolveWeightTable(config.preset), config.custom_strategies);
  const kept = await keepAll(config, samples);
  const inputs = config.models.map((model, m) => {
    const { items, calls, usage } = kept[m];
    const { ls, stats: lsStats } = lsOf(config, kept[m]);
    const ssStats: EmbeddingStats = { calls: 0, texts: 0, usage: { prompt_tokens: 0, total_tokens: 0 } };
    return { model, items: items as KeptItem[], calls, usage, ls, lsStats, ssStats };
  });
  const evaluate = (x: (typeof inputs)[number], ls: LsBackend, ss: SsBackend) =>
    evaluateKept(config, x.items, ls, ss, table);

  // LS: the recorded labels decide each model's method without any call; one fallback makes all fall back.
  const lsMethods: { ls_fallback?: BackendFallback; ls_failed_pairs: number }[] =
    config.ls.method === "model"
      ? await Promise.all(inputs.map(async (x) => (await evaluate(x, x.ls, { method: "none" })).extensions))
      : inputs.map(() => ({ ls_failed_pairs: 0 }));
  const lsFell = inputs.findIndex((_, k) => lsMethods[k].ls_fallback);
  if (lsFell >= 0 && config.ls.method === "model") {
    const why = `kept uniform with model '${inputs[lsFell].model.name}': ${lsMethods[lsFell].ls_fallback!.reason}`;
    inputs.forEach((x, k) => {
      if (!lsMethods[k].ls_fallback) x.ls = { method: (config.ls as { fallback: "lexical" | "none" }).fallback };
    });
    lsMethods.forEach((e) => (e.ls_fallback ??= { from: "model", reason: why }));
  }

  // SS: the embeddings are asked for model by model; after a failure the rest use the fallback at once.
  const results: EvaluationResult[] = [];
  let ssFell: { model: string; reason: string } | null = null;
  for (const x of inputs) {
    const backend = ssFell ? ssFallbackOf(config) : ssBackend(config, x.ssStats, ctx);
    const r = await evaluate(x, x.ls, backend);
    if (ssFell)
      r.extensions.ss_fallback = {
        from: "embeddings",
        reason: `kept uniform with model '${ssFell.model}': ${ssFell.reason}`,
      };
    else if (r.extensions.ss_fallback) ssFell = { model: x.model.name, reason: r.extensions.ss_fallback.reason };
    results.push(r);
  }
  if (ssFell) {
    for (const [k, x] of inputs.entries()) {
      if (results[k].extensions.ss_fallback) continue;
      results[k] = await evaluate(x, x.ls, ssFallbackOf(config));
      results[k].extensions.ss_fallback = {
        from: "embeddings",
        reason: `kept uniform with model '${ssFell.model}': ${ssFell.reason}`,
      };
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
      generation_failed: x.items.filter((it) => it.failed).length,
      backends: {
        ls: x.lsStats,
        ss: config.ss.method === "embeddings" ? { model: config.ss.model, ...x.ssStats } : null,
      },
    };
  });
  const strategies = Object.keys(table);
  const rankings = Object.fromEntries(
    strategies.map((s) => [s, rank(models.map((x) => ({ model: x.model, q: x.aggregated[s] })))]),
  );
  return {
    models,
    rankings,
    strategies: Object.fromEntries(strategies.map((s) => [s, effectiveWeights(table[s])])),
    metric_keys: [...METRIC_KEYS],
  };
}

/** A model's LS backend: for the `model` method, the labels its primary units recorded (kept per item), and their cost. */
function lsOf(config: RqRunConfig, kept: KeptModel): { ls: LsBackend; stats: RqModelResult["backends"]["ls"] } {
  const ls = config.ls;
  if (ls.method !== "model") return { ls, stats: null };
  const c = kept.checker;
  const stats = {
    model: ls.model,
    calls: c.calls,
    failed_calls: c.failed_calls,
    usage: c.usage,
    first_error: c.first_error?.error ?? null,
  };
  // The labels were scored item by item as they were read (see keepItem): none are held here.
  return { ls: { method: "model", labels: [], fallback: ls.fallback, name: ls.model }, stats };
}

function ssFallbackOf(config: RqRunConfig): SsBackend {
  return config.ss.method === "embeddings" ? { method: config.ss.fallback } : config.ss;
}
