// Voting strategies and the per-item aggregate (spec cross-judge.md §4, §5, §7). A strategy sees the
// verdicts in critic order, because ties are broken by first appearance.
import { itemAlpha } from "./agreement.ts";
import type { EnsembleVerdict, Vote } from "./types.ts";

/** `(verdicts, kwargs) → [consensus, disagreement]`; the function's `name` becomes `voting`. */
export type Strategy = (verdicts: readonly Vote[], kwargs?: Record<string, unknown>) => [string, boolean];

/** The verdicts every strategy and metric uses: `error` null (an empty-string error also excludes, a24/a30). */
export function validVotes<V extends Vote>(verdicts: readonly V[]): V[] {
  return verdicts.filter((v) => v.error === null || v.error === undefined);
}

// The reference passes kwargs verbatim, so an unknown one is a TypeError (v22): same here.
function checkKwargs(fn: string, kwargs: Record<string, unknown>, allowed: readonly string[]): void {
  for (const k of Object.keys(kwargs))
    if (!allowed.includes(k)) throw new TypeError(`${fn}: unexpected keyword argument '${k}'`);
}

function str(fn: string, kwargs: Record<string, unknown>, key: string, dflt: string): string {
  const v = kwargs[key] ?? dflt;
  if (typeof v !== "string") throw new TypeError(`${fn}: ${key} must be a string`);
  return v;
}

function distinctLabels(V: readonly Vote[]): number {
  return new Set(V.map((v) => v.kind)).size;
}

/**
 * Plurality with tie-break (spec §4 "majority"). kwargs `priority: string[] | null`, `fallback = "UNCLEAR"`.
 * No valid verdict → [fallback, false]. Tie → first `priority` entry in the tie set, else the tied label
 * seen first. Priority never overrides a strict winner (v09). Labels compare exactly.
 */
export function majority(verdicts: readonly Vote[], kwargs: Record<string, unknown> = {}): [string, boolean] {
  checkKwargs("majority", kwargs, ["priority", "fallback"]);
  const fallback = str("majority", kwargs, "fallback", "UNCLEAR");
  const priority = (kwargs.priority ?? null) as string[] | null;
  if (priority !== null && !Array.isArray(priority))
    throw new TypeError("majority: priority must be a list of labels or null");
  const V = validVotes(verdicts);
  if (V.length === 0) return [fallback, false];
  const counts = new Map<string, number>();
  for (const v of V) counts.set(v.kind, (counts.get(v.kind) ?? 0) + 1);
  const top = Math.max(...counts.values());
  const tied = [...counts.keys()].filter((k) => counts.get(k) === top); // Map keeps first-seen order
  const disagreement = counts.size > 1;
  if (tied.length === 1) return [tied[0], disagreement];
  const byPriority = (priority ?? []).find((p) => tied.includes(p));
  return [byPriority ?? tied[0], disagreement];
}

/**
 * All valid critics agree → [label, false]; otherwise, including no valid verdict, [fallback, true]
 * (spec §4; the empty case differs from majority on purpose, v19). kwargs: `fallback` only.
 */
export function unanimous(verdicts: readonly Vote[], kwargs: Record<string, unknown> = {}): [string, boolean] {
  checkKwargs("unanimous", kwargs, ["fallback"]);
  const fallback = str("unanimous", kwargs, "fallback", "UNCLEAR");
  const V = validVotes(verdicts);
  return distinctLabels(V) === 1 ? [V[0].kind, false] : [fallback, true];
}

/**
 * Weighted plurality (legacy `aggregation.weighted`, spec §4). Each valid verdict adds
 * `weights[critic_id] ?? 1` times, when `use_confidence` (default true), its confidence clamped to [0, 1].
 * Highest score wins; a tie goes to the label reached first. No valid verdict → [fallback, false].
 */
export function weighted(verdicts: readonly Vote[], kwargs: Record<string, unknown> = {}): [string, boolean] {
  checkKwargs("weighted", kwargs, ["weights", "use_confidence", "fallback"]);
  const fallback = str("weighted", kwargs, "fallback", "UNCLEAR");
  const weights = (kwargs.weights ?? {}) as Record<string, number>;
  const useConfidence = kwargs.use_confidence ?? true;
  const V = validVotes(verdicts);
  if (V.length === 0) return [fallback, false];
  const scores = new Map<string, number>();
  for (const v of V) {
    const w = weights[v.critic_id ?? ""] ?? 1;
    const c = useConfidence ? Math.max(0, Math.min(1, v.confidence ?? 0)) : 1;
    scores.set(v.kind, (scores.get(v.kind) ?? 0) + w * c);
  }
  let best = "";
  let bestScore = -Infinity;
  for (const [label, s] of scores) if (s > bestScore) [best, bestScore] = [label, s];
  return [best, scores.size > 1];
}

/** No valid verdict → [fallback, false]; one label → [label, false]; else [disagree_label ("DISAGREE"), true]. */
export function first_disagreement(verdicts: readonly Vote[], kwargs: Record<string, unknown> = {}): [string, boolean] {
  checkKwargs("first_disagreement", kwargs, ["disagree_label", "fallback"]);
  const fallback = str("first_disagreement", kwargs, "fallback", "UNCLEAR");
  const disagree = str("first_disagreement", kwargs, "disagree_label", "DISAGREE");
  const V = validVotes(verdicts);
  if (V.length === 0) return [fallback, false];
  return distinctLabels(V) === 1 ? [V[0].kind, false] : [disagree, true];
}

/**
 * Built-ins by lower-cased name. The reference knows only majority and unanimous; weighted and
 * first_disagreement (its legacy functions) are addressable by name here as an extension.
 */
export const STRATEGIES: Readonly<Record<string, Strategy>> = { majority, unanimous, weighted, first_disagreement };

/** @throws RangeError for an unknown name, listing the known ones (v23). */
export function resolveStrategy(voting: string | Strategy): { fn: Strategy; name: string } {
  if (typeof voting === "function") return { fn: voting, name: voting.name };
  const fn = STRATEGIES[voting.toLowerCase()];
  if (!fn)
    throw new RangeError(
      `resolveStrategy: unknown voting strategy '${voting}'. Known: ${Object.keys(STRATEGIES).join(", ")}`,
    );
  return { fn, name: voting };
}

export type AggregateOptions = {
  voting?: string | Strategy;
  votingKwargs?: Record<string, unknown>;
  meta?: Record<string, unknown>;
};

/**
 * One item's EnsembleVerdict (spec §7 `aggregate_verdicts`): strategy → consensus/disagreement;
 * avg_confidence over valid verdicts (0 if none, summed left to right like Python's `sum`);
 * agreement_pct = share of valid verdicts equal to the consensus string (§5); the per-item alpha (§6).
 */
export function aggregateVerdicts<V extends Vote>(
  queryId: string,
  verdicts: readonly V[],
  { voting = "majority", votingKwargs = {}, meta = {} }: AggregateOptions = {},
): EnsembleVerdict<V> {
  const { fn, name } = resolveStrategy(voting);
  const [consensus, disagreement] = fn(verdicts, votingKwargs);
  const V = validVotes(verdicts);
  let sum = 0;
  for (const v of V) sum += v.confidence ?? 0;
  return {
    query_id: queryId,
    verdicts: [...verdicts],
    consensus,
    avg_confidence: V.length ? sum / V.length : 0,
    disagreement,
    agreement_pct: V.length ? V.filter((v) => v.kind === consensus).length / V.length : 0,
    krippendorff_alpha: itemAlpha(verdicts),
    voting: name,
    meta,
  };
}
