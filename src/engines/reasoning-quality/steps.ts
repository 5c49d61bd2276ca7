/**
 * Reasoning steps, traces and the whitespace token count (spec §5 "Step splitting", §1.2, §6).
 * LS reads the primary response's steps; SS compares each run's trace, which is its steps joined with one
 * space (so sentence periods disappear); ES falls back to the whitespace word count when the provider
 * reports no usage.
 */
import { S, isBlank, pySplit, pySplitlines, pyStrip } from "../python/index.ts";

/**
 * Which splitter produces the steps (§5 [D] `ls_step_splitter`):
 * - `api`: [C]'s API adapters: split on every ".", trim, drop empty pieces (may give []).
 * - `legacy_dot`: the [D] default, [C]'s local-model rule applied to every model: newlines become ". " first,
 *   and a response with no piece left is its own single step.
 * - `sentence`: [D] sentence splitter that keeps decimals and common abbreviations together.
 */
export type StepRule = "api" | "legacy_dot" | "sentence";
/** Every step rule, for validating a request. */
export const STEP_RULES: readonly StepRule[] = ["api", "legacy_dot", "sentence"];

/** [C] API rule: `[s.strip() for s in response.split(".") if s.strip()]`. */
export function apiSteps(response: string): string[] {
  return response
    .split(".")
    .map(pyStrip)
    .filter((s) => s !== "");
}

/** [C] local rule: newlines → ". ", then the API rule; `[response]` when nothing is left. */
export function localSteps(response: string): string[] {
  const steps = apiSteps(response.replaceAll("\n", ". "));
  return steps.length > 0 ? steps : [response];
}

// Words whose trailing "." does not end a sentence (compared lower-case, without the final dot).
const ABBREVIATIONS = new Set([
  "e.g",
  "i.e",
  "etc",
  "vs",
  "cf",
  "al",
  "approx",
  "dr",
  "mr",
  "mrs",
  "ms",
  "prof",
  "sr",
  "jr",
  "st",
  "inc",
  "ltd",
  "fig",
  "eq",
  "vol",
]);
const LIST_MARKER = new RegExp(`^${S}*(?:[-*+\\u2022]|\\d+[.)])${S}+`, "u");
const SENTENCE_END = new RegExp(`[.!?]+(?=${S}|$)`, "gu");
const WS_RUN = new RegExp(`${S}+`, "u");

/**
 * [D] `sentence` splitter: lines are split first (list markers such as "-", "*", "1." or "2)" are dropped),
 * then each line at ".", "!" or "?" followed by whitespace or the end. A dot inside a number ("3.5") is not
 * followed by whitespace, so it never splits; a dot after a known abbreviation ("e.g.", "Dr.") does not end
 * the sentence. "No." is deliberately not an abbreviation ("No. It is not." is two steps), and single
 * capitals are not treated as initials ("The answer is C. 7 is prime." is two steps). Pieces keep their
 * punctuation and are trimmed.
 */
export function sentenceSteps(response: string): string[] {
  const out: string[] = [];
  for (const rawLine of pySplitlines(response)) {
    const line = rawLine.replace(LIST_MARKER, "");
    let start = 0;
    for (const m of line.matchAll(SENTENCE_END)) {
      const end = m.index + m[0].length;
      if (m[0] === "." && protectsDot(line.slice(start, m.index))) continue;
      out.push(line.slice(start, end));
      start = end;
    }
    out.push(line.slice(start));
  }
  return out.map(pyStrip).filter((s) => s !== "");
}

function protectsDot(before: string): boolean {
  const word = (before.split(WS_RUN).pop() ?? "").replace(/^[("'\u201c\u2018]+/u, "");
  return ABBREVIATIONS.has(word.toLowerCase());
}

/** The steps of a response under a rule. */
export function splitSteps(response: string, rule: StepRule): string[] {
  switch (rule) {
    case "api":
      return apiSteps(response);
    case "legacy_dot":
      return localSteps(response);
    case "sentence":
      return sentenceSteps(response);
    default:
      throw new RangeError(`unknown step rule "${String(rule)}"`);
  }
}

/** What the evaluator stores as `reasoning_trace` and LS reads: `steps or [""]`. */
export function storedTrace(steps: readonly string[]): string[] {
  return steps.length > 0 ? [...steps] : [""];
}

/** One run's trace for SS: the steps (or `[""]`) joined with a single space. */
export function runTrace(steps: readonly string[]): string {
  return storedTrace(steps).join(" ");
}

/** `len(text.split())`: the token fallback when the provider reports no usage (§6 step 3). */
export function whitespaceTokenCount(text: string): number {
  return isBlank(text) ? 0 : pySplit(text).length;
}
