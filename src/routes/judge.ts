import { createRoute, z } from "@hono/zod-openapi";
import { BaseUrl, checkEndpointUrls, ProviderKey } from "./model-fields.ts";
import { loopbackAllowed } from "../net/destination.ts";
import { createRouter } from "./router.ts";
import { IdParam, jsonBody, jsonResponse, pageOf, problems, bodyProblems, tenantSecurity } from "./openapi.ts";
import { RunSchema } from "./runs.ts";
import { jsonBody as guardJson } from "../middleware/json-body.ts";
import { LIMITS } from "../limits.ts";
import { ApiError, type FieldError } from "../errors.ts";
import { getRun, getSamples } from "../db/runs.ts";
import { runJson } from "../runs/wire.ts";
import { createRun, singleCallLeaseMs } from "../runs/create.ts";
import { DEFAULT_PROMPT_TEMPLATE, DEFAULT_SYSTEM_PROMPT, renderPrompt, VENDORS } from "../engines/judge/index.ts";
import { CRITIC_PROMPTS, DEFAULT_CRITIC_PROMPT, findCriticPrompt, INLINE_PROMPT, promptSha256 } from "../evaluators/judge-prompts.ts";
import {
  contestedReasons,
  criticSecret,
  templateContext,
  unitId,
  type JudgeConfig,
  type JudgeCriticConfig,
  type JudgeOutput,
  type JudgeResult,
} from "../evaluators/judge.ts";

const EVALUATOR = "judge";
export const DEFAULT_LABELS = ["KEEP", "REJECT", "SPLIT", "MERGE", "UNCLEAR"];
const DEFAULT_CONTESTED_THRESHOLD = 0.4;

const Label = z.string().min(1).max(64).regex(/^\S(.*\S)?$/, "no leading or trailing whitespace");

const Item = z.strictObject({
  id: z.string().min(1).max(200),
  query: z.string().min(1).max(20_000).openapi({ description: "The text the critics judge ({query} in their prompts)" }),
  context: z.record(z.string(), z.unknown()).default({}).openapi({ description: "Extra template variables for this item ({key} in a prompt_template)" }),
  expected: Label.optional().openapi({ description: "The item's known label, if any: the simulator answers it, and the result reports the consensus's accuracy against it" }),
});

const Critic = z.strictObject({
  name: z.string().min(1).max(64).openapi({ description: "Unique in the panel; becomes each verdict's critic_id" }),
  model: z.string().min(1).max(200).openapi({ description: "The model name the endpoint expects, or `sim:<anything>` for the simulator", example: "sim:critic" }),
  vendor: z.enum(Object.keys(VENDORS) as [string, ...string[]]).optional().openapi({ description: "An endpoint preset; needs provider.api_key" }),
  provider: z
    .strictObject({
      base_url: BaseUrl.optional().openapi({ description: "Any OpenAI-compatible endpoint; overrides the vendor's" }),
      api_key: ProviderKey.optional(),
    })
    .optional(),
  temperature: z.number().min(0).max(2).default(0),
  max_tokens: z.number().int().min(1).max(32_768).default(2000),
  timeout_s: z.number().positive().max(600).default(60).openapi({ description: "Per model call; timed-out calls are retried twice" }),
  weight: z.number().min(0).max(1000).default(1).openapi({ description: "This critic's weight in `weighted` voting" }),
  prompt: z.string().min(1).max(100).optional().openapi({ description: `A prompt of our bank as "name@version" (or "name" for its latest version); see GET /v1/judge/prompts. Default ${DEFAULT_CRITIC_PROMPT} unless system_prompt or prompt_template is given` }),
  system_prompt: z.string().max(20_000).optional().openapi({ description: "Your own system prompt (\"\" sends none)" }),
  prompt_template: z.string().min(1).max(20_000).optional().openapi({ description: "Your own template: {query}, {labels}, the item's context keys; {{ }} for literal braces" }),
  simulator: z
    .strictObject({
      bias: z.strictObject({ label: Label, rate: z.number().min(0).max(1) }).optional().openapi({ description: "With probability `rate`, answer `label`" }),
      noise: z.number().min(0).max(1).default(0).openapi({ description: "Otherwise, with this probability, answer a random label of the vocabulary" }),
      latency_ms: z.number().int().min(0).max(60_000).default(0),
    })
    .optional()
    .openapi({ description: "Only for sim:* critics. Without bias and noise a simulated critic answers each item's true label (its `expected`, else one drawn from its id and the seed)" }),
});

