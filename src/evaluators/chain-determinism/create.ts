import { SIM_DIVERGENCE } from "../../providers/index.ts";
import { ApiError } from "../../errors.ts";
import { modelConfig } from "../../runs/plugin/model-fields.ts";
import type { CreateContext, NewRunOf } from "../../runs/plugin/plugin.ts";
import { requireStepsFit } from "../../runs/plugin/step-limits.ts";
import type { ChainDeterminismBody } from "./request.ts";
import { loadSuite } from "./suites.ts";
import { turnCost, type ChainDeterminismRunConfig } from "./units.ts";

/** A request as its run: the suite it names snapshotted into the config, the model's key as a secret. */
export async function createChainDeterminismRun(
  body: ChainDeterminismBody,
  ctx: CreateContext,
): Promise<NewRunOf<ChainDeterminismRunConfig>> {
  const { db, tenantId } = ctx;
  const model = await modelConfig(body, { divergence: SIM_DIVERGENCE, latency_ms: 0 }, ctx);
  const suite = await loadSuite(db, tenantId, body.suite);
  if (!suite) throw ApiError.validation([{ path: "suite", message: `No suite '${body.suite}' for this tenant.` }]);
  if (body.n_queries > suite.suite.queries.length) {
    throw ApiError.validation([{ path: "n_queries", message: `The suite has ${suite.suite.queries.length} queries.` }]);
  }
  // A replay hands over to a fresh invocation between turns, never inside one (its call's attempts).
  const turn = turnCost(model.config);
  requireStepsFit([{ path: "timeout_s", what: "A replay's turn (one call and its retries)", cost: turn }]);
  const publicConfig = {
    ...model.config,
    suite: { id: suite.id, name: suite.name, sha256: suite.sha256 },
    n_queries: body.n_queries,
    n_replays: body.n_replays,
    temperature: body.temperature,
    concurrency: body.concurrency,
    max_turns: body.max_turns,
    max_tokens: body.max_tokens,
    min_success: body.min_success,
  };
  return {
    config: { ...publicConfig, suite_data: suite.suite },
    publicConfig,
    secrets: model.secrets,
    // A replay makes at most max_turns calls, each with its own retries: past this, it is presumed lost.
    leaseMs: body.max_turns * turn.ms + 60_000,
  };
}
