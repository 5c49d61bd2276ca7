import {
  chainDivergenceRate,
  formatSummary,
  queryDivergenceDetails,
  type DivergenceRow,
} from "../../engines/chain-determinism/index.ts";
import { pyFloatJson } from "../../engines/python/index.ts";
import { addUsage, emptyUsage } from "../../runs/plugin/usage.ts";
import type { StoredSample } from "../../runs/plugin/types.ts";
import type { ChainDeterminismResult } from "./schemas.ts";
import { sampleRow, type ChainDeterminismRunConfig, type Output } from "./units.ts";

function tally(into: Record<string, number>, key: string | null) {
  if (key) into[key] = (into[key] ?? 0) + 1;
}

/**
 * The original's `chain_divergence_rate` plus what it lacks: modal share and first divergent step per
 * query, and what the endpoint reported (requests, token totals, fingerprints, models, providers).
 * One pass over the samples, keeping of each replay only what divergence reads (its query, tool-call
 * sequence and error fields), never its answer, rationale or turns.
 */
export function aggregate(config: ChainDeterminismRunConfig, samples: Iterable<StoredSample>): ChainDeterminismResult {
  const rows: DivergenceRow[] = [];
  const usage = emptyUsage();
  const fingerprints: Record<string, number> = {};
  const models: Record<string, number> = {};
  const providers: Record<string, number> = {};
  let requests = 0;
  for (const s of samples) {
    const { query_id, tool_call_sequence, error_category, error } = sampleRow(config, s) as DivergenceRow;
    rows.push({ query_id, tool_call_sequence, error_category, error });
    const output = s.output as Output | null;
    requests += output?.requests ?? output?.turns.length ?? 0;
    for (const t of output?.turns ?? []) {
      addUsage(usage, t.usage);
      tally(fingerprints, t.system_fingerprint);
      tally(models, t.model);
      tally(providers, t.provider);
    }
  }
  const stats = chainDivergenceRate(rows, config.min_success);
  const details = new Map(queryDivergenceDetails(rows, config.min_success).map((d) => [d.query_id, d]));
  return {
    model: config.model,
    n_replays: config.n_replays,
    temperature: config.temperature,
    ...stats,
    per_query: stats.per_query.map((p) => ({ ...p, ...(details.get(p.query_id) ?? {}) })),
    summary_text: formatSummary(stats, config.model),
    endpoint: { requests, usage, system_fingerprints: fingerprints, models, providers },
  };
}

/** The harness's summary is written by json.dumps, so its float fields read `0.0`, not `0`. */
export function wireResult(r: ChainDeterminismResult): unknown {
  return {
    ...r,
    ...(typeof r.temperature === "number" ? { temperature: pyFloatJson(r.temperature) } : {}),
    ...(typeof r.divergence_rate === "number" ? { divergence_rate: pyFloatJson(r.divergence_rate) } : {}),
    ...(Array.isArray(r.wilson_ci_95)
      ? { wilson_ci_95: r.wilson_ci_95.map((x) => (typeof x === "number" ? pyFloatJson(x) : x)) }
      : {}),
  };
}
