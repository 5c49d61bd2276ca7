import { DEFAULT_PROMPT_TEMPLATE, DEFAULT_SYSTEM_PROMPT, renderPrompt } from "../../engines/judge/index.ts";
import { VENDORS } from "../../providers/index.ts";
import { ApiError, type FieldError } from "../../errors.ts";
import { singleCallLeaseMs } from "../../runs/plugin/lease.ts";
import { callCost } from "../../platform/invocation-budget.ts";
import { requireStepsFit } from "../../runs/plugin/step-limits.ts";
import { resolveProviders, type ResolvedProvider } from "../../runs/plugin/connections.ts";
import { isSim, simulatorOrEndpoint } from "../../runs/plugin/model-fields.ts";
import type { CreateContext, NewRunOf } from "../../runs/plugin/plugin.ts";
import { resolveCriticPrompt } from "./prompt-ref.ts";
import { DEFAULT_CRITIC_PROMPT, INLINE_PROMPT, promptSha256 } from "./prompts.ts";
import type { JudgeBody } from "./request.ts";
import { criticSecret, templateContext, type JudgeRunConfig, type JudgeCriticConfig } from "./units.ts";

/**
 * Checks what the schema cannot and resolves each critic's endpoint and prompt (ours or the tenant's).
 * `providers` are the critics' `provider`s, resolved (a saved connection read). Throws one 400 naming
 * every field at fault.
 */
async function resolveCritics(
  body: JudgeBody,
  providers: (ResolvedProvider | undefined)[],
  ctx: Pick<CreateContext, "db" | "tenantId">,
): Promise<{ critics: JudgeCriticConfig[]; secrets: Record<string, string> }> {
  const errors: FieldError[] = [];
  const seen = new Set<string>();
  const secrets: Record<string, string> = {};
  const critics: JudgeCriticConfig[] = [];
  for (const [i, c] of body.critics.entries()) {
    const at = (field: string) => `critics.${i}.${field}`;
    if (seen.has(c.name)) errors.push({ path: at("name"), message: `'${c.name}' names two critics` });
    seen.add(c.name);
    const sim = isSim(c.model);
    const provider = providers[i];
    const baseUrl = sim ? null : (provider?.base_url ?? (c.vendor ? VENDORS[c.vendor].baseUrl : null));
    errors.push(...simulatorOrEndpoint(`critics.${i}.`, { ...c, endpoint: baseUrl }));
    // A connection is a whole endpoint: a vendor preset beside it would say nothing, or contradict it.
    if (c.vendor && provider?.connection)
      errors.push({ path: at("vendor"), message: "give either a vendor or provider.connection, not both" });
    if (sim && c.simulator?.bias && !body.labels.includes(c.simulator.bias.label)) {
      errors.push({ path: at("simulator.bias.label"), message: `'${c.simulator.bias.label}' is not in labels` });
    }
    if (!sim && c.vendor && !provider?.base_url && !provider?.api_key) {
      errors.push({ path: at("provider.api_key"), message: `the ${c.vendor} endpoint needs an API key` });
    }
    // Named here, read by the unit that calls this critic (units.ts).
    if (!sim && provider?.api_key) secrets[criticSecret(i)] = provider.api_key;
    let system = c.system_prompt;
    let template = c.prompt_template;
    let name = INLINE_PROMPT;
    let version: number | string | null = null;
    if (c.prompt !== undefined && (system !== undefined || template !== undefined)) {
      errors.push({
        path: at("prompt"),
        message: "give either prompt or your own system_prompt / prompt_template, not both",
      });
    } else if (system === undefined && template === undefined) {
      const found = await resolveCriticPrompt(ctx.db, ctx.tenantId, c.prompt ?? DEFAULT_CRITIC_PROMPT);
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
        errors.push(
          message.includes("missing required key")
            ? { path: `items.${j}.context`, message: `critic '${c.name}': ${message}` }
            : { path: at("prompt_template"), message },
        );
        break;
      }
    }
    critics.push({
      name: c.name,
      model: c.model,
      base_url: baseUrl,
      vendor: c.vendor ?? null,
      ...(provider?.connection ? { connection: provider.connection } : {}),
      temperature: c.temperature,
      max_tokens: c.max_tokens,
      timeout_s: c.timeout_s,
      weight: c.weight,
      system_prompt: system,
      prompt_template: template,
      prompt: { name, version, sha256: await promptSha256(system, template) },
      simulator: sim
        ? { bias: c.simulator?.bias ?? null, noise: c.simulator?.noise ?? 0, latency_ms: c.simulator?.latency_ms ?? 0 }
        : null,
    });
  }
  if (errors.length) throw ApiError.validation(errors);
  return { critics, secrets };
}

