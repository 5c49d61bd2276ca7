/**
 * reasoning-quality's model-backed LS and SS (spec §11), on the platform's model clients:
 *
 * - LS `model`: an OpenAI-compatible chat model used as a contradiction checker. The primary generation's
 *   unit sends its own trace's consecutive step pairs right after generating it (at most `batch_size`
 *   pairs per call, T = 0, our prompt prompts/reasoning-quality/contradiction-checker.json) and records
 *   one label per pair, null where the call or its answer failed. The aggregate reads the recorded labels.
 * - SS `embeddings`: an OpenAI-compatible `/embeddings` endpoint, called when the run is aggregated (it
 *   needs all K traces of an item), distinct traces of consecutive items batched per call.
 *
 * Both have a simulator (`sim:*`, no key) so the paths run offline.
 */
import prompt from "../../../prompts/reasoning-quality/contradiction-checker.json" with { type: "json" };
import type { EmbedFn, NliLabel, StepPair } from "../../engines/reasoning-quality/index.ts";
import {
  checkerResponder,
  createSimEmbeddingClient,
  isSimModel,
  type ChatClient,
  type EmbeddingClient,
  type Usage,
} from "../../providers/index.ts";
import { simulatorClient } from "../../runs/plugin/model-client.ts";
import { addUsage, emptyUsage } from "../../runs/plugin/usage.ts";
import type { RqOutput } from "./schemas.ts";

export type LsModelConfig = {
  method: "model";
  model: string;
  base_url: string | null;
  /** The saved provider connection the endpoint and key came from, if the request named one. */
  connection?: string;
  batch_size: number;
  timeout_s: number;
  fallback: "neutral" | "lexical" | "none";
};
export type RqLs = { method: "lexical" } | { method: "none" } | LsModelConfig;

export type SsEmbeddingsConfig = {
  method: "embeddings";
  model: string;
  base_url: string | null;
  /** The saved provider connection the endpoint and key came from, if the request named one. */
  connection?: string;
  batch_size: number;
  timeout_s: number;
  dimensions: number | null;
  baseline: number | null;
  fallback: "jaccard" | "none";
};
export type RqSs = { method: "jaccard" } | { method: "none" } | SsEmbeddingsConfig;

/** Names of the backends' API keys among the run's secrets. */
export const LS_SECRET = "ls";
export const SS_SECRET = "ss";

export const CHECKER_PROMPT = { name: prompt.name, version: prompt.version };

const LABELS: readonly NliLabel[] = ["contradiction", "entailment", "neutral"];

/** The checker's messages for one batch of pairs. */
export function checkerMessages(pairs: readonly StepPair[]) {
  const fill = (template: string, values: Record<string, string | number>) =>
    template.replace(/\{(\w+)\}/g, (m, k: string) => (k in values ? String(values[k]) : m));
  const body = pairs
    .map((p, i) => fill(prompt.pair_template, { n: i + 1, premise: p.premise, hypothesis: p.hypothesis }))
    .join("\n\n");
  return [
    { role: "system" as const, content: prompt.system_prompt },
    { role: "user" as const, content: `${body}\n\n${fill(prompt.closing, { count: pairs.length })}` },
  ];
}

/**
 * The labels in a checker's answer: `{"labels": [...]}` or a bare array, possibly in a code fence or
 * after some prose (the first JSON value that parses); labels are matched case-insensitively. Throws
 * with the reason when there is no such list or it does not hold exactly `count` known labels.
 */
export function parseCheckerLabels(text: string, count: number): NliLabel[] {
  // The label list is the first JSON value that is one (`{"labels": [...]}` or an array of strings):
  // prose before it may hold other brackets ("pair [1] …").
  let list: unknown[] | undefined;
  for (const value of jsonValues(text)) {
    const candidate = Array.isArray(value)
      ? value
      : value && typeof value === "object"
        ? (value as { labels?: unknown }).labels
        : undefined;
    if (Array.isArray(candidate) && candidate.every((l) => typeof l === "string")) {
      list = candidate;
      break;
    }
  }
  if (!list) throw new Error(`the checker's answer holds no label list: ${JSON.stringify(text.slice(0, 120))}`);
  if (list.length !== count) throw new Error(`the checker answered ${list.length} labels for ${count} pairs`);
  return list.map((l, i) => {
    const label = (l as string).trim().toLowerCase() as NliLabel;
    if (!LABELS.includes(label))
      throw new Error(`label ${i + 1} is ${JSON.stringify(l)}, not one of ${LABELS.join(", ")}`);
    return label;
  });
}

/** Parse attempts per answer: a long answer full of brackets costs bounded work. */
const MAX_PARSE_ATTEMPTS = 200;

/** JSON objects and arrays in `text`, leftmost first; for each start, the longest span that parses. */
function* jsonValues(text: string): Generator<unknown> {
  let attempts = 0;
  for (let i = 0; i < text.length && attempts < MAX_PARSE_ATTEMPTS; i++) {
    if (text[i] !== "{" && text[i] !== "[") continue;
    const close = text[i] === "{" ? "}" : "]";
    for (let j = text.lastIndexOf(close); j > i && attempts < MAX_PARSE_ATTEMPTS; j = text.lastIndexOf(close, j - 1)) {
      attempts++;
      try {
        yield JSON.parse(text.slice(i, j + 1));
        break;
      } catch {
        // a shorter span may parse
      }
    }
  }
}

