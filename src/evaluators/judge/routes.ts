import { createRoute, z } from "@hono/zod-openapi";
import { createRouter } from "../../routes/router.ts";
import { IdParam, jsonResponse, pageOf, problems, tenantSecurity } from "../../routes/openapi.ts";
import { LIMITS } from "../../limits.ts";
import { ApiError } from "../../errors.ts";
import { getRun, getSamples } from "../../db/runs.ts";
import { resultOf } from "../../runs/results/result.ts";
import { aggregateJudge, contestedReasons } from "./aggregate.ts";
import { CRITIC_PROMPTS, DEFAULT_CRITIC_PROMPT } from "./prompts.ts";
import { JudgeVerdict, NAME, type JudgeOutput } from "./schemas.ts";
import { unitId } from "./units.ts";

// The plug-in (index.ts) mounts these routes, so they name its runs by its name rather than import it.
const judge = { name: NAME, aggregate: aggregateJudge };

const ContestedItem = z
  .object({
    id: z.string(),
    index: z.number().int(),
    query: z.string().nullable(),
    consensus: z.string(),
    agreement_pct: z.number(),
    krippendorff_alpha: z.number().nullable(),
    reasons: z.array(z.enum(["agreement_below_threshold", "alpha_below_threshold", "fewer_than_two_valid_verdicts"])),
    verdicts: z.array(JudgeVerdict),
  })
  .openapi("ContestedItem");

const ContestedPage = pageOf(ContestedItem, "ContestedItemPage").extend({ threshold: z.number() });

const PromptSchema = z
  .object({
    name: z.string(),
    version: z.number().int(),
    description: z.string(),
    system_prompt: z.string(),
    prompt_template: z.string(),
  })
  .openapi("CriticPrompt");

/** judge's routes besides `POST /runs` (src/routes/evaluator-runs.ts), at /v1/judge: the human-review queue and the prompt bank. */
export const judgeRoutes = createRouter()
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
      if (!run || run.evaluator !== judge.name) throw ApiError.notFound("The judge run");
      const result = await resultOf(c.env.RESULTS, judge, run);
      if (!result)
        throw new ApiError({
          status: 409,
          type: "conflict",
          detail: `Run '${run_id}' is ${run.status}; contested items are known once it has ended.`,
        });
      const threshold = asked ?? result.contested.threshold;
      const start = after === undefined ? 0 : Number(after) + 1;
      const picked: number[] = [];
      let index = start;
      for (; index < result.items.length && picked.length <= limit; index++) {
        if (contestedReasons(result.items[index], threshold).length) picked.push(index);
      }
      const page = picked.slice(0, limit);
      const critics = (run.config as { critics: unknown[] }).critics.length;
      const rows = await getSamples(
        c.var.db,
        run_id,
        page.flatMap((i) => Array.from({ length: critics }, (_, k) => unitId(i, k))),
      );
      const outputs = new Map(
        rows.map((r) => [r.unitId, r.output === null ? null : (JSON.parse(r.output) as JudgeOutput)]),
      );
      const data = page.map((i) => {
        const item = result.items[i];
        const found = Array.from({ length: critics }, (_, k) => outputs.get(unitId(i, k))).filter(
          (o): o is JudgeOutput => !!o,
        );
        return {
          id: item.id,
          index: i,
          query: found[0]?.query ?? null,
          consensus: item.consensus,
          agreement_pct: item.agreement_pct,
          krippendorff_alpha: item.krippendorff_alpha,
          reasons: contestedReasons(item, threshold),
          verdicts: found.map((o) => o.verdict),
        };
      });
      const hasMore = picked.length > limit;
      return c.json(
        { threshold, data, has_more: hasMore, next_cursor: hasMore ? String(page[page.length - 1]) : null },
        200,
      );
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
      responses: {
        200: jsonResponse(z.object({ default: z.string(), data: z.array(PromptSchema) }), "The bank"),
        ...problems(401),
      },
    }),
    (c) => c.json({ default: DEFAULT_CRITIC_PROMPT, data: [...CRITIC_PROMPTS] }, 200),
  );
