import {
  checkWeights,
  generateSynthetic,
  goldInOurWords,
  METRIC_KEYS,
  type DatasetItem,
} from "../../engines/reasoning-quality/index.ts";
import { datasetItems, getDataset } from "../../db/datasets.ts";
import { ApiError, type FieldError } from "../../errors.ts";
import { LIMITS } from "../../limits.ts";
import { utf8Bytes } from "../../platform/storage-guard.ts";
import { singleCallLeaseMs } from "../../runs/plugin/lease.ts";
import { resolveProviders, type ResolvedProvider } from "../../runs/plugin/connections.ts";
import { isSim, simulatorOrEndpoint } from "../../runs/plugin/model-fields.ts";
import type { CreateContext, NewRunOf } from "../../runs/plugin/plugin.ts";
import { checkerRounds, LS_SECRET, SS_SECRET, type RqLs, type RqSs } from "./backends.ts";
import type { RqBody } from "./request.ts";
import { checkerRoundCost, modelSecret, type RqRunConfig, type RqModel } from "./units.ts";
import { callCost } from "../../platform/invocation-budget.ts";
import { requireStepsFit } from "../../runs/plugin/step-limits.ts";

type Backends = { ls: RqLs; ss: RqSs };

/** The request's `provider`s, resolved (resolveProviders): one per model, then the LS and SS backends'. */
type Providers = { models: (ResolvedProvider | undefined)[]; ls?: ResolvedProvider; ss?: ResolvedProvider };

/**
 * A model's or backend's endpoint: the simulator takes none, any other model needs one (the one check,
 * simulatorOrEndpoint); its key joins the run's secrets under the name its unit reads it by, and the
 * saved connection it came from, if any, is named in the config.
 */
function endpointOf(
  field: string,
  b: { model: string; provider?: unknown; simulator?: unknown },
  provider: ResolvedProvider | undefined,
  secretName: string,
  secrets: Record<string, string>,
  errors: FieldError[],
): { base_url: string | null; connection?: string } {
  errors.push(...simulatorOrEndpoint(`${field}.`, { ...b, endpoint: provider?.base_url }));
  if (provider?.api_key) secrets[secretName] = provider.api_key;
  if (isSim(b.model)) return { base_url: null };
  return { base_url: provider?.base_url ?? null, ...(provider?.connection ? { connection: provider.connection } : {}) };
}

function resolveBackends(
  body: RqBody,
  providers: Providers,
  secrets: Record<string, string>,
  errors: FieldError[],
): Backends {
  const ls: RqLs =
    typeof body.ls === "string"
      ? { method: body.ls }
      : {
          method: "model",
          model: body.ls.model,
          ...endpointOf("ls", body.ls, providers.ls, LS_SECRET, secrets, errors),
          batch_size: body.ls.batch_size,
          timeout_s: body.ls.timeout_s,
          fallback: body.ls.fallback,
        };
  const ss: RqSs =
    typeof body.ss === "string"
      ? { method: body.ss }
      : {
          method: "embeddings",
          model: body.ss.model,
          ...endpointOf("ss", body.ss, providers.ss, SS_SECRET, secrets, errors),
          batch_size: body.ss.batch_size,
          timeout_s: body.ss.timeout_s,
          dimensions: body.ss.dimensions ?? null,
          baseline: body.ss.baseline ?? null,
          fallback: body.ss.fallback,
        };
  return { ls, ss };
}

function resolveModels(
  body: RqBody,
  providers: Providers,
): { models: RqModel[]; secrets: Record<string, string> } & Backends {
  const errors: FieldError[] = [];
  const secrets: Record<string, string> = {};
  const backends = resolveBackends(body, providers, secrets, errors);
  const names = new Set<string>();
  const models = body.models.map((m, i): RqModel => {
    const name = m.name ?? m.model;
    if (names.has(name))
      errors.push({ path: `models.${i}.name`, message: `'${name}' names two models; give each a distinct name` });
    names.add(name);
    const sim = isSim(m.model);
    return {
      name,
      model: m.model,
      ...endpointOf(`models.${i}`, m, providers.models[i], modelSecret(i), secrets, errors),
      temperature: m.temperature,
      max_tokens: m.max_tokens,
      timeout_s: m.timeout_s,
      simulator: sim
        ? {
            accuracy: m.simulator?.accuracy ?? 0.7,
            verbosity: m.simulator?.verbosity ?? 3,
            variation: m.simulator?.variation ?? 0.2,
            latency_ms: m.simulator?.latency_ms ?? 0,
          }
        : null,
    };
  });
  for (const [name, weights] of Object.entries(body.strategies)) {
    try {
      checkWeights(weights, name);
    } catch (err) {
      errors.push({ path: `strategies.${name}`, message: (err as Error).message });
    }
    if (Object.values(weights).every((w) => w === 0))
      errors.push({ path: `strategies.${name}`, message: "needs at least one positive weight" });
  }
  if (errors.length) throw ApiError.validation(errors);
  return { models, secrets, ...backends };
}