const Voting = z
  .strictObject({
    strategy: z.enum(["majority", "unanimous", "weighted", "first_disagreement"]).default("majority"),
    priority: z.array(Label).max(50).optional().openapi({ description: "majority: labels that win a tie, in order" }),
    fallback: Label.optional().openapi({ description: "The consensus when no valid verdict exists (unanimous: also when critics disagree). Default UNCLEAR" }),
    use_confidence: z.boolean().optional().openapi({ description: "weighted: multiply each critic's weight by its confidence (default true)" }),
    disagree_label: Label.optional().openapi({ description: "first_disagreement: the consensus when critics disagree (default DISAGREE)" }),
  })
  .default({ strategy: "majority" });

const RunRequest = z
  .strictObject({
    items: z.array(Item).min(1).max(LIMITS.judgeItems),
    critics: z.array(Critic).min(1).max(LIMITS.judgeCritics),
    labels: z.array(Label).min(2).max(50).default(DEFAULT_LABELS).openapi({ description: "The label vocabulary; a verdict outside it is counted as off_vocabulary, not as a vote" }),
    voting: Voting,
    contested_threshold: z.number().min(0).max(1).default(DEFAULT_CONTESTED_THRESHOLD).openapi({ description: "Items whose agreement_pct or alpha is below this are contested (GET …/contested)" }),
    seed: z.number().int().min(0).max(2 ** 31 - 1).default(0).openapi({ description: "Seeds the simulator" }),
    concurrency: z.number().int().min(1).max(LIMITS.concurrency).default(5),
    webhook_url: z.string().max(2000).optional(),
  })
  .openapi("JudgeRunRequest", {
    example: {
      items: [{ id: "q1", query: "Bank failures and earthquake aftershocks share a universality class." }],
      critics: [
        { name: "strict", model: "sim:critic", prompt: "strict-reviewer@1" },
        { name: "general", model: "sim:critic" },
        { name: "noisy", model: "sim:critic", simulator: { noise: 0.5 } },
      ],
    },
  });

type Body = z.infer<typeof RunRequest>;

/** Checks what the schema cannot and resolves each critic's endpoint and prompt. Throws one 400 naming every field at fault. */
async function resolveCritics(body: Body): Promise<{ critics: JudgeCriticConfig[]; secrets: Record<string, string> }> {
  const errors: FieldError[] = [];
  const seen = new Set<string>();
  const secrets: Record<string, string> = {};
  const critics: JudgeCriticConfig[] = [];
  for (const [i, c] of body.critics.entries()) {
    const at = (field: string) => `critics.${i}.${field}`;
    if (seen.has(c.name)) errors.push({ path: at("name"), message: `'${c.name}' names two critics` });
    seen.add(c.name);
    const sim = c.model.startsWith("sim:");
    let baseUrl: string | null = null;
    if (sim) {
      if (c.vendor) errors.push({ path: at("vendor"), message: "the simulator (sim:*) takes no vendor" });
      if (c.provider) errors.push({ path: at("provider"), message: "the simulator (sim:*) takes no provider" });
      if (c.simulator?.bias && !body.labels.includes(c.simulator.bias.label)) {
        errors.push({ path: at("simulator.bias.label"), message: `'${c.simulator.bias.label}' is not in labels` });
      }
    } else {
      if (c.simulator) errors.push({ path: at("simulator"), message: "only for sim:* models" });
      baseUrl = c.provider?.base_url ?? (c.vendor ? VENDORS[c.vendor].baseUrl : null);
      if (!baseUrl) errors.push({ path: at("provider"), message: "required unless model is sim:*: a vendor preset or provider.base_url" });
      if (c.vendor && !c.provider?.base_url && !c.provider?.api_key) {
        errors.push({ path: at("provider.api_key"), message: `the ${c.vendor} endpoint needs an API key` });
      }
      if (c.provider?.api_key) secrets[criticSecret(i)] = c.provider.api_key;
    }
    let system = c.system_prompt;
    let template = c.prompt_template;
    let name = INLINE_PROMPT;
    let version: number | null = null;
    if (c.prompt !== undefined && (system !== undefined || template !== undefined)) {
      errors.push({ path: at("prompt"), message: "give either prompt or your own system_prompt / prompt_template, not both" });
    } else if (system === undefined && template === undefined) {
      const found = findCriticPrompt(c.prompt ?? DEFAULT_CRITIC_PROMPT);
      if (typeof found === "string") errors.push({ path: at("prompt"), message: found });
      else [system, template, name, version] = [found.system_prompt, found.prompt_template, found.name, found.version];
    }
    system ??= DEFAULT_SYSTEM_PROMPT;
    template ??= DEFAULT_PROMPT_TEMPLATE;
    // Every item must render: a missing context key fails here, not as a thrown unit later.
    for (const [j, item] of body.items.entries()) {
      try {
        // As the engine renders: the item's query unless its context has its own (spec §2, r09).
        renderPrompt(template, { query: item.query, ...templateContext(body.labels, { context: item.context }) });
      } catch (err) {
        const message = (err as Error).message.replace(/^renderPrompt: /, "");
        errors.push(message.includes("missing required key") ? { path: `items.${j}.context`, message: `critic '${c.name}': ${message}` } : { path: at("prompt_template"), message });
        break;
      }
    }
    critics.push({
      name: c.name,
      model: c.model,
      base_url: baseUrl,
      vendor: c.vendor ?? null,
      temperature: c.temperature,
      max_tokens: c.max_tokens,
      timeout_s: c.timeout_s,
      weight: c.weight,
      system_prompt: system,
      prompt_template: template,
      prompt: { name, version, sha256: await promptSha256(system, template) },
      simulator: sim ? { bias: c.simulator?.bias ?? null, noise: c.simulator?.noise ?? 0, latency_ms: c.simulator?.latency_ms ?? 0 } : null,
    });
  }
  if (errors.length) throw ApiError.validation(errors);
  return { critics, secrets };
}

