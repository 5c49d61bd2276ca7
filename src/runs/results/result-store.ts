// Where a run's result lives: in its runs row while it is small, else in R2 (binding RESULTS) with the
// row keeping the object's key. A D1 row is at most 2 MB, and a judge run of 10,000 items or a large
// reasoning-quality run can pass that; the API links to the full result instead of inlining it.
import type { RunRow } from "../../db/runs.ts";
import type { EvaluatorPlugin } from "../plugin/plugin.ts";
import { LIMITS } from "../../limits.ts";

/** The columns of a runs row that say where its result is. */
export type StoredResult = { result: unknown; resultKey: string | null; resultBytes: number | null };

/**
 * One object per finish attempt: a finish that runs again (after a crash past its D1 write, or beside a
 * cancel) must not replace the object a settled row already names; the attempt whose row write did not
 * take deletes its own (dropUnusedResult).
 */
export const resultObjectKey = (runId: string): string => `runs/${runId}/result-${crypto.randomUUID()}.json`;

/** The inline threshold: LIMITS.inlineResultBytes, or a smaller RESULT_INLINE_BYTES where a deployment (or a test) sets one. */
export function inlineResultBytes(env: Env): number {
  const set = Number((env as { RESULT_INLINE_BYTES?: string }).RESULT_INLINE_BYTES);
  return Number.isSafeInteger(set) && set >= 0 ? Math.min(set, LIMITS.inlineResultBytes) : LIMITS.inlineResultBytes;
}

/**
 * The run's evaluator as far as its stored result goes: how it shows it, if not as stored. Callers pass
 * the plug-in (undefined for an evaluator no longer registered): the registry is not imported here,
 * since a plug-in's own routes read results through result.ts and this file.
 */
export type ResultPresenter = Pick<EvaluatorPlugin, "wireResult"> | undefined;

/**
 * The result as the API shows it, as JSON text (chain-determinism's `0.0` lexemes included). An R2
 * object holds this text, so `GET /v1/runs/{id}/result` streams it as it is.
 */
function wireText(evaluator: ResultPresenter, result: unknown): string {
  const present = evaluator?.wireResult;
  return JSON.stringify(present ? present(result) : result);
}

/**
 * Decides where a run's final result goes and puts it in R2 when it is too large for the row; returns
 * the row's columns. The object is written before the row points at it, so a row never names a
 * missing object.
 */
export async function storeResult(
  env: Env,
  runId: string,
  evaluator: ResultPresenter,
  result: unknown,
): Promise<StoredResult> {
  if (result === null || result === undefined) return { result: null, resultKey: null, resultBytes: null };
  const text = wireText(evaluator, result);
  const encoded = new TextEncoder().encode(text);
  if (encoded.length <= inlineResultBytes(env)) return { result, resultKey: null, resultBytes: encoded.length };
  const key = resultObjectKey(runId);
  await env.RESULTS.put(key, encoded, { httpMetadata: { contentType: "application/json" } });
  return { result: null, resultKey: key, resultBytes: encoded.length };
}

/** Deletes an object `storeResult` wrote for a row that did not take it (the run had ended otherwise). */
export async function dropUnusedResult(
  env: Env,
  stored: StoredResult,
  row: Pick<RunRow, "resultKey"> | undefined,
): Promise<void> {
  if (stored.resultKey && row?.resultKey !== stored.resultKey) await env.RESULTS.delete(stored.resultKey);
}

function missing(run: Pick<RunRow, "id">): Error {
  return new Error(`the result object of run ${run.id} is missing from R2`);
}

/**
 * A run's result as its evaluator stored it, wherever it lives; null for a run without one. An object
 * in R2 is read whole: callers are the reports and comparisons, which need the parsed result anyway.
 */
export async function loadResult(bucket: R2Bucket, run: Pick<RunRow, "id" | "result" | "resultKey">): Promise<unknown> {
  if (!run.resultKey) return run.result ?? null;
  const object = await bucket.get(run.resultKey);
  if (!object) throw missing(run);
  return JSON.parse(await object.text());
}

/**
 * The body of `GET /v1/runs/{id}/result`: the R2 object's stream as it is (never held whole here), or
 * the row's result as JSON text; null for a run without a result.
 */
export async function resultBody(
  bucket: R2Bucket,
  run: Pick<RunRow, "id" | "result" | "resultKey">,
  evaluator: ResultPresenter,
): Promise<ReadableStream | string | null> {
  if (run.resultKey) {
    const object = await bucket.get(run.resultKey);
    if (!object) throw missing(run);
    return object.body;
  }
  return run.result == null ? null : wireText(evaluator, run.result);
}
