import { createRoute, z } from "@hono/zod-openapi";
import { createRouter } from "./router.ts";
import { jsonBody, jsonResponse, problems, bodyProblems, tenantSecurity } from "./openapi.ts";
import { RunSchema } from "./runs.ts";
import { LatencySimulator, ModelFields, modelConfig } from "./model-fields.ts";
import { loopbackAllowed } from "../net/destination.ts";
import { jsonBody as guardJson } from "../middleware/json-body.ts";
import { LIMITS } from "../limits.ts";
import { ApiError } from "../errors.ts";
import { runJson } from "../runs/wire.ts";
import { createRun, createRunGroup, singleCallLeaseMs, type NewRun } from "../runs/create.ts";
import { planRpl, type RplConfig } from "../evaluators/rpl.ts";
import { autoStart, publicRplConfig } from "../evaluators/rpl-auto.ts";
import { DEFAULT_RPL_PROMPT, RPL_PROMPTS, promptBank } from "../evaluators/rpl-prompts.ts";
import { compareRuns, ParityError, type ComparedRun } from "../engines/rpl/index.ts";
import { getRun } from "../db/runs.ts";

const EVALUATOR = "rpl" as const;
/**
 * Like the original, a run whose longest composed prompt is longer than this is refused (spec §1).
 * The original's 1,500 fits its shorter bank; ours is about 1,700 characters before the claim, so the
 * cap is set for ours, and in practice it bounds the claim, which appears twice in every prompt.
 */
const MAX_PROMPT_CHARS = 4000;

// The bootstrap seed is 64-bit: it travels as a decimal string (a JSON number would lose digits past 2^53).
const Seed = z
  .union([z.string().regex(/^\d{1,20}$/), z.number().int().min(0).max(Number.MAX_SAFE_INTEGER)])
  .transform((v) => String(v))
  .refine((v) => BigInt(v) < 2n ** 64n, "must be below 2^64")
  .openapi({ type: "string", pattern: "^\\d{1,20}$", description: "Bootstrap seed, 0 ≤ seed < 2^64, as a decimal string. Default: derived from the run's settings, as the original does", example: "42" });

const { seed: _providerSeed, ...ModelFieldsWithoutSeed } = ModelFields;

const RunRequest = z
  .strictObject({
    claim: z.string().trim().min(1).max(2000).openapi({ example: "Tariffs raise consumer prices." }),
    ...ModelFieldsWithoutSeed,
    simulator: LatencySimulator,
    prompt_version: z
      .union([z.string().min(1), z.array(z.string().min(1)).min(1).max(8)])
      .default(DEFAULT_RPL_PROMPT)
      .openapi({ description: `A prompt bank version, or a list of them for an A/B comparison (one run per version). Available: ${Object.keys(RPL_PROMPTS).join(", ")}` }),
    K: z.number().int().min(1).max(64).default(8).openapi({ description: "Paraphrase slots" }),
    R: z.number().int().min(1).max(16).default(2).openapi({ description: "Replicates per slot" }),
    T: z.number().int().min(0).max(64).nullable().default(null).openapi({ description: "Distinct templates (null: the whole bank)" }),
    B: z.number().int().min(1).max(50_000).default(5000).openapi({ description: "Bootstrap resamples" }),
    seed: Seed.optional(),
    max_output_tokens: z.number().int().min(16).max(32_768).default(1024),
    no_cache: z.boolean().default(false).openapi({ description: "Call the model even where the tenant's sample cache has the answer" }),
    preset: z.enum(["auto"]).optional().openapi({
      description:
        "`auto`: the Auto-RPL stages S1 (T,K,R) = (8,8,2) → S2 (16,16,2) → S3 (16,16,3), each a run, escalating until ci_width ≤ 0.20, stability ≥ 0.70 and imbalance ≤ 1.50 all pass; samples are reused across stages. Replaces K, R and T. Follow `result.next_run_id` to the next stage; the last stage's `result.auto` holds the controller, final figures, stages and decision log.",
    }),
    concurrency: z.number().int().min(1).max(LIMITS.concurrency).default(5),
    webhook_url: z.string().max(2000).optional(),
  })
  .openapi("RplRunRequest", { example: { claim: "Tariffs raise consumer prices.", model: "sim:rpl", K: 8, R: 2 } });