/** Checker calls one unit makes at once. */
export const CHECKER_PARALLEL = 4;

/**
 * Rounds of checker calls a primary unit's lease allows for: enough for a trace as long as
 * `max_tokens` allows (a step is at least one token), at most MAX_LEASED_ROUNDS. A longer check only
 * outlives its lease: the unit is dispatched again and finds the sample the first attempt wrote.
 */
export function checkerRounds(maxTokens: number, ls: LsModelConfig): number {
  return Math.min(MAX_LEASED_ROUNDS, Math.ceil(Math.ceil(maxTokens / ls.batch_size) / CHECKER_PARALLEL));
}
const MAX_LEASED_ROUNDS = 8;

/** What the primary unit records about LS: one label per pair (null = failed), and the checker's cost. */
export type CheckerRecord = NonNullable<RqOutput["nli"]>;

/**
 * A check stopped between two rounds (see `stepCheck`): the labels of each batch checked so far, in
 * order, and the errors and usage of their calls. Plain JSON, so it can be saved and continued elsewhere.
 */
export type CheckState = { batches: (NliLabel | null)[][]; errors: string[]; usage: Usage };

/**
 * Labels a trace's pairs, `batch_size` per call, in rounds of CHECKER_PARALLEL calls at once. A failed
 * call or an unusable answer leaves its pairs null and its reason in `errors`.
 */
export async function checkPairs(
  pairs: readonly StepPair[],
  ls: LsModelConfig,
  client: (batch: readonly StepPair[]) => ChatClient,
  signal: AbortSignal,
): Promise<CheckerRecord> {
  return (await stepCheck(pairs, ls, client, signal)) as CheckerRecord;
}

/**
 * `checkPairs` in steps, a round each: with `beforeRound`, the check stops before a round when it
 * answers false and returns `{ paused }`, its state; `stepCheck(…, { from: paused })` continues at the
 * next round, so the record is the same however many times it was stopped. A round's calls run at
 * once and the next round starts when all have answered, so a round's worst case is one call's.
 */
export async function stepCheck(
  pairs: readonly StepPair[],
  ls: LsModelConfig,
  client: (batch: readonly StepPair[]) => ChatClient,
  signal: AbortSignal,
  steps: { from?: CheckState; beforeRound?: () => boolean } = {},
): Promise<CheckerRecord | { paused: CheckState }> {
  const batches: StepPair[][] = [];
  for (let i = 0; i < pairs.length; i += ls.batch_size) batches.push(pairs.slice(i, i + ls.batch_size));
  const state: CheckState = steps.from ?? { batches: [], errors: [], usage: emptyUsage() };
  const check = async (batch: StepPair[]): Promise<(NliLabel | null)[]> => {
    try {
      const res = await client(batch).chat(
        { model: ls.model, messages: checkerMessages(batch), temperature: 0 },
        { signal },
      );
      addUsage(state.usage, res.usage);
      return parseCheckerLabels(res.choices?.[0]?.message?.content ?? "", batch.length);
    } catch (err) {
      if (signal.aborted) throw err;
      state.errors.push(err instanceof Error ? `${err.name}: ${err.message}` : String(err));
      return batch.map(() => null);
    }
  };
  // At most CHECKER_PARALLEL calls at once: a Worker invocation keeps only six connections open, and a
  // call queued behind others would spend its timeout waiting.
  while (state.batches.length < batches.length) {
    if (steps.beforeRound && !steps.beforeRound()) return { paused: state };
    const round = batches.slice(state.batches.length, state.batches.length + CHECKER_PARALLEL);
    state.batches.push(...(await Promise.all(round.map(check))));
  }
  return {
    labels: state.batches.flat(),
    errors: state.errors,
    calls: batches.length,
    failed_calls: state.errors.length,
    usage: state.usage,
  };
}

/** The checker client for a batch: the simulator bound to the batch, or the endpoint's client. */
export function checkerClient(
  ls: LsModelConfig,
  seed: number,
  endpoint: () => ChatClient,
): (batch: readonly StepPair[]) => ChatClient {
  if (!isSimModel(ls.model)) return () => endpoint();
  // The simulated checker answers only the batch it is made for: no default responder behind it.
  return (batch) =>
    simulatorClient({ kind: "simulator", model: ls.model, seed, responders: [checkerResponder(batch)], only: true });
}

/** Counts of an aggregate-time backend's calls. */
export type EmbeddingStats = { calls: number; texts: number; usage: { prompt_tokens: number; total_tokens: number } };

/** The engine's embed function over an embeddings client, counting calls and usage into `stats`. */
export function embedFn(
  ss: SsEmbeddingsConfig,
  client: EmbeddingClient,
  stats: EmbeddingStats,
  signal?: AbortSignal,
): EmbedFn {
  return async (texts) => {
    stats.calls++;
    const res = await client.embed(
      { model: ss.model, input: texts, ...(ss.dimensions ? { dimensions: ss.dimensions } : {}) },
      { signal },
    );
    stats.texts += texts.length;
    addUsage(stats.usage, res.usage);
    return res.data;
  };
}

export function embeddingClient(ss: SsEmbeddingsConfig, endpoint: () => EmbeddingClient): EmbeddingClient {
  return isSimModel(ss.model) ? createSimEmbeddingClient() : endpoint();
}
