/**
 * A tenant's versioned prompts: an rpl bank (Heretix's prompt YAML layout) or a judge critic prompt
 * (cross-judge's), stored under `name@version` with its SHA-256, and named by runs as rpl's
 * `prompt_version` or a critic's `prompt`, so an A/B of two prompt versions is two names in one request.
 *
 * Decisions:
 * - A version is immutable: pushing a name@version again with the same content answers the stored one
 *   (200), with other content a 409. There is no update and no delete, so a name@version means the same
 *   texts for every run that ever names it (and runs keep their own snapshot anyway).
 * - All versions of a name share one kind, and our own prompts' names are refused, so `name@version`
 *   in a run is never ambiguous.
 * - The SHA-256 is that of what the model is sent, computed as the evaluator computes it for a run: a
 *   judge prompt's is the JSON of [system_prompt, user_prompt_template] (what every verdict records), an
 *   rpl bank's the JSON of [version, system, user_template, schema, paraphrases] (a run's
 *   `prompt_sha256`). The description is not hashed, but it is part of the version: changing it is a 409.
 */
import { createRoute, z } from "@hono/zod-openapi";
import { createRouter } from "./router.ts";
import { jsonBody, jsonResponse, pageOf, PageQuery, problems, bodyProblems, tenantSecurity } from "./openapi.ts";
import { jsonBody as guardJson } from "../middleware/json-body.ts";
import { LIMITS } from "../limits.ts";
import { ApiError } from "../errors.ts";
import { newId } from "../ids.ts";
import {
  anyVersionOf,
  countPrompts,
  getPrompt,
  insertPrompt,
  listPrompts,
  promptSummaryToWire,
  promptToWire,
  type JudgePromptContent,
  type PromptRow,
  type RplPromptContent,
} from "../db/prompts.ts";
import { DEFAULT_RPL_SCHEMA, RPL_PROMPTS, rplBankSha256 } from "../evaluators/rpl/prompts.ts";
import {
  CRITIC_PROMPTS,
  promptSha256,
  templateKeys,
  templateSyntaxError,
  YAML_DEFAULT_SYSTEM_PROMPT,
} from "../evaluators/judge/prompts.ts";

/** Prompt versions a tenant may keep (each is at most one request body, 1 MiB). */
export const PROMPT_VERSIONS_PER_TENANT = 500;

// Names and versions are path segments (/v1/prompts/{name}/{version}) and never contain "@", which
// separates them in a run's reference.
const PromptName = z
  .string()
  .regex(
    /^[A-Za-z0-9][A-Za-z0-9._-]{0,63}$/,
    "1 to 64 letters, digits, '.', '_' or '-', starting with a letter or digit",
  )
  .openapi({ example: "heretix-rpl" });
const PromptVersion = z
  .string()
  .regex(
    /^[A-Za-z0-9][A-Za-z0-9._+-]{0,63}$/,
    "1 to 64 letters, digits, '.', '_', '+' or '-', starting with a letter or digit",
  )
  .openapi({ example: "rpl_g5_v2_2025-08-29" });

const Text = (max: number) => z.string().min(1).max(max);
const withClaim = (s: string) => s.includes("{CLAIM}");

const Common = {
  name: PromptName.openapi({ description: "Runs name a version as name@version; a name holds versions of one kind" }),
  version: PromptVersion.openapi({
    description:
      "Immutable once pushed. For an rpl bank this is the full version string every hash uses (rotation, cache key, seeds), as the `version` of Heretix's YAML",
  }),
  description: z
    .string()
    .max(2000)
    .optional()
    .openapi({ description: "What this version is for (not hashed, but part of the version)" }),
};

const RplPromptBody = z
  .strictObject({
    kind: z.literal("rpl"),
    ...Common,
    system: Text(20_000).openapi({
      description: "The system text; a YAML literal block's final newline is part of it, and of every hash",
    }),
    user_template: Text(20_000).refine(withClaim, "must contain {CLAIM}"),
    paraphrases: z
      .array(Text(4000).refine(withClaim, "must contain {CLAIM}"))
      .min(1)
      .max(64)
      .superRefine((list, ctx) => {
        const first = new Map<string, number>();
        list.forEach((p, i) => {
          if (first.has(p)) ctx.addIssue({ code: "custom", path: [i], message: `repeats paraphrase ${first.get(p)}` });
          else first.set(p, i);
        });
      })
      .openapi({ description: "The bank's templates, 1–64 (Heretix's have 16), each containing {CLAIM}" }),
    schema: Text(20_000).optional().openapi({
      description:
        "The JSON-format instruction appended to `system`; default: that of our rpl-assay-v1 bank, copied into the version",
    }),
  })
  .openapi("CreateRplPromptRequest");

