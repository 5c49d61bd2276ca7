import defaultSuite from "../../prompts/chain-determinism/default-suite.json" with { type: "json" };
import {
  chainDivergenceRate,
  formatSummary,
  queryDivergenceDetails,
  runReplay,
  validateSuite,
  type DivergenceRow,
  type ReplayRecord,
  type Suite,
  type TurnInfo,
} from "../engines/chain-determinism/index.ts";
import { parseLossless, pyFloatJson } from "../engines/python/index.ts";
import { ProviderError, type ChatClient, type ModelSettings } from "../providers/index.ts";
import type { Evaluator, StoredSample, UnitOutcome } from "./types.ts";

/** Our default suite (prompts/chain-determinism/default-suite.json), validated once at load. */
export const DEFAULT_SUITE: Suite = validateSuite(defaultSuite);

export type ChainDeterminismConfig = ModelSettings & {
  suite: { id: string; name: string; sha256: string };
  suite_data: Suite;
  n_queries: number;
  n_replays: number;
  temperature: number;
  max_turns: number;
  max_tokens: number;
  min_success: number;
};

/** The original harness's per-replay row, in its key order (spec §7). */
export type ReplayRow = ReplayRecord & { query_id: string; query_type: string | null; run_idx: number };

/**
 * A unit's stored output: the harness's row, what each response reported, and `requests`, the HTTP
 * requests sent for it (retries and failed requests included; absent in samples stored before it was
 * counted, which then count one per response).
 */
type Output = { row: ReplayRow; turns: TurnInfo[]; requests?: number };

/** The chat client with a count of the HTTP requests its calls sent, failed ones and retries included. */
function counted(chat: ChatClient): { chat: ChatClient; requests: () => number } {
  let requests = 0;
  return {
    requests: () => requests,
    chat: {
      async chat(request, options) {
        try {
          const response = await chat.chat(request, options);
          requests += response.attempts ?? 1;
          return response;
        } catch (e) {
          requests += (e instanceof ProviderError ? e.attempts : undefined) ?? 1;
          throw e;
        }
      },
    },
  };
}

const unitId = (q: number, r: number) => `q${q}.r${r}`;

function parseUnit(id: string): { q: number; r: number } {
  const m = /^q(\d+)\.r(\d+)$/.exec(id);
  if (!m) throw new Error(`chain-determinism: bad unit id '${id}'`);
  return { q: Number(m[1]), r: Number(m[2]) };
}

function rowOf(record: ReplayRecord, query: { query_id: string; query_type?: string }, r: number): ReplayRow {
  const where = { query_id: query.query_id, query_type: query.query_type ?? null, run_idx: r };
  // Replay-exception rows lead with the ids, the others end with them, as the harness writes them.
  return record.error_category?.startsWith("replay_exception:") ? { ...where, ...record } : { ...record, ...where };
}

/** A unit that gave up (its attempts ran out outside the agent loop) is an error row, never a lost one. */
function failureRow(config: ChainDeterminismConfig, id: string, error: string): ReplayRow {
  const { q, r } = parseUnit(id);
  const empty = { tool_call_sequence: [], final_answer: null, rationale: "", n_tool_calls: 0 };
  return rowOf({ ...empty, error_category: `replay_exception: UnitFailed: ${error}` }, config.suite_data.queries[q], r);
}

function sampleRow(config: ChainDeterminismConfig, s: StoredSample): ReplayRow {
  return (s.output as Output | null)?.row ?? failureRow(config, s.unitId, s.error ?? "unknown");
}

function addUsage(total: { prompt_tokens: number; completion_tokens: number; total_tokens: number }, t: TurnInfo) {
  if (!t.usage) return;
  total.prompt_tokens += t.usage.prompt_tokens;
  total.completion_tokens += t.usage.completion_tokens;
  total.total_tokens += t.usage.total_tokens;
}

function tally(into: Record<string, number>, key: string | null) {
  if (key) into[key] = (into[key] ?? 0) + 1;
}

/**
 * chain-determinism on the run platform: one unit per (query, replay); aggregation is the
 * original's `chain_divergence_rate` plus what it lacks (modal share and first divergent step per
 * query, fingerprints, providers and token totals).
 */
export const chainDeterminism: Evaluator<ChainDeterminismConfig> = {
  name: "chain-determinism",

  plan(config) {
    const ids: string[] = [];
    for (let q = 0; q < config.n_queries; q++) for (let r = 0; r < config.n_replays; r++) ids.push(unitId(q, r));
    return ids;
  },

  async execute(id, ctx, signal): Promise<UnitOutcome> {
    const { q, r } = parseUnit(id);
    const config = ctx.config;
    const suite = config.suite_data;
    const query = suite.queries[q];
    const client = counted(ctx.chat(r));
    const { record, turns } = await runReplay({
      chat: client.chat,
      model: config.model,
      systemPrompt: suite.system_prompt,
      user: query.user,
      tools: suite.tools,
      stubs: suite.stubs,
      temperature: config.temperature,
      maxTurns: config.max_turns,
      maxTokens: config.max_tokens,
      seed: config.seed ?? undefined,
      signal,
    });
    const row = rowOf(record, query, r);
    const output: Output = { row, turns, requests: client.requests() };
    return row.error_category ? { status: "failed", output, error: row.error_category } : { status: "succeeded", output };
  },

  aggregate(config, samples) {
    const rows = samples.map((s) => sampleRow(config, s));
    const stats = chainDivergenceRate(rows as DivergenceRow[], config.min_success);
    const details = new Map(queryDivergenceDetails(rows as DivergenceRow[], config.min_success).map((d) => [d.query_id, d]));
    const usage = { prompt_tokens: 0, completion_tokens: 0, total_tokens: 0 };
    const fingerprints: Record<string, number> = {};
    const models: Record<string, number> = {};
    const providers: Record<string, number> = {};
    let requests = 0;
    for (const s of samples) {
      const output = s.output as Output | null;
      requests += output?.requests ?? output?.turns.length ?? 0;
      for (const t of output?.turns ?? []) {
        addUsage(usage, t);
        tally(fingerprints, t.system_fingerprint);
        tally(models, t.model);
        tally(providers, t.provider);
      }
    }
    return {
      model: config.model,
      n_replays: config.n_replays,
      temperature: config.temperature,
      ...stats,
      per_query: stats.per_query.map((p) => ({ ...p, ...(details.get(p.query_id) ?? {}) })),
      summary_text: formatSummary(stats, config.model),
      endpoint: { requests, usage, system_fingerprints: fingerprints, models, providers },
    };
  },

  // The harness's summary is written by json.dumps, so its float fields read `0.0`, not `0`.
  wireResult(result) {
    const r = result as { temperature?: number; divergence_rate?: number | null; wilson_ci_95?: (number | null)[] };
    return {
      ...r,
      ...(typeof r.temperature === "number" ? { temperature: pyFloatJson(r.temperature) } : {}),
      ...(typeof r.divergence_rate === "number" ? { divergence_rate: pyFloatJson(r.divergence_rate) } : {}),
      ...(Array.isArray(r.wilson_ci_95) ? { wilson_ci_95: r.wilson_ci_95.map((x) => (typeof x === "number" ? pyFloatJson(x) : x)) } : {}),
    };
  },

  // Lossless: a stored `1.0` must stay a float, or the sequence keys (and so divergence) change.
  parseOutput: (text) => parseLossless(text),

  failureOutput(config, id, error): Output {
    return { row: failureRow(config, id, error), turns: [] };
  },

  exportLine(sample) {
    return (sample.output as Output | null)?.row ?? null;
  },
};