/**
 * The run's items, ids made unique by their position (`3:adversarial_3`), and the ids of the generated
 * synthetic items whose gold is our wording (found where they are made, not by a dataset's name).
 */
async function loadItems(
  body: RqBody,
  db: Parameters<typeof getDataset>[0],
  tenantId: string,
): Promise<{ items: (DatasetItem & { id: string })[]; ownWording: string[] }> {
  const items: DatasetItem[] = [];
  const ours = new Set<DatasetItem>();
  // The items are nearly all of the run's config, which has a size limit: past it, the dataset that
  // passed it is named, before any further one is read.
  let bytes = 0;
  const count = (i: number, added: DatasetItem[]) => {
    bytes += utf8Bytes(JSON.stringify(added));
    if (bytes > LIMITS.runConfigBytes) {
      throw ApiError.validation([
        {
          path: `datasets.${i}`,
          message: `the items so far are ${bytes} bytes of JSON; a run may carry at most ${LIMITS.runConfigBytes} (use num_samples, or split the run)`,
        },
      ]);
    }
  };
  for (const [i, ref] of body.datasets.entries()) {
    if ("synthetic" in ref) {
      const s = ref.synthetic;
      const generated = generateSynthetic({
        seed: s.seed,
        numReasoning: s.num_reasoning,
        numAdversarial: s.num_adversarial,
        numRobustness: s.num_robustness,
      });
      for (const it of generated) {
        const item = { ...it, dataset: "synthetic" };
        if (goldInOurWords(it)) ours.add(item);
        items.push(item);
      }
      count(i, items.slice(items.length - generated.length));
      continue;
    }
    const row = await getDataset(db, tenantId, ref.id);
    if (!row)
      throw ApiError.validation([{ path: `datasets.${i}.id`, message: `no dataset '${ref.id}' for this tenant` }]);
    const taken = (await datasetItems<DatasetItem>(db, row.id)).slice(0, ref.num_samples);
    count(i, taken);
    items.push(...taken);
  }
  if (items.length === 0) throw ApiError.validation([{ path: "datasets", message: "no items to evaluate" }]);
  // Records are keyed by position; ids only need to be unique for the samples' readers.
  const withIds = items.map((it, n) => ({ ...it, id: `${n}:${it.id}` }));
  return { items: withIds, ownWording: withIds.filter((_, n) => ours.has(items[n])).map((it) => it.id) };
}

/** A reasoning-quality request as its run: models, backends and items resolved, keys named per model and backend. */
export async function createRqRun(body: RqBody, ctx: CreateContext): Promise<NewRunOf<RqRunConfig>> {
  const backend = (b: RqBody["ls"] | RqBody["ss"]) => (typeof b === "string" ? undefined : b.provider);
  const resolved = await resolveProviders(ctx, [
    ...body.models.map((m, i): [string, RqBody["models"][number]["provider"]] => [`models.${i}.provider`, m.provider]),
    ["ls.provider", backend(body.ls)],
    ["ss.provider", backend(body.ss)],
  ]);
  const n = body.models.length;
  const { models, secrets, ls, ss } = resolveModels(body, {
    models: resolved.slice(0, n),
    ls: resolved[n],
    ss: resolved[n + 1],
  });
  // Each step of a unit (a generation, a round of checker calls) must fit in a fresh lane invocation.
  requireStepsFit([
    ...models.map((m, i) => ({
      path: `models.${i}.timeout_s`,
      what: `Model ${m.name}'s call and its retries`,
      cost: callCost(m.timeout_s),
    })),
    ...(ls.method === "model"
      ? [{ path: "ls.timeout_s", what: "A round of checker calls and their retries", cost: checkerRoundCost(ls) }]
      : []),
  ]);
  const { items, ownWording } = await loadItems(body, ctx.db, ctx.tenantId);
  const config: RqRunConfig = {
    models,
    items,
    own_wording_golds: ownWording,
    metrics: { consistency_runs: body.K, stability_runs: body.K, robustness_perturbations: body.P },
    matcher: body.matcher,
    ls,
    ss,
    preset: body.preset,
    custom_strategies: body.strategies,
    seed: body.seed,
  };
  const { items: _items, ...rest } = config;
  const publicConfig = {
    ...rest,
    n_items: items.length,
    datasets: body.datasets,
    concurrency: body.concurrency,
    metric_keys: METRIC_KEYS,
  };
  return {
    config,
    publicConfig,
    secrets,
    // The primary unit also waits for the contradiction checker's rounds of calls.
    leaseMs:
      singleCallLeaseMs(Math.max(...models.map((m) => m.timeout_s))) +
      (ls.method === "model"
        ? checkerRounds(Math.max(...models.map((m) => m.max_tokens)), ls) * singleCallLeaseMs(ls.timeout_s)
        : 0),
  };
}
