// Plain data shapes of the judge engine (spec cross-judge.md §1). Field names follow the reference's
// wire names (snake_case) so verdicts can be stored and compared with the golden vectors unchanged.

/** One critic's answer about one item (spec §1 "Verdict"). */
export type Verdict = {
  /** The label; any string (no vocabulary check). */
  kind: string;
  /** In [0, 1]. */
  confidence: number;
  reasoning: string;
  critic_id: string;
  /** The stripped assistant content, kept for audit; null when there was no usable content. */
  raw_response: string | null;
  /** Non-null ⇒ the verdict is errored and every strategy and metric ignores it (spec §1: keyed on `error`, not `kind`). */
  error: string | null;
  /** Wall seconds, rounded to 3 decimals. */
  elapsed_s: number;
};

/** The minimum a strategy or metric reads from a verdict. */
export type Vote = Pick<Verdict, "kind" | "error"> & Partial<Pick<Verdict, "confidence" | "critic_id">>;

/** One item judged by the whole panel (spec §1 "EnsembleVerdict"). */
export type EnsembleVerdict<V extends Vote = Verdict> = {
  query_id: string;
  verdicts: V[];
  consensus: string;
  /** Mean confidence of the non-errored verdicts; 0 if none. */
  avg_confidence: number;
  disagreement: boolean;
  /** Share of non-errored verdicts whose label equals `consensus` (spec §5). */
  agreement_pct: number;
  /** The library's per-item alpha: a degenerate 1 / 0 / null indicator (spec §6), kept for compatibility. */
  krippendorff_alpha: number | null;
  /** The strategy name as given, or the custom function's name. */
  voting: string;
  meta: Record<string, unknown>;
};