const RunGroupSchema = z
  .object({ object: z.literal("run_group"), group_id: z.string(), runs: z.array(RunSchema) })
  .openapi("RunGroup", { description: "One run per prompt version of an A/B request" });

const CompareQuery = z.object({
  runs: z
    .string()
    .transform((v) => v.split(",").map((s) => s.trim()).filter(Boolean))
    .pipe(z.array(z.string()).min(2).max(10))
    .openapi({ param: { name: "runs", in: "query" }, description: "2–10 run ids, comma-separated", example: "run_a,run_b" }),
});

const ComparisonSchema = z
  .object({
    dimension: z.enum(["model", "prompt_version"]).nullable(),
    parity: z.record(z.string(), z.unknown()),
    runs: z.array(z.record(z.string(), z.unknown())),
    winner: z.object({ run_id: z.string().nullable(), rule: z.enum(["ci_width", "pqs", "stability", "tie"]) }),
  })
  .openapi("RplComparison");

type RplResult = {
  aggregates: { prob_true_rpl: number; ci95: [number, number]; ci_width: number; stability_score: number };
  quality: { pqs: number };
};

export const rpl = createRouter().openapi(
  createRoute({
    method: "post",
    path: "/runs",
    operationId: "createRplRun",
    tags: ["rpl"],
    summary: "Estimate a model's prior that a claim is true, over K paraphrases × R replicates",
    description:
      "Returns at once (202) with the run, or with one run per version when `prompt_version` is a list. Samples are cached per tenant by the original's cache key, so a rerun of the same claim, model, prompt version and replicates makes no model calls. Accepts `Idempotency-Key`.",
    security: tenantSecurity,
    middleware: guardJson(LIMITS.bodyBytes),
    request: {
      headers: z.object({ "idempotency-key": z.string().min(1).max(LIMITS.idempotencyKeyChars).optional() }),
      body: jsonBody(RunRequest),
    },
    responses: {
      202: {
        description: "The run (or, for a list of prompt versions, the group of runs)",
        content: { "application/json": { schema: z.union([RunSchema, RunGroupSchema]) } },
      },
      ...problems(...bodyProblems, 409, 422),
    },
  }),
  async (c) => {
    const body = c.req.valid("json");
    const { db, tenantId } = c.var;
    const model = modelConfig({ ...body, seed: undefined }, { latency_ms: 0 }, loopbackAllowed(c.env));
    const versions = Array.isArray(body.prompt_version) ? body.prompt_version : [body.prompt_version];
    for (const [i, v] of versions.entries()) {
      if (!RPL_PROMPTS[v]) {
        const path = Array.isArray(body.prompt_version) ? `prompt_version.${i}` : "prompt_version";
        throw ApiError.validation([{ path, message: `unknown prompt version '${v}'; available: ${Object.keys(RPL_PROMPTS).join(", ")}` }]);
      }
    }
    if (new Set(versions).size !== versions.length) {
      throw ApiError.validation([{ path: "prompt_version", message: "lists a version twice" }]);
    }
    const idempotencyKey = c.req.valid("header")["idempotency-key"];
    // Every version is planned (and its prompts checked) before any run is made.
    const parts = [];
    for (const version of versions) {
      const bank = promptBank(version);
      const stageStart = body.preset === "auto" ? autoStart(bank.paraphrases.length) : { K: body.K, R: body.R, T: body.T };
      const plan = await planRpl({ claim: body.claim, model: body.model, promptBank: bank, K: stageStart.K, R: stageStart.R, T: stageStart.T });
      if (plan.prompt_char_len_max > MAX_PROMPT_CHARS) {
        throw ApiError.validation([
          { path: "claim", message: `too long: the longest prompt would be ${plan.prompt_char_len_max} characters; the cap is ${MAX_PROMPT_CHARS}` },
        ]);
      }
      const config = {
        ...model.config,
        claim: body.claim,
        prompt_version: version,
        prompt_version_full: bank.version,
        B: body.B,
        bootstrap_seed: body.seed ?? null,
        max_output_tokens: body.max_output_tokens,
        no_cache: body.no_cache,
        concurrency: body.concurrency,
        ...stageStart,
        prompt: bank,
        plan,
      };
      parts.push({
        name: version,
        // Extra public fields (prompt_version_full, concurrency) ride along in the config; they are plain data.
        run: (groupId: string | null): NewRun => ({
          evaluator: EVALUATOR,
          config,
          publicConfig: { ...publicRplConfig(config as RplConfig), ...(groupId ? { group_id: groupId } : {}) },
          secrets: model.secrets,
          webhookUrl: body.webhook_url,
          concurrency: body.concurrency,
          leaseMs: singleCallLeaseMs(model.config.timeout_s),
          body: { ...body, prompt_version: version },
        }),
      });
    }
    if (!Array.isArray(body.prompt_version)) {
      const { run } = await createRun(c.env, db, tenantId, { ...parts[0].run(null), idempotencyKey });
      return c.json(runJson(run), 202);
    }
    // The runs of an A/B request share a group id, kept in each run's config; a replay with the
    // Idempotency-Key returns the first request's group id and runs (see createRunGroup).
    const group = await createRunGroup(c.env, db, tenantId, { evaluator: EVALUATOR, body, idempotencyKey, parts });
    return c.json({ object: "run_group" as const, group_id: group.groupId, runs: group.runs.map(runJson) }, 202);
  },
)
.openapi(
  createRoute({
    method: "get",
    path: "/compare",
    operationId: "compareRplRuns",
    tags: ["rpl"],
    summary: "Compare p, CI width, stability and PQS across runs that differ in one dimension",
    description:
      "The runs must be succeeded rpl runs of this tenant that agree on claim, K, R, T, B and max_output_tokens, and differ in at most one of model or prompt_version; otherwise 422 naming the settings that differ. The winner: the narrowest CI if narrower by ≥ 0.003, else the highest PQS, then the highest stability, else a tie.",
    security: tenantSecurity,
    request: { query: CompareQuery },
    responses: { 200: jsonResponse(ComparisonSchema, "The comparison"), ...problems(400, 401, 422) },
  }),
  async (c) => {
    const ids = c.req.valid("query").runs;
    const found = await Promise.all(ids.map((id) => getRun(c.var.db, c.var.tenantId, id)));
    const problemsFound = found.flatMap((r, i) =>
      !r
        ? [{ path: `runs.${i}`, message: `no run '${ids[i]}' for this tenant` }]
        : r.evaluator !== EVALUATOR
          ? [{ path: `runs.${i}`, message: `'${ids[i]}' is a ${r.evaluator} run` }]
          : r.status !== "succeeded"
            ? [{ path: `runs.${i}`, message: `'${ids[i]}' has not succeeded (${r.status})` }]
            : [],
    );
    if (problemsFound.length) throw ApiError.validation(problemsFound);
    const compared: ComparedRun[] = found.map((r) => {
      const result = r!.result as RplResult;
      return {
        run_id: r!.id,
        config: r!.config as ComparedRun["config"],
        prob_true_rpl: result.aggregates.prob_true_rpl,
        ci95: result.aggregates.ci95,
        ci_width: result.aggregates.ci_width,
        stability_score: result.aggregates.stability_score,
        pqs: result.quality.pqs,
      };
    });
    try {
      return c.json(compareRuns(compared), 200);
    } catch (err) {
      if (err instanceof ParityError) {
        throw new ApiError({
          status: 422,
          type: "validation",
          detail: err.message,
          errors: err.fields.map((f) => ({ path: f, message: "differs between the runs" })),
        });
      }
      throw err;
    }
  },
);