function checkItemsAndVoting(body: Body): void {
  const errors: FieldError[] = [];
  if (new Set(body.labels).size !== body.labels.length) errors.push({ path: "labels", message: "lists a label twice" });
  const ids = new Set<string>();
  for (const [i, item] of body.items.entries()) {
    if (ids.has(item.id)) errors.push({ path: `items.${i}.id`, message: `'${item.id}' names two items` });
    ids.add(item.id);
    if (item.expected !== undefined && !body.labels.includes(item.expected)) errors.push({ path: `items.${i}.expected`, message: `'${item.expected}' is not in labels` });
  }
  const allowed: Record<string, string[]> = {
    majority: ["priority", "fallback"],
    unanimous: ["fallback"],
    weighted: ["fallback", "use_confidence"],
    first_disagreement: ["fallback", "disagree_label"],
  };
  for (const key of Object.keys(body.voting)) {
    if (key !== "strategy" && !allowed[body.voting.strategy].includes(key)) {
      errors.push({ path: `voting.${key}`, message: `not an option of ${body.voting.strategy} (its options: ${allowed[body.voting.strategy].join(", ")})` });
    }
  }
  if (errors.length) throw ApiError.validation(errors);
}

const VerdictSchema = z
  .object({
    kind: z.string(),
    confidence: z.number(),
    reasoning: z.string(),
    critic_id: z.string(),
    raw_response: z.string().nullable(),
    error: z.string().nullable(),
    elapsed_s: z.number(),
    prompt: z.object({ name: z.string(), version: z.number().int().nullable(), sha256: z.string() }),
  })
  .openapi("JudgeVerdict");

const ContestedItem = z
  .object({
    id: z.string(),
    index: z.number().int(),
    query: z.string().nullable(),
    consensus: z.string(),
    agreement_pct: z.number(),
    krippendorff_alpha: z.number().nullable(),
    reasons: z.array(z.enum(["agreement_below_threshold", "alpha_below_threshold", "fewer_than_two_valid_verdicts"])),
    verdicts: z.array(VerdictSchema),
  })
  .openapi("ContestedItem");

const ContestedPage = pageOf(ContestedItem, "ContestedItemPage").extend({ threshold: z.number() });

const PromptSchema = z
  .object({ name: z.string(), version: z.number().int(), description: z.string(), system_prompt: z.string(), prompt_template: z.string() })
  .openapi("CriticPrompt");

