import { createRoute, z } from "@hono/zod-openapi";
import { BaseUrl, checkEndpointUrls, ProviderKey } from "./model-fields.ts";
import { loopbackAllowed } from "../net/destination.ts";
import { createRouter } from "./router.ts";
import { jsonBody, jsonResponse, problems, bodyProblems, tenantSecurity } from "./openapi.ts";
import { RunSchema } from "./runs.ts";
import { jsonBody as guardJson } from "../middleware/json-body.ts";
import { LIMITS } from "../limits.ts";
import { ApiError, type FieldError } from "../errors.ts";
import { runJson } from "../runs/wire.ts";
import { datasetItems, getDataset } from "../db/datasets.ts";
import { createRun, singleCallLeaseMs } from "../runs/create.ts";
import { checkWeights, generateSynthetic, goldInOurWords, type DatasetItem } from "../engines/reasoning-quality/index.ts";
import { modelSecret, type RqConfig, type RqModel } from "../evaluators/reasoning-quality.ts";
import { checkerRounds, LS_SECRET, SS_SECRET, type RqLs, type RqSs } from "../evaluators/rq-backends.ts";
import { rqDatasets } from "./rq-datasets.ts";

const EVALUATOR = "reasoning-quality";
const METRICS = ["correctness", "consistency", "robustness", "logical_coherence", "efficiency", "stability"] as const;

const Endpoint = z.strictObject({
  base_url: BaseUrl,
  api_key: ProviderKey.optional(),
});

const Model = z.strictObject({
  name: z.string().min(1).max(100).optional().openapi({ description: "Unique in the run; default the model name" }),
  model: z.string().min(1).max(200).openapi({ description: "The model name the endpoint expects, or `sim:<anything>` for the simulator", example: "sim:reasoner" }),
  provider: Endpoint.optional(),
  temperature: z.number().min(0).max(2).default(0.7).openapi({ description: "The paper's 0.7; at 0 CS and SS are trivially high" }),
  max_tokens: z.number().int().min(1).max(32_768).default(256).openapi({ description: "The original's 256 (1024 for thinking models)" }),
  timeout_s: z.number().positive().max(600).default(60),
  simulator: z
    .strictObject({
      accuracy: z.number().min(0).max(1).default(0.7),
      verbosity: z.number().int().min(0).max(50).default(3).openapi({ description: "Reasoning sentences before the answer" }),
      variation: z.number().min(0).max(1).default(0.2).openapi({ description: "Chance that a further run or a perturbed question is answered afresh" }),
      latency_ms: z.number().int().min(0).max(60_000).default(0),
    })
    .optional(),
});

const LsModel = z
  .strictObject({
    method: z.literal("model"),
    model: z.string().min(1).max(200).openapi({ description: "A chat model used as contradiction checker, or `sim:<anything>` for the simulator's", example: "gpt-4o-mini" }),
    provider: Endpoint.optional(),
    batch_size: z.number().int().min(1).max(32).default(16).openapi({ description: "Step pairs per checker call" }),
    timeout_s: z.number().positive().max(600).default(60),
    fallback: z.enum(["lexical", "none", "neutral"]).default("lexical").openapi({
      description: "If the checker fails on any pair: score LS with the lexical heuristic (default) or leave it out (none) for that model, saying so in `ls_fallback`; `neutral` keeps the original's rule (failed pairs count as neutral)",
    }),
  })
  .openapi("LsModelBackend");

const SsEmbeddings = z
  .strictObject({
    method: z.literal("embeddings"),
    model: z.string().min(1).max(200).openapi({ description: "An embeddings model, or `sim:<anything>` for the simulator's", example: "text-embedding-3-small" }),
    provider: Endpoint.optional(),
    dimensions: z.number().int().min(1).max(8192).optional().openapi({ description: "Sent as `dimensions` where the model supports it" }),
    baseline: z.number().min(-1).lt(1).optional().openapi({ description: "Rescale every non-empty pair's cosine as (s − b)/(1 − b)" }),
    batch_size: z.number().int().min(1).max(2048).default(64).openapi({ description: "Texts per embeddings call" }),
    timeout_s: z.number().positive().max(600).default(60),
    fallback: z.enum(["jaccard", "none"]).default("jaccard").openapi({
      description: "If the embeddings endpoint fails (after retries) or the run was canceled: score SS with Jaccard (default) or leave it out (none), saying so in `ss_fallback`",
    }),
  })
  .openapi("SsEmbeddingsBackend");

const DatasetRef = z.union([
  z.strictObject({
    id: z.string().min(1).openapi({ description: "An uploaded dataset (POST /v1/reasoning-quality/datasets)" }),
    num_samples: z.number().int().min(1).max(LIMITS.datasetItems).optional().openapi({ description: "Use the first n items (default all)" }),
  }),
  z.strictObject({
    synthetic: z.strictObject({
      seed: z.number().int().min(0).max(2 ** 53 - 1).default(42),
      num_reasoning: z.number().int().min(0).max(1000).default(20),
      num_adversarial: z.number().int().min(0).max(1000).default(10),
      num_robustness: z.number().int().min(0).max(1000).default(10),
    }),
  }),
]);