const JudgePromptBody = z
  .strictObject({
    kind: z.literal("judge"),
    ...Common,
    system_prompt: z
      .string()
      .max(20_000)
      .optional()
      .openapi({
        description: `The critic's system prompt ("" sends none); default "${YAML_DEFAULT_SYSTEM_PROMPT}", as cross-judge's YAML loader`,
      }),
    user_prompt_template: Text(20_000).openapi({
      description: "str.format style: {query}, {labels}, the items' context keys; {{ }} for literal braces",
    }),
  })
  .openapi("CreateJudgePromptRequest");

const CreatePromptRequest = z
  .discriminatedUnion("kind", [RplPromptBody, JudgePromptBody])
  .openapi("CreatePromptRequest", {
    example: {
      kind: "judge",
      name: "careful-critic",
      version: "0.2",
      system_prompt: "You are a careful judge.",
      user_prompt_template:
        'Item:\n{query}\n\nPick one label from {labels}. Answer with JSON only: {{"kind": "<label>", "confidence": <0-1>, "reasoning": "<1-3 sentences>"}}',
    },
  });

type CreateBody = z.infer<typeof CreatePromptRequest>;

const Summary = {
  id: z.string(),
  name: z.string(),
  version: z.string(),
  ref: z.string().openapi({
    description: "name@version: what rpl's `prompt_version` or a critic's `prompt` names",
    example: "careful-critic@0.2",
  }),
  sha256: z.string().openapi({
    description:
      "SHA-256 of what the model is sent (judge: the JSON of [system_prompt, user_prompt_template]; rpl: of [version, system, user_template, schema, paraphrases])",
  }),
  description: z.string().nullable(),
  created_at: z.string(),
};

const PromptSummary = z.object({ ...Summary, kind: z.enum(["rpl", "judge"]) }).openapi("PromptSummary");
const PromptSummaryPage = pageOf(PromptSummary, "PromptSummaryPage");
const RplPrompt = z
  .object({
    ...Summary,
    kind: z.literal("rpl"),
    system: z.string(),
    user_template: z.string(),
    schema: z.string(),
    paraphrases: z.array(z.string()),
  })
  .openapi("RplPrompt");
const JudgePrompt = z
  .object({ ...Summary, kind: z.literal("judge"), system_prompt: z.string(), user_prompt_template: z.string() })
  .openapi("JudgePrompt");
const Prompt = z.discriminatedUnion("kind", [RplPrompt, JudgePrompt]).openapi("Prompt");

const NameParam = z.object({ name: PromptName.openapi({ param: { name: "name", in: "path" } }) });
const VersionParams = z.object({
  name: PromptName.openapi({ param: { name: "name", in: "path" } }),
  version: PromptVersion.openapi({ param: { name: "version", in: "path" } }),
});

/** Every name our own prompts go by (rpl banks and critic prompts): a tenant's may not take one. */
const BUILT_IN_NAMES = new Set([...Object.keys(RPL_PROMPTS), ...CRITIC_PROMPTS.map((p) => p.name)]);

/** The stored texts of a request (defaults filled in) and their SHA-256. */
async function contentOf(
  body: CreateBody,
): Promise<{ content: RplPromptContent | JudgePromptContent; sha256: string }> {
  if (body.kind === "rpl") {
    const content: RplPromptContent = {
      system: body.system,
      user_template: body.user_template,
      schema: body.schema ?? DEFAULT_RPL_SCHEMA,
      paraphrases: body.paraphrases,
    };
    return { content, sha256: await rplBankSha256({ version: body.version, ...content }) };
  }
  const template = body.user_prompt_template;
  const problem =
    templateSyntaxError(template) ??
    (templateKeys(template).includes("query") ? null : "must use {query}, the item being judged");
  if (problem) throw ApiError.validation([{ path: "user_prompt_template", message: problem }]);
  const content: JudgePromptContent = {
    system_prompt: body.system_prompt ?? YAML_DEFAULT_SYSTEM_PROMPT,
    user_prompt_template: template,
  };
  return { content, sha256: await promptSha256(content.system_prompt, content.user_prompt_template) };
}

/** The stored version, if the push is the same version again; otherwise a 409 saying what differs. */
function sameVersion(stored: PromptRow, pushed: PromptRow): PromptRow {
  const ref = `${stored.name}@${stored.version}`;
  const differs =
    stored.kind !== pushed.kind
      ? `it is ${stored.kind === "rpl" ? "an rpl" : "a judge"} prompt`
      : stored.sha256 !== pushed.sha256
        ? `its texts differ (sha256 ${stored.sha256}, this push ${pushed.sha256})`
        : stored.description !== pushed.description
          ? "its description differs"
          : null;
  if (differs)
    throw new ApiError({
      status: 409,
      type: "conflict",
      detail: `${ref} exists and ${differs}. A version never changes: push the new texts as a new version.`,
    });
  return stored;
}