function checkItemsAndVoting(body: JudgeBody): void {
  const errors: FieldError[] = [];
  if (new Set(body.labels).size !== body.labels.length) errors.push({ path: "labels", message: "lists a label twice" });
  const ids = new Set<string>();
  for (const [i, item] of body.items.entries()) {
    if (ids.has(item.id)) errors.push({ path: `items.${i}.id`, message: `'${item.id}' names two items` });
    ids.add(item.id);
    if (item.expected !== undefined && !body.labels.includes(item.expected))
      errors.push({ path: `items.${i}.expected`, message: `'${item.expected}' is not in labels` });
  }
  const allowed: Record<string, string[]> = {
    majority: ["priority", "fallback"],
    unanimous: ["fallback"],
    weighted: ["fallback", "use_confidence"],
    first_disagreement: ["fallback", "disagree_label"],
  };
  for (const key of Object.keys(body.voting)) {
    if (key !== "strategy" && !allowed[body.voting.strategy].includes(key)) {
      errors.push({
        path: `voting.${key}`,
        message: `not an option of ${body.voting.strategy} (its options: ${allowed[body.voting.strategy].join(", ")})`,
      });
    }
  }
  if (errors.length) throw ApiError.validation(errors);
}

/**
 * A judge request as its run: the items stay with the coordinator and the samples; the stored (public)
 * config describes the panel, without its prompts' texts.
 */
export async function createJudgeRun(body: JudgeBody, ctx: CreateContext): Promise<NewRunOf<JudgeRunConfig>> {
  const providers = await resolveProviders(
    ctx,
    body.critics.map((k, i) => [`critics.${i}.provider`, k.provider]),
  );
  checkItemsAndVoting(body);
  requireStepsFit(
    body.critics.map((k, i) => ({
      path: `critics.${i}.timeout_s`,
      what: `Critic ${k.name}'s call and its retries`,
      cost: callCost(k.timeout_s),
    })),
  );
  const { critics, secrets } = await resolveCritics(body, providers, ctx);
  const { strategy, ...options } = body.voting;
  const kwargs: Record<string, unknown> = { ...options };
  if (strategy === "weighted") kwargs.weights = Object.fromEntries(critics.map((cr) => [cr.name, cr.weight]));
  const config: JudgeRunConfig = {
    items: body.items.map((it) => ({ id: it.id, query: it.query, context: it.context, expected: it.expected ?? null })),
    critics,
    labels: body.labels,
    voting: { strategy, kwargs },
    contested_threshold: body.contested_threshold,
    seed: body.seed,
  };
  const publicConfig = {
    n_items: config.items.length,
    critics: critics.map(({ system_prompt: _s, prompt_template: _t, ...rest }) => rest),
    labels: config.labels,
    voting: config.voting,
    contested_threshold: config.contested_threshold,
    seed: config.seed,
    concurrency: body.concurrency,
  };
  return { config, publicConfig, secrets, leaseMs: singleCallLeaseMs(Math.max(...critics.map((cr) => cr.timeout_s))) };
}
