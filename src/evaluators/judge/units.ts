// judge's units: one critic call about one item each; the config they work from and what each stores.
import { errorVerdict, judgeCritic, type Verdict } from "../../engines/judge/index.ts";
import { criticResponder, type Usage } from "../../providers/index.ts";
import { callCost, type StepCost } from "../../platform/invocation-budget.ts";
import { unitModel, type ModelSpec } from "../../runs/plugin/model-client.ts";
import type { UnitContext, UnitOutcome } from "../../runs/plugin/types.ts";
import type { PromptRef } from "./prompts.ts";

export type JudgeItem = { id: string; query: string; context: Record<string, unknown>; expected: string | null };

export type JudgeCriticConfig = {
  name: string;
  model: string;
  /** The resolved endpoint (preset or provider.base_url); null for a simulator critic. */
  base_url: string | null;
  vendor: string | null;
  /** The saved provider connection the endpoint and key came from, if the request named one. */
  connection?: string;
  temperature: number;
  max_tokens: number;
  timeout_s: number;
  weight: number;
  system_prompt: string;
  prompt_template: string;
  prompt: PromptRef;
  simulator: { bias: { label: string; rate: number } | null; noise: number; latency_ms: number } | null;
};

export type VotingConfig = {
  strategy: "majority" | "unanimous" | "weighted" | "first_disagreement";
  /** Passed to the strategy as its keyword arguments (spec cross-judge.md §4). */
  kwargs: Record<string, unknown>;
};

export type JudgeConfig = {
  items: JudgeItem[];
  critics: JudgeCriticConfig[];
  labels: string[];
  voting: VotingConfig;
  contested_threshold: number;
  seed: number;
};

/** One stored unit: the verdict and what produced it. */
export type JudgeOutput = {
  item_id: string;
  query: string;
  critic: string;
  model: string;
  prompt: PromptRef;
  verdict: Verdict & { prompt: PromptRef };
  usage: Usage | null;
  system_fingerprint: string | null;
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
function criticModel(config: JudgeConfig, c: number, i: number): ModelSpec {
  const critic = config.critics[c];
  const item = config.items[i];
  const sim = critic.simulator;
  if (!sim) return { kind: "endpoint", base_url: critic.base_url!, secret: criticSecret(c), timeout_s: critic.timeout_s };
  return {
    kind: "simulator",
    model: critic.model,
    seed: config.seed,
    latency_ms: sim.latency_ms,
    responders: [criticResponder({ critic: critic.name, labels: config.labels, item: item.id, expected: item.expected, bias: sim.bias, noise: sim.noise })],
  };
}

/** The most a unit may need: its critic's one call with its retries. */
export function unitCost(config: JudgeConfig, id: string): StepCost {
  return callCost(config.critics[parseUnit(id).critic].timeout_s);
}

/** One unit per (item, critic) call, item-major. */
export function plan(config: JudgeConfig): string[] {
  return config.items.flatMap((_, i) => config.critics.map((_, c) => unitId(i, c)));
}

/** Asks one critic about one item through the engine's `judgeCritic` (request, parsing) and keeps the verdict. */
export async function execute(id: string, ctx: UnitContext<JudgeConfig>, signal: AbortSignal): Promise<UnitOutcome> {
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
export function failureOutput(config: JudgeConfig, id: string, error: string): JudgeOutput {
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
