// A critic's answer → Verdict (spec cross-judge.md §2 steps 4–5 and §3). Reference behaviour is kept
// except for four deliberate fixes of reference bugs, each marked FIX below and tested on its own:
//   FIX-think   a `<think>…</think>` block is removed before the JSON is located (p40: braces inside
//               the reasoning block made the reference fail to parse a valid answer);
//   FIX-comma   a trailing comma before a newline and an *indented* closing bracket is repaired (p25);
//               the reference repaired only the exact ",\n}" form;
//   FIX-nan     a NaN confidence becomes 0, not 1.0 (p32, p33: Python's min(1, nan) quirk);
//   FIX-percent "85%" means 0.85, not 0 (p10). A bare number above 1 (85) still clamps to 1.0 (p11),
//               as the spec says, because it is ambiguous (0..100 or out of range).
import { headCodePoints, pyFloat, pyStr, substitutePyTokens } from "../python/index.ts";
import type { Verdict } from "./types.ts";

const FENCE = "```";

/**
 * Extract the JSON object from a stripped answer, or null (spec §3 steps 2–4, plus FIX-think and
 * FIX-comma). Only objects count: `null`, arrays or scalars at the top level are failures.
 */
export function extractJsonObject(stripped: string): Record<string, unknown> | null {
  let s = stripped;
  if (s.startsWith(FENCE)) {
    const nl = s.indexOf("\n");
    if (nl >= 0) s = s.slice(nl + 1);
    if (s.endsWith(FENCE)) s = s.slice(0, -FENCE.length).trimEnd();
  }
  // FIX-think: reasoning models put free text (often with braces) before the answer.
  s = s.replace(/<think>[\s\S]*?<\/think>/g, "");
  const i = s.indexOf("{");
  const j = s.lastIndexOf("}");
  if (i < 0 || j < 0 || j <= i) return null;
  const span = s.slice(i, j + 1);
  const parsed = tryParse(span) ?? tryParse(span.replace(/,(\s*\n\s*)([}\]])/g, "$1$2"));
  return parsed !== null && typeof parsed === "object" && !Array.isArray(parsed)
    ? (parsed as Record<string, unknown>)
    : null;
}

function tryParse(text: string): unknown {
  try {
    return JSON.parse(substitutePyTokens(text));
  } catch {
    return null;
  }
}

/**
 * Confidence as the reference reads it (Python `float()` then `max(0, min(1, x))`), with FIX-nan and
 * FIX-percent. Missing, null or unreadable → 0; +inf → 1; −inf → 0.
 */
export function readConfidence(value: unknown): number {
  let x = value === undefined ? 0 : pyFloat(value);
  if (x === null && typeof value === "string") {
    // FIX-percent: "85%" / " 12.5 % " are percentages.
    const m = /^\s*([+-]?(?:\d+\.?\d*|\.\d+))\s*%\s*$/.exec(value);
    if (m) x = Number(m[1]) / 100;
  }
  if (x === null || Number.isNaN(x)) return 0; // FIX-nan (the reference gives 1.0 for NaN)
  return Math.max(0, Math.min(1, x));
}

/** The ERROR verdict of spec §2 step 3 (any failure while calling) or step 4 (`empty_response`). */
export function errorVerdict(criticId: string, error: string, elapsedS = 0, reasoning = error): Verdict {
  return {
    kind: "ERROR",
    confidence: 0,
    reasoning,
    critic_id: criticId,
    raw_response: null,
    error,
    elapsed_s: elapsedS,
  };
}

/**
 * Turn assistant content into a Verdict (spec §2 steps 4–5, §3).
 * - content null/blank → ERROR, error "empty_response", reasoning "empty response from LLM";
 * - no JSON object → PARSE_FAIL, error "parse_fail", reasoning = first 300 code points, raw kept;
 * - otherwise label = str(kind ?? verdict ?? "UNCLEAR") stripped and upper-cased (a present-but-null
 *   `kind` gives "NONE", p19), confidence via {@link readConfidence}, reasoning = str(reasoning ??
 *   rationale ?? "") cut to 1000 code points, raw_response = stripped content, error null.
 */
export function parseVerdict(content: string | null, criticId: string, elapsedS = 0): Verdict {
  const stripped = (content ?? "").trim();
  if (stripped === "") return errorVerdict(criticId, "empty_response", elapsedS, "empty response from LLM");
  const obj = extractJsonObject(stripped);
  if (obj === null) {
    return {
      kind: "PARSE_FAIL",
      confidence: 0,
      reasoning: headCodePoints(stripped, 300),
      critic_id: criticId,
      raw_response: stripped,
      error: "parse_fail",
      elapsed_s: elapsedS,
    };
  }
  // `in` mirrors Python's `"kind" in data`: a key holding null still wins over `verdict`.
  const label = "kind" in obj ? obj.kind : "verdict" in obj ? obj.verdict : "UNCLEAR";
  const reasoning = "reasoning" in obj ? obj.reasoning : "rationale" in obj ? obj.rationale : "";
  let kind: string;
  let reasons: string;
  try {
    kind = pyStr(label);
    reasons = pyStr(reasoning);
  } catch {
    // A label or reasoning nested past what Python's str() can print (it raises RecursionError): not a verdict.
    return {
      kind: "PARSE_FAIL",
      confidence: 0,
      reasoning: headCodePoints(stripped, 300),
      critic_id: criticId,
      raw_response: stripped,
      error: "parse_fail",
      elapsed_s: elapsedS,
    };
  }
  return {
    kind: kind.trim().toUpperCase(),
    confidence: readConfidence(obj.confidence ?? undefined),
    reasoning: headCodePoints(reasons, 1000),
    critic_id: criticId,
    raw_response: stripped,
    error: null,
    elapsed_s: elapsedS,
  };
}