const RunRequest = z
  .strictObject({
    models: z.array(Model).min(1).max(10),
    datasets: z.array(DatasetRef).min(1).max(10).openapi({ description: "Items of all are evaluated together; each keeps its dataset tag for the per-dataset breakdown" }),
    K: z.number().int().min(1).max(10).default(3).openapi({ description: "Runs per item for CS and SS; the primary counts as run 1" }),
    P: z.number().int().min(0).max(10).default(3).openapi({ description: "Perturbations per item for RS" }),
    matcher: z.enum(["canonical", "legacy7"]).default("canonical").openapi({ description: "CQ: the type-aware matcher, or the README's seven-strategy chain" }),
    ls: z
      .union([z.enum(["lexical", "none"]), LsModel])
      .default("lexical")
      .openapi({ description: "LS backend: the original's lexical heuristic, none (LS null, left out of Q), or a chat model as contradiction checker" }),
    ss: z
      .union([z.enum(["jaccard", "none"]), SsEmbeddings])
      .default("jaccard")
      .openapi({ description: "SS backend: Jaccard over the traces (the original's fallback), none (SS null, left out of Q), or cosine of an embeddings model" }),
    preset: z.enum(["paper-v8", "1.1.4"]).default("paper-v8").openapi({ description: "The weight table: the camera-ready one (default) or the 1.1.4 README's" }),
    strategies: z
      .record(z.string().min(1).max(50), z.record(z.string(), z.number()))
      .default({})
      .openapi({ description: "Custom strategies: name → weights over correctness, consistency, robustness, logical_coherence, efficiency, stability (normalised to sum 1)", example: { my_mix: { correctness: 2, efficiency: 1 } } }),
    seed: z.number().int().min(0).max(2 ** 31 - 1).default(0).openapi({ description: "Seeds the simulator" }),
    concurrency: z.number().int().min(1).max(LIMITS.concurrency).default(5),
    webhook_url: z.string().max(2000).optional(),
  })
  .openapi("ReasoningQualityRunRequest", {
    example: {
      models: [{ name: "careful", model: "sim:reasoner", simulator: { accuracy: 0.9, verbosity: 6 } }, { name: "quick", model: "sim:reasoner", simulator: { accuracy: 0.6, verbosity: 1, variation: 0.5 } }],
      datasets: [{ synthetic: { num_reasoning: 10, num_adversarial: 5, num_robustness: 5 } }],
    },
  });

type Body = z.infer<typeof RunRequest>;

type Backends = { ls: RqLs; ss: RqSs };

/** A model's or backend's endpoint: the simulator takes none, any other model needs one; its key joins the run's secrets. */
function endpointOf(field: string, b: { model: string; provider?: { base_url: string; api_key?: string } }, secretName: string, secrets: Record<string, string>, errors: FieldError[]): string | null {
  const sim = b.model.startsWith("sim:");
  if (sim && b.provider) errors.push({ path: `${field}.provider`, message: "the simulator (sim:*) takes no provider" });
  if (!sim && !b.provider) errors.push({ path: `${field}.provider`, message: "required unless model is sim:* (provider.base_url, provider.api_key)" });
  if (b.provider?.api_key) secrets[secretName] = b.provider.api_key;
  return sim ? null : (b.provider?.base_url ?? null);
}

function resolveBackends(body: Body, secrets: Record<string, string>, errors: FieldError[]): Backends {
  const ls: RqLs =
    typeof body.ls === "string"
      ? { method: body.ls }
      : { method: "model", model: body.ls.model, base_url: endpointOf("ls", body.ls, LS_SECRET, secrets, errors), batch_size: body.ls.batch_size, timeout_s: body.ls.timeout_s, fallback: body.ls.fallback };
  const ss: RqSs =
    typeof body.ss === "string"
      ? { method: body.ss }
      : {
          method: "embeddings",
          model: body.ss.model,
          base_url: endpointOf("ss", body.ss, SS_SECRET, secrets, errors),
          batch_size: body.ss.batch_size,
          timeout_s: body.ss.timeout_s,
          dimensions: body.ss.dimensions ?? null,
          baseline: body.ss.baseline ?? null,
          fallback: body.ss.fallback,
        };
  return { ls, ss };
}

function resolveModels(body: Body): { models: RqModel[]; secrets: Record<string, string> } & Backends {
  const errors: FieldError[] = [];
  const secrets: Record<string, string> = {};
  const backends = resolveBackends(body, secrets, errors);
  const names = new Set<string>();
  const models = body.models.map((m, i): RqModel => {
    const name = m.name ?? m.model;
    if (names.has(name)) errors.push({ path: `models.${i}.name`, message: `'${name}' names two models; give each a distinct name` });
    names.add(name);
    const sim = m.model.startsWith("sim:");
    const baseUrl = endpointOf(`models.${i}`, m, modelSecret(i), secrets, errors);
    if (!sim && m.simulator) errors.push({ path: `models.${i}.simulator`, message: "only for sim:* models" });
    return {
      name,
      model: m.model,
      base_url: baseUrl,
      temperature: m.temperature,
      max_tokens: m.max_tokens,
      timeout_s: m.timeout_s,
      simulator: sim ? { accuracy: m.simulator?.accuracy ?? 0.7, verbosity: m.simulator?.verbosity ?? 3, variation: m.simulator?.variation ?? 0.2, latency_ms: m.simulator?.latency_ms ?? 0 } : null,
    };
  });
  for (const [name, weights] of Object.entries(body.strategies)) {
    try {
      checkWeights(weights, name);
    } catch (err) {
      errors.push({ path: `strategies.${name}`, message: (err as Error).message });
    }
    if (Object.values(weights).every((w) => w === 0)) errors.push({ path: `strategies.${name}`, message: "needs at least one positive weight" });
  }
  if (errors.length) throw ApiError.validation(errors);
  return { models, secrets, ...backends };
}

