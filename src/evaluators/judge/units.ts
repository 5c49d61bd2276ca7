// judge's units: one critic call about one item each; the config they work from and what each stores.
import { errorVerdict, judgeCritic } from "../../engines/judge/index.ts";
import { criticResponder, type Usage } from "../../providers/index.ts";
import { callCost, type StepCost } from "../../platform/invocation-budget.ts";
import { unitModel, type ModelSpec } from "../../runs/plugin/model-client.ts";
import type { UnitContext, UnitOutcome } from "../../runs/plugin/types.ts";
import type { JudgeOutput, JudgePublicConfig } from "./schemas.ts";

export type JudgeItem = { id: string; query: string; context: Record<string, unknown>; expected: string | null };

/** A critic as the units call it: as `Run.config` shows it, plus its prompt's texts (which the run's config does not show). */
export type JudgeCriticConfig = JudgePublicConfig["critics"][number] & {
  system_prompt: string;
  prompt_template: string;
};

/** The voting rule; `kwargs` are passed to the strategy as its keyword arguments (spec cross-judge.md §4). */
export type VotingConfig = JudgePublicConfig["voting"];

/**
 * What the run's coordinator and units work from (every item, each critic's prompts): kept by the platform, never shown.
 * `Run.config` shows `JudgePublicConfig` (schemas.ts).
 */
export type JudgeRunConfig = {
  items: JudgeItem[];
  critics: JudgeCriticConfig[];
  labels: string[];
  voting: VotingConfig;
  contested_threshold: number;
  seed: number;
};

/** The name of a critic's API key among the run's secrets. */
export const criticSecret = (index: number): string => `critic:${index}`;

export const unitId = (item: number, critic: number): string => `${item}:${critic}`;

export function parseUnit(id: string): { item: number; critic: number } {
  const m = /^(\d+):(\d+)$/.exec(id);
  if (!m) throw new Error(`judge: bad unit id '${id}'`);
  return { item: Number(m[1]), critic: Number(m[2]) };
}

/** The variables a critic's template sees: the vocabulary as {labels}, then the item's context (which wins). */
export function templateContext(labels: readonly string[], item: Pick<JudgeItem, "context">): Record<string, unknown> {
  return { labels: labels.join(" | "), ...item.context };
}

/**
 * The model critic `c` is: a simulator that plays its verdicts on the run's items, or its endpoint with
 * the key this module stored under `criticSecret(c)` when it created the run.
 */
function criticModel(config: JudgeRunConfig, c: number, i: number): ModelSpec {
  const critic = config.critics[c];
  const item = config.items[i];
  const sim = critic.simulator;
  if (!sim)
    return { kind: "endpoint", base_url: critic.base_url!, secret: criticSecret(c), timeout_s: critic.timeout_s };
  return {
    kind: "simulator",
    model: critic.model,
    seed: config.seed,
    latency_ms: sim.latency_ms,
    responders: [
      criticResponder({
        critic: critic.name,
        labels: config.labels,
        item: item.id,
        expected: item.expected,
        bias: sim.bias,
        noise: sim.noise,
      }),
    ],
  };
}

/** The most a unit may need: its critic's one call with its retries. */
export function unitCost(config: JudgeRunConfig, id: string): StepCost {
  return callCost(config.critics[parseUnit(id).critic].timeout_s);
}

/** One unit per (item, critic) call, item-major. */
export function plan(config: JudgeRunConfig): string[] {
  return config.items.flatMap((_, i) => config.critics.map((_, c) => unitId(i, c)));
}

/** Asks one critic about one item through the engine's `judgeCritic` (request, parsing) and keeps the verdict. */
export async function execute(id: string, ctx: UnitContext<JudgeRunConfig>, signal: AbortSignal): Promise<UnitOutcome> {
  const { item: i, critic: c } = parseUnit(id);
  const { config } = ctx;
  const item = config.items[i];
  const critic = config.critics[c];
  let usage: Usage | null = null;
  let fingerprint: string | null = null;
  const raw = await judgeCritic(
    {
      name: critic.name,
      model: critic.model,
      temperature: critic.temperature,
      max_tokens: critic.max_tokens,
      system_prompt: critic.system_prompt,
      prompt_template: critic.prompt_template,
    },
    item.query,
    {
      context: templateContext(config.labels, item),
      signal,
      connect: () => {
        const inner = unitModel(ctx, criticModel(config, c, i));
        return {
          async chat(request, options) {
            const response = await inner.chat(request, options);
            usage = response.usage ?? null;
            fingerprint = response.system_fingerprint ?? null;
            return response;
          },
        };
      },
    },
  );
  const verdict =
    raw.error === null && !config.labels.includes(raw.kind)
      ? { ...raw, error: `off_vocabulary: '${raw.kind}' is not one of ${config.labels.join(", ")}` }
      : raw;
  const output: JudgeOutput = {
    item_id: item.id,
    query: item.query,
    critic: critic.name,
    model: critic.model,
    prompt: critic.prompt,
    verdict: { ...verdict, prompt: critic.prompt },
    usage,
    system_fingerprint: fingerprint,
  };
  return verdict.error === null ? { status: "succeeded", output } : { status: "failed", output, error: verdict.error };
}

/** The output of a unit that gave up: an ERROR verdict, so its sample has the usual shape. */
export function failureOutput(config: JudgeRunConfig, id: string, error: string): JudgeOutput {
  const { item: i, critic: c } = parseUnit(id);
  const critic = config.critics[c];
  return {
    item_id: config.items[i].id,
    query: config.items[i].query,
    critic: critic.name,
    model: critic.model,
    prompt: critic.prompt,
    verdict: { ...errorVerdict(critic.name, error), prompt: critic.prompt },
    usage: null,
    system_fingerprint: null,
  };
}