export const prompts = createRouter()
  .openapi(
    createRoute({
      method: "post",
      path: "/",
      operationId: "createPrompt",
      tags: ["prompts"],
      summary: "Push a prompt version: an rpl bank or a judge critic prompt",
      description:
        "Stores `name@version`, immutable, with its SHA-256. rpl's `prompt_version` and a judge critic's `prompt` then accept it as `name@version`. The same name@version pushed again with the same content answers the stored version (200); with other content, or another kind, it is a 409. Our own prompts' names are refused (400).",
      security: tenantSecurity,
      middleware: guardJson(LIMITS.bodyBytes),
      request: { body: jsonBody(CreatePromptRequest) },
      responses: {
        201: jsonResponse(Prompt, "The stored version"),
        200: jsonResponse(Prompt, "This version was already stored with the same content"),
        ...problems(...bodyProblems, 409, 422),
      },
    }),
    async (c) => {
      const body = c.req.valid("json");
      const { db, tenantId } = c.var;
      if (BUILT_IN_NAMES.has(body.name)) {
        throw ApiError.validation([
          { path: "name", message: `'${body.name}' is the name of one of our prompts; choose another` },
        ]);
      }
      const { content, sha256 } = await contentOf(body);
      const row: PromptRow = {
        id: newId("pmt"),
        tenantId,
        name: body.name,
        version: body.version,
        kind: body.kind,
        sha256,
        description: body.description ?? null,
        content,
        createdAt: new Date(),
      };
      const stored = await getPrompt(db, tenantId, body.name, body.version);
      if (stored) return c.json(promptToWire(sameVersion(stored, row)), 200);
      const sibling = await anyVersionOf(db, tenantId, body.name);
      if (sibling && sibling.kind !== body.kind) {
        throw new ApiError({
          status: 409,
          type: "conflict",
          detail: `'${body.name}' holds ${sibling.kind} prompts; a name's versions are all of one kind: choose another name.`,
        });
      }
      if ((await countPrompts(db, tenantId)) >= PROMPT_VERSIONS_PER_TENANT) {
        throw new ApiError({
          status: 422,
          type: "limit-exceeded",
          detail: `A tenant may keep at most ${PROMPT_VERSIONS_PER_TENANT} prompt versions.`,
        });
      }
      if (!(await insertPrompt(db, row))) {
        // Another push of this name@version was stored between the read and the insert: it is the version now.
        const raced = await getPrompt(db, tenantId, body.name, body.version);
        if (!raced) throw new Error("prompts: insert refused, yet no row for that name@version");
        return c.json(promptToWire(sameVersion(raced, row)), 200);
      }
      return c.json(promptToWire(row), 201);
    },
  )
  .openapi(
    createRoute({
      method: "get",
      path: "/",
      operationId: "listPrompts",
      tags: ["prompts"],
      summary: "List the tenant's prompt versions, newest first (without their texts)",
      description:
        "Our own prompts are not listed: the rpl banks are in the `prompt_version` description, the critic prompts at GET /v1/judge/prompts.",
      security: tenantSecurity,
      request: {
        query: PageQuery.extend({
          kind: z.enum(["rpl", "judge"]).optional().openapi({ description: "Only prompts of this kind" }),
        }),
      },
      responses: { 200: jsonResponse(PromptSummaryPage, "Prompt versions"), ...problems(400, 401) },
    }),
    async (c) => {
      const page = await listPrompts(c.var.db, c.var.tenantId, c.req.valid("query"));
      return c.json({ ...page, data: page.data.map(promptSummaryToWire) }, 200);
    },
  )
  .openapi(
    createRoute({
      method: "get",
      path: "/{name}",
      operationId: "listPromptVersions",
      tags: ["prompts"],
      summary: "The versions of one of the tenant's prompts, newest first (without their texts)",
      security: tenantSecurity,
      request: { params: NameParam, query: PageQuery },
      responses: { 200: jsonResponse(PromptSummaryPage, "Its versions"), ...problems(400, 401, 404) },
    }),
    async (c) => {
      const { name } = c.req.valid("param");
      const page = await listPrompts(c.var.db, c.var.tenantId, { ...c.req.valid("query"), name });
      // A name with no version at all is unknown; past the last page of a known one is an empty page.
      if (!page.data.length && !(await anyVersionOf(c.var.db, c.var.tenantId, name)))
        throw ApiError.notFound("The prompt");
      return c.json({ ...page, data: page.data.map(promptSummaryToWire) }, 200);
    },
  )
  .openapi(
    createRoute({
      method: "get",
      path: "/{name}/{version}",
      operationId: "getPrompt",
      tags: ["prompts"],
      summary: "One prompt version with its texts",
      security: tenantSecurity,
      request: { params: VersionParams },
      responses: { 200: jsonResponse(Prompt, "The version"), ...problems(400, 401, 404) },
    }),
    async (c) => {
      const { name, version } = c.req.valid("param");
      const row = await getPrompt(c.var.db, c.var.tenantId, name, version);
      if (!row) throw ApiError.notFound("The prompt version");
      return c.json(promptToWire(row), 200);
    },
  );
