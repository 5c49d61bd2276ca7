/**
 * Answer compliance and sample validity (spec rpl.md §6, as amended by the assay issue). A sample that
 * fails any check is kept and counted toward `attempted` but is not aggregated.
 *
 * Decisions (the issue/spec leave these to the port):
 * - `prob_true` must be a JSON number in [0, 1]. The original has no range check (out-of-range values were
 *   only clipped inside the logit) and accepted `true`/`false` because Python bool is an int; we reject
 *   both, per the "strict JSON prob_true in [0, 1]" and §18.5.
 * - An unparsable answer is an invalid sample, not an aborted run (the original's ba26b14 behaviour, §6).
 * - "No URLs or citations": the original's only citation heuristic is a URL test — the lowercased
 *   serialization containing `http://`, `https://` or `www.`. We apply that test to every string of the
 *   answer, keys included. Python ran it over `json.dumps` of the whole object; because every string
 *   there is bounded by quotes, no pattern can span two strings, so per-string testing gives the same
 *   verdict (except for non-ASCII look-alikes, which ASCII escaping hid from Python and which we also
 *   ignore, since none of the three patterns contains a character that a non-ASCII letter lowercases to).
 */

export type InvalidReason =
  | "unparsable"
  | "not_object"
  | "missing_prob_true"
  | "prob_true_not_number"
  | "prob_true_out_of_range"
  | "contains_url";

export type Compliance = {
  /** `prob_true` when it is a finite number in [0, 1]; otherwise null. */
  prob: number | null;
  /** True only when the answer parsed, `prob_true` passed, and no string contains a URL. */
  valid: boolean;
  /** Why the sample is invalid; null when valid. */
  reason: InvalidReason | null;
};

const URL_MARKERS = ["http://", "https://", "www."];

/** True when any string in `value` (object keys included) contains a URL marker, case-insensitively. */
export function containsUrl(value: unknown): boolean {
  // Iterative: a model's answer may nest arbitrarily deep, and a recursive walk would overflow the stack.
  const pending: unknown[] = [value];
  while (pending.length) {
    const v = pending.pop();
    if (typeof v === "string") {
      const s = v.toLowerCase();
      if (URL_MARKERS.some((m) => s.includes(m))) return true;
    } else if (Array.isArray(v)) pending.push(...v);
    else if (v !== null && typeof v === "object") for (const [k, x] of Object.entries(v)) pending.push(k, x);
  }
  return false;
}

/** Check an already-parsed answer object. */
export function checkAnswer(raw: unknown): Compliance {
  if (raw === null || typeof raw !== "object" || Array.isArray(raw))
    return { prob: null, valid: false, reason: "not_object" };
  if (!Object.hasOwn(raw, "prob_true")) return { prob: null, valid: false, reason: "missing_prob_true" };
  const p = (raw as Record<string, unknown>).prob_true;
  if (typeof p !== "number" || !Number.isFinite(p)) return { prob: null, valid: false, reason: "prob_true_not_number" };
  if (p < 0 || p > 1) return { prob: null, valid: false, reason: "prob_true_out_of_range" };
  if (containsUrl(raw)) return { prob: p, valid: false, reason: "contains_url" };
  return { prob: p, valid: true, reason: null };
}

/**
 * Parse a provider's response text as strict JSON (no code fences, no trailing prose) and check it.
 * Returns the parsed object too, so the caller can store it.
 */
export function parseAnswer(text: string): Compliance & { raw: unknown } {
  let raw: unknown;
  try {
    raw = JSON.parse(text);
  } catch {
    return { raw: null, prob: null, valid: false, reason: "unparsable" };
  }
  return { raw, ...checkAnswer(raw) };
}