export const judge = createRouter()
  .openapi(
    createRoute({
      method: "post",
      path: "/runs",
      operationId: "createJudgeRun",
      tags: ["judge"],
      summary: "Judge a batch of items with a panel of LLM critics",
      description:
        "Each critic call is a unit of the run (items × critics). The result holds per item the consensus, agreement_pct, the per-item alpha and the verdicts; per batch Krippendorff's nominal alpha over the whole items × critics matrix, per-critic agreement with the consensus and a pairwise table; ERROR, PARSE_FAIL and off-vocabulary verdicts are counted apart from votes. Accepts `Idempotency-Key`.",
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
      checkEndpointUrls(body.critics.map((k, i) => [`critics.${i}.provider.base_url`, k.provider?.base_url]), loopbackAllowed(c.env));
      checkItemsAndVoting(body);
      const { critics, secrets } = await resolveCritics(body);
      const { strategy, ...options } = body.voting;
      const kwargs: Record<string, unknown> = { ...options };
      if (strategy === "weighted") kwargs.weights = Object.fromEntries(critics.map((cr) => [cr.name, cr.weight]));
      const config: JudgeConfig = {
        items: body.items.map((it) => ({ id: it.id, query: it.query, context: it.context, expected: it.expected ?? null })),
        critics,
        labels: body.labels,
        voting: { strategy, kwargs },
        contested_threshold: body.contested_threshold,
        seed: body.seed,
      };
      // The items stay with the coordinator and the samples; the stored config describes the panel.
      const publicConfig = {
        n_items: config.items.length,
        critics: critics.map(({ system_prompt: _s, prompt_template: _t, ...rest }) => rest),
        labels: config.labels,
        voting: config.voting,
        contested_threshold: config.contested_threshold,
        seed: config.seed,
        concurrency: body.concurrency,
      };
      const { run } = await createRun(c.env, c.var.db, c.var.tenantId, {
        evaluator: EVALUATOR,
        config,
        publicConfig,
        secrets,
        webhookUrl: body.webhook_url,
        concurrency: body.concurrency,
        leaseMs: singleCallLeaseMs(Math.max(...critics.map((cr) => cr.timeout_s))),
        body,
        idempotencyKey: c.req.valid("header")["idempotency-key"],
      });
      return c.json(runJson(run), 202);
    },
  )
  .openapi(
    createRoute({
      method: "get",
      path: "/runs/{run_id}/contested",
      operationId: "listContestedItems",
      tags: ["judge"],
      summary: "The human-review queue: items the panel could not agree on",
      description:
        "Items of an ended judge run whose agreement_pct or per-item alpha is below the threshold (the run's `contested_threshold` unless `threshold` is given), or with fewer than two valid verdicts, in item order, each with every verdict and its reasoning.",
      security: tenantSecurity,
      request: {
        params: IdParam("run_id", "run_0mhx3k2q1abcdefghij"),
        query: z.object({
          threshold: z.coerce.number().min(0).max(1).optional(),
          limit: z.coerce.number().int().min(1).max(LIMITS.pageSize.max).default(LIMITS.pageSize.default),
          after: z.string().regex(/^\d+$/).optional().openapi({ description: "`next_cursor` of the previous page" }),
        }),
      },
      responses: { 200: jsonResponse(ContestedPage, "A page of contested items"), ...problems(400, 401, 404, 409) },
    }),
    async (c) => {
      const { run_id } = c.req.valid("param");
      const { threshold: asked, limit, after } = c.req.valid("query");
      const run = await getRun(c.var.db, c.var.tenantId, run_id);
      if (!run || run.evaluator !== EVALUATOR) throw ApiError.notFound("The judge run");
      const result = run.result as JudgeResult | null;
      if (!result) throw new ApiError({ status: 409, type: "conflict", detail: `Run '${run_id}' is ${run.status}; contested items are known once it has ended.` });
      const threshold = asked ?? result.contested.threshold;
      const start = after === undefined ? 0 : Number(after) + 1;
      const picked: number[] = [];
      let index = start;
      for (; index < result.items.length && picked.length <= limit; index++) {
        if (contestedReasons(result.items[index], threshold).length) picked.push(index);
      }
      const page = picked.slice(0, limit);
      const critics = (run.config as { critics: unknown[] }).critics.length;
      const rows = await getSamples(c.var.db, run_id, page.flatMap((i) => Array.from({ length: critics }, (_, k) => unitId(i, k))));
      const outputs = new Map(rows.map((r) => [r.unitId, r.output === null ? null : (JSON.parse(r.output) as JudgeOutput)]));
      const data = page.map((i) => {
        const item = result.items[i];
        const found = Array.from({ length: critics }, (_, k) => outputs.get(unitId(i, k))).filter((o): o is JudgeOutput => !!o);
        return {
          id: item.id,
          index: i,
          query: found[0]?.query ?? null,
          consensus: item.consensus,
          agreement_pct: item.agreement_pct,
          krippendorff_alpha: item.krippendorff_alpha,
          reasons: contestedReasons(item, threshold) as z.infer<typeof ContestedItem>["reasons"],
          verdicts: found.map((o) => o.verdict),
        };
      });
      const hasMore = picked.length > limit;
      return c.json({ threshold, data, has_more: hasMore, next_cursor: hasMore ? String(page[page.length - 1]) : null }, 200);
    },
  )
  .openapi(
    createRoute({
      method: "get",
      path: "/prompts",
      operationId: "listCriticPrompts",
      tags: ["judge"],
      summary: "Our bank of critic prompts, every version",
      security: tenantSecurity,
      responses: { 200: jsonResponse(z.object({ default: z.string(), data: z.array(PromptSchema) }), "The bank"), ...problems(401) },
    }),
    (c) => c.json({ default: DEFAULT_CRITIC_PROMPT, data: [...CRITIC_PROMPTS] }, 200),
  );
