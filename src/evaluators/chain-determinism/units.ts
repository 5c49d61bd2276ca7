// chain-determinism's units: one replay of one query each, through the engine's agent loop.
import { stepReplay, type ReplayRecord, type ReplayState, type Suite } from "../../engines/chain-determinism/index.ts";
import { ProviderError, type ChatClient, type ModelSettings } from "../../providers/index.ts";
import { callCost, type StepCost } from "../../platform/invocation-budget.ts";
import { unitModel } from "../../runs/plugin/model-client.ts";
import type { StoredSample, UnitContext, UnitOutcome } from "../../runs/plugin/types.ts";
import type { ChainDeterminismOutput } from "./schemas.ts";

/**
 * What the run's coordinator and units work from (the whole suite, not its summary): kept by the platform, never shown.
 * `Run.config` shows `ChainDeterminismPublicConfig` (schemas.ts).
 */
export type ChainDeterminismRunConfig = ModelSettings & {
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
 * A unit's stored output as `ChainDeterminismOutput` (schemas.ts) declares it, with the row as the engine
 * holds it too. The schema can say only `unknown` of the JSON the model sent (tool arguments, a final
 * answer); read back losslessly (`parseOutput`), those are the engine's Python-plain values, floats kept
 * as raw JSON (`1.0`), which the sequences' divergence compares as the harness does. The intersection
 * keeps the two in step: a field the schema requires and the engine's row lacks, or a type they disagree
 * on, does not compile.
 */
export type Output = Omit<ChainDeterminismOutput, "row"> & { row: ReplayRow & ChainDeterminismOutput["row"] };

/** The chat client with a count of the HTTP requests its calls sent, failed ones and retries included. */
function counted(chat: ChatClient, from = 0): { chat: ChatClient; requests: () => number } {
  let requests = from;
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
export function failureRow(config: ChainDeterminismRunConfig, id: string, error: string): ReplayRow {
  const { q, r } = parseUnit(id);
  const empty = { tool_call_sequence: [], final_answer: null, rationale: "", n_tool_calls: 0 };
  return rowOf({ ...empty, error_category: `replay_exception: UnitFailed: ${error}` }, config.suite_data.queries[q], r);
}

export function sampleRow(config: ChainDeterminismRunConfig, s: StoredSample): ReplayRow {
  return (s.output as Output | null)?.row ?? failureRow(config, s.unitId, s.error ?? "unknown");
}

/** One unit per (query, replay), query-major. */
export function plan(config: ChainDeterminismRunConfig): string[] {
  const ids: string[] = [];
  for (let q = 0; q < config.n_queries; q++) for (let r = 0; r < config.n_replays; r++) ids.push(unitId(q, r));
  return ids;
}

/** The most one turn of a replay may need: its one call with the retry policy's attempts and waits (callCost). */
export function turnCost(config: Pick<ChainDeterminismRunConfig, "timeout_s">): StepCost {
  return callCost(config.timeout_s);
}

/** Where a replay that handed over mid-way stopped, as the unit saves it: the engine's state and the requests sent so far. */
type Saved = { replay: ReplayState; requests: number };

/**
 * One replay of one query through the engine's agent loop, on the run's model (the replay index salts
 * the simulator). On the platform it asks before each turn whether the turn's worst case still fits
 * in the lane's invocation; if not, it saves the conversation so far and stops, and the unit's next
 * run continues it with the very requests an unbroken replay sends.
 */
export async function execute(
  id: string,
  ctx: UnitContext<ChainDeterminismRunConfig>,
  signal: AbortSignal,
): Promise<UnitOutcome> {
  const { q, r } = parseUnit(id);
  const config = ctx.config;
  const suite = config.suite_data;
  const query = suite.queries[q];
  const saved = ctx.steps?.saved ? (JSON.parse(ctx.steps.saved) as Saved) : null;
  const client = counted(unitModel(ctx, { kind: "run", salt: r }), saved?.requests);
  const steps = ctx.steps;
  const cost = turnCost(config);
  const done = await stepReplay({
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
    from: saved?.replay,
    beforeTurn: steps && (() => steps.fits(cost)),
  });
  if ("paused" in done)
    return steps!.pause(JSON.stringify({ replay: done.paused, requests: client.requests() } satisfies Saved));
  const { record, turns } = done;
  const row = rowOf(record, query, r);
  const output: Output = { row, turns, requests: client.requests() };
  return row.error_category ? { status: "failed", output, error: row.error_category } : { status: "succeeded", output };
}
