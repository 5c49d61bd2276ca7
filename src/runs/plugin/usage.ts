import type { Usage } from "../../providers/index.ts";

/**
 * Token usage summed over many responses. Every evaluator that reports `usage` adds responses up the
 * same way, so this is the one place that does it: a missing figure adds 0, and a total keeps only the
 * fields it was made with (an embeddings total has no `completion_tokens`, and must not grow one).
 */
export function emptyUsage(): Usage {
  return { prompt_tokens: 0, completion_tokens: 0, total_tokens: 0 };
}

const KEYS = ["prompt_tokens", "completion_tokens", "total_tokens"] as const;

/** Adds `more` into `into` (the fields `into` has) and returns `into`. */
export function addUsage<T extends Partial<Usage>>(into: T, more: Partial<Usage> | null | undefined): T {
  if (!more) return into;
  for (const k of KEYS) if (k in into) (into as Partial<Usage>)[k]! += more[k] ?? 0;
  return into;
}