/**
 * The run's items, ids made unique by their position (`3:adversarial_3`), and the ids of the generated
 * synthetic items whose gold is our wording (found where they are made, not by a dataset's name).
 */
async function loadItems(body: Body, db: Parameters<typeof getDataset>[0], tenantId: string): Promise<{ items: (DatasetItem & { id: string })[]; ownWording: string[] }> {
  const items: DatasetItem[] = [];
  const ours = new Set<DatasetItem>();
  for (const [i, ref] of body.datasets.entries()) {
    if ("synthetic" in ref) {
      const s = ref.synthetic;
      const generated = generateSynthetic({ seed: s.seed, numReasoning: s.num_reasoning, numAdversarial: s.num_adversarial, numRobustness: s.num_robustness });
      for (const it of generated) {
        const item = { ...it, dataset: "synthetic" };
        if (goldInOurWords(it)) ours.add(item);
        items.push(item);
      }
      continue;
    }
    const row = await getDataset(db, tenantId, ref.id);
    if (!row) throw ApiError.validation([{ path: `datasets.${i}.id`, message: `no dataset '${ref.id}' for this tenant` }]);
    const stored = await datasetItems<DatasetItem>(db, row.id);
    items.push(...stored.slice(0, ref.num_samples ?? stored.length));
  }
  if (items.length === 0) throw ApiError.validation([{ path: "datasets", message: "no items to evaluate" }]);
  // Records are keyed by position; ids only need to be unique for the samples' readers.
  const withIds = items.map((it, n) => ({ ...it, id: `${n}:${it.id}` }));
  return { items: withIds, ownWording: withIds.filter((_, n) => ours.has(items[n])).map((it) => it.id) };
}

export const reasoningQuality = createRouter()
  .route("/", rqDatasets)
  .openapi(
    createRoute({
      method: "post",
      path: "/runs",
      operationId: "createReasoningQualityRun",
      tags: ["reasoning-quality"],
      summary: "Score models' reasoning on a dataset: CQ, CS, RS, LS, ES, SS and Q under every strategy",
      description:
        "Each generation is a unit of the run: per model and item the primary run, K − 1 further runs and one call per usable perturbation (K + P calls). The result holds per model the six raw metrics (4 decimals), the per-dataset breakdown, Q under every strategy (the preset's and yours), rankings per strategy, call, token and failure counts, and which LS / SS method produced the figures. Reports: GET /v1/runs/{id}/report.csv, report.xlsx, radar.svg. Accepts `Idempotency-Key`.",
      security: tenantSecurity,
      middleware: guardJson(LIMITS.bodyBytes),
      request: {
        headers: z.object({ "idempotency-key": z.string().min(1).max(LIMITS.idempotencyKeyChars).optional() }),
        body: jsonBody(RunRequest),
      },
      responses: { 202: jsonResponse(RunSchema, "The run, queued"), ...problems(...bodyProblems, 409, 422) },
    }),
    async (c) => {
      const body = c.req.valid("json");
      const backend = (b: Body["ls"] | Body["ss"]) => (typeof b === "string" ? undefined : b.provider?.base_url);
      checkEndpointUrls(
        [...body.models.map((m, i): [string, string | undefined] => [`models.${i}.provider.base_url`, m.provider?.base_url]), ["ls.provider.base_url", backend(body.ls)], ["ss.provider.base_url", backend(body.ss)]],
        loopbackAllowed(c.env),
      );
      const { models, secrets, ls, ss } = resolveModels(body);
      const { items, ownWording } = await loadItems(body, c.var.db, c.var.tenantId);
      const config: RqConfig = {
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
        metric_keys: METRICS,
      };
      const { run } = await createRun(c.env, c.var.db, c.var.tenantId, {
        evaluator: EVALUATOR,
        config,
        publicConfig,
        secrets,
        webhookUrl: body.webhook_url,
        concurrency: body.concurrency,
        // The primary unit also waits for the contradiction checker's rounds of calls.
        leaseMs:
          singleCallLeaseMs(Math.max(...models.map((m) => m.timeout_s))) +
          (ls.method === "model" ? checkerRounds(Math.max(...models.map((m) => m.max_tokens)), ls) * singleCallLeaseMs(ls.timeout_s) : 0),
        body,
        idempotencyKey: c.req.valid("header")["idempotency-key"],
      });
      return c.json(runJson(run), 202);
    },
  );
