/**
 * CQ answer matching (spec §2). Two matchers share one extractor:
 * - `canonical` (§2.1, [C]): type-aware extraction by gold kind (num | yn | choice | text), numbers within
 *   1e-3. Python regex semantics are kept on purpose (README traps): `\d` is any Unicode decimal digit and
 *   `float()` reads them, `\s`/`\b` are Unicode-aware, the number pattern also matches a lone "," (so a later
 *   comma becomes the "last number" and parsing fails), and "#### ." gives no answer without fallback.
 * - `legacy7` (§2.2): the README's seven-strategy chain; the concrete rules are ours ([D]), see legacy7Match.
 * CS labels always come from the §2.1 extractor, whichever matcher scores CQ (§3 [D]).
 */
import {
  B_AFTER_WORD,
  B_BEFORE_WORD,
  PY_WS,
  S,
  W,
  collapseWhitespace,
  escapeRegExp,
  headCodePoints,
  isBlank,
  lenCodePoints,
  pyDecimalFloat,
  pyFloatRepr,
  pyRstripChars,
  pySplitlines,
  pyStrip,
} from "../python/index.ts";

export type GoldKind = "num" | "yn" | "choice" | "text";
export type CqMatcher = "canonical" | "legacy7";
/** Every matcher, for validating a request (`metrics.cq_matcher`). */
export const CQ_MATCHERS: readonly CqMatcher[] = ["canonical", "legacy7"];

/** Absolute tolerance for numeric golds (§2.1). */
export const NUM_TOLERANCE = 1e-3;

/** `norm(t)` (§2.1): lowercase, strip, drop trailing `.,;:!?*`, then collapse whitespace runs to one space. */
export function normAnswer(t: string): string {
  return collapseWhitespace(pyRstripChars(pyStrip(t.toLowerCase()), ".,;:!?*"));
}

const NUM_GOLD = /^-?[\p{Nd},.]+$/u;

/** `_gold_kind` (§2.1). */
export function goldKind(gold: string): GoldKind {
  const g = normAnswer(gold);
  if (g === "yes" || g === "no" || g === "true" || g === "false") return "yn";
  if (lenCodePoints(g) === 1 && "ABCD".includes(g.toUpperCase())) return "choice";
  if (NUM_GOLD.test(g.replaceAll(" ", ""))) return "num";
  return "text";
}

/** The float behind a numeric gold, or null when the gold is not `num` or does not parse (e.g. "1.2.3"). */
export function canonicalGoldValue(gold: string): number | null {
  if (goldKind(gold) !== "num") return null;
  return pyDecimalFloat(normAnswer(gold).replaceAll(",", "").replaceAll(" ", ""));
}

/** `canonical_gold` (§2.1): repr(float) for num (the raw normalised gold if it does not parse), yes/no, the letter, or `contains:<g>`. */
export function canonicalGold(gold: string): string {
  const kind = goldKind(gold);
  const g = normAnswer(gold);
  if (kind === "num") {
    const v = canonicalGoldValue(gold);
    return v === null ? g : pyFloatRepr(v);
  }
  if (kind === "yn") return g === "yes" || g === "true" ? "yes" : "no";
  if (kind === "choice") return g.toUpperCase();
  return `contains:${g}`;
}

// ---- numbers -------------------------------------------------------------------------------------------

const HASH_NUMBER = new RegExp(`####${S}*(-?[\\p{Nd},.]+)`, "u");
// Also matches a lone "," (the README's comma quirk): [\d,]+ needs no digit.
const ANY_NUMBER = /-?[\p{Nd},]+\.?\p{Nd}*/gu;

/**
 * The number a prediction answers with (§2.1 num): the number after "####" if present (no fallback when it
 * does not parse), else the LAST number-like match; commas removed. null = no canonical answer.
 */
export function extractNumber(pred: string): number | null {
  if (isBlank(pred)) return null;
  const hash = HASH_NUMBER.exec(pred);
  let s: string;
  if (hash) s = hash[1];
  else {
    const all = pred.match(ANY_NUMBER);
    if (!all) return null;
    s = all[all.length - 1];
  }
  return pyDecimalFloat(s.replaceAll(",", ""));
}

/** Every number-like match that parses, in order (legacy7 strategy 7). */
function allNumbers(pred: string): number[] {
  const out: number[] = [];
  for (const m of pred.matchAll(ANY_NUMBER)) {
    const v = pyDecimalFloat(m[0].replaceAll(",", ""));
    if (v !== null) out.push(v);
  }
  return out;
}

// ---- yes / no ------------------------------------------------------------------------------------------

const YES_WORDS = ["yes", "true", "correct", "indeed"];
const NO_WORDS = [
  "no",
  "false",
  "incorrect",
  "not correct",
  "untrue",
  "not",
  "never",
  "unlikely",
  "doubtful",
  "cannot",
  "impossible",
];
// A signal word counts when preceded by start/whitespace and followed by end, whitespace or . , ; : ! ?
const signalPattern = (w: string) => new RegExp(`(?:^|${S})${escapeRegExp(w)}(?:${S}|$|[.,;:!?])`, "u");
const YES_PATTERNS = YES_WORDS.map(signalPattern);
const NO_PATTERNS = NO_WORDS.map(signalPattern);
const wholeWord = (w: string) => new RegExp(`${B_BEFORE_WORD}${w}${B_AFTER_WORD}`, "u");
const FALLBACK_YES = ["yes", "true"].map(wholeWord);
const FALLBACK_NO = ["no", "false"].map(wholeWord);

function earliest(patterns: RegExp[], text: string): number | null {
  let best: number | null = null;
  for (const p of patterns) {
    const m = p.exec(text);
    if (m && (best === null || m.index < best)) best = m.index;
  }
  return best;
}

/** §2.1 yn: the earliest signal word of the first clause (80 code points, cut at the first "."), else one unambiguous whole-word signal anywhere. */
export function extractYesNo(pred: string): "yes" | "no" | null {
  if (isBlank(pred)) return null;
  const t = normAnswer(pred);
  const first = headCodePoints(t.split(".")[0], 80);
  const noPos = earliest(NO_PATTERNS, first);
  const yesPos = earliest(YES_PATTERNS, first);
  if (noPos !== null || yesPos !== null) {
    if (yesPos === null) return "no";
    if (noPos === null) return "yes";
    return noPos < yesPos ? "no" : "yes";
  }
  const hasYes = FALLBACK_YES.some((p) => p.test(t));
  const hasNo = FALLBACK_NO.some((p) => p.test(t));
  if (hasYes !== hasNo) return hasYes ? "yes" : "no";
  return null;
}

// ---- multiple choice -----------------------------------------------------------------------------------

// §2.1 choice, in order. The letter must not be followed by a Latin letter. Pattern 4 is case-sensitive so
// that "is a" never matches.
const CHOICE_PATTERNS: RegExp[] = [
  new RegExp(`${B_BEFORE_WORD}answer${S}*(?:is)?${S}*:?${S}*\\**\\(?([ABCD])\\)?(?![A-Za-z])`, "iu"),
  new RegExp(
    `${B_BEFORE_WORD}correct${S}+(?:answer|option|choice|conclusion|interpretation)${S}*(?:is)?${S}*:?${S}*\\**\\(?([ABCD])\\)?(?![A-Za-z])`,
    "iu",
  ),
  new RegExp(
    `${B_BEFORE_WORD}(?:conclusion|interpretation|option|choice)${B_AFTER_WORD}[^.\\n]{0,80}?${B_BEFORE_WORD}is${S}*:?${S}*\\**\\(?([ABCD])(?![A-Za-z])`,
    "iu",
  ),
  new RegExp(`${B_BEFORE_WORD}is${S}*:?${S}*\\**\\(?([ABCD])\\)?(?![A-Za-z])`, "u"),
  new RegExp(`^${S}*#*${S}*\\**\\(?([ABCD])\\)?[).:${PY_WS}]`, "u"),
  /\(([ABCD])\)/u,
];
const LAST_LINE_CHOICE = new RegExp(`^\\**\\(?([ABCD])\\)?[).:*${PY_WS}]`, "u");

/** §2.1 choice: the first anchored pattern's letter, else a letter opening the last non-empty line. */
export function extractChoice(pred: string): "A" | "B" | "C" | "D" | null {
  if (isBlank(pred)) return null;
  for (const p of CHOICE_PATTERNS) {
    const m = p.exec(pred);
    if (m) return m[1].toUpperCase() as "A" | "B" | "C" | "D";
  }
  const lines = pySplitlines(pred)
    .map(pyStrip)
    .filter((l) => l !== "");
  if (lines.length === 0) return null;
  const m = LAST_LINE_CHOICE.exec(`${lines[lines.length - 1]} `);
  return m ? (m[1] as "A" | "B" | "C" | "D") : null;
}

// ---- the canonical extractor ---------------------------------------------------------------------------

/**
 * `extract_answer(pred, gold)` (§2.1): the canonical answer string, comparable with `canonicalGold(gold)`,
 * or null when none can be extracted (an empty prediction always gives null). For num it is repr(float).
 */
export function extractAnswer(pred: string, gold: string): string | null {
  if (isBlank(pred)) return null;
  switch (goldKind(gold)) {
    case "num": {
      const v = extractNumber(pred);
      return v === null ? null : pyFloatRepr(v);
    }
    case "yn":
      return extractYesNo(pred);
    case "choice":
      return extractChoice(pred);
    case "text": {
      const t = normAnswer(pred);
      const g = normAnswer(gold);
      if (g !== "" && t.includes(g)) return `contains:${g}`;
      return lenCodePoints(t) <= 60 ? t : null;
    }
  }
}

export type MatchOptions = {
  /** §2 [D]; default "canonical". */
  matcher?: CqMatcher;
  /**
   * §2.3 [D] `cq_rounding_aware`, default off: for a numeric gold written with d ≥ 1 decimals, also accept
   * |Δ| ≤ 0.5·10^-d + 1e-9 (so 1.333 matches the rounded gold "1.33"). Integer golds are unaffected.
   */
  roundingAware?: boolean;
};

function goldDecimals(gold: string): number {
  const g = normAnswer(gold).replaceAll(",", "").replaceAll(" ", "");
  const dot = g.indexOf(".");
  return dot < 0 ? 0 : lenCodePoints(g) - dot - 1;
}

function numericClose(v: number, goldValue: number, gold: string, roundingAware: boolean | undefined): boolean {
  const d = Math.abs(v - goldValue);
  if (d < NUM_TOLERANCE) return true;
  if (!roundingAware) return false;
  const decimals = goldDecimals(gold);
  return decimals >= 1 && d <= 0.5 * 10 ** -decimals + 1e-9;
}

/** `is_correct(pred, gold)` (§2.1): extraction present and equal to the canonical gold; numbers within 1e-3. */
export function isCorrectCanonical(pred: string, gold: string, roundingAware = false): boolean {
  if (goldKind(gold) === "num") {
    const v = extractNumber(pred);
    if (v === null) return false;
    const g = canonicalGoldValue(gold);
    // Python: float(gold_canon) raises for a malformed gold, and the code falls back to string equality.
    if (g === null) return pyFloatRepr(v) === canonicalGold(gold);
    return numericClose(v, g, gold, roundingAware);
  }
  const extracted = extractAnswer(pred, gold);
  return extracted !== null && extracted === canonicalGold(gold);
}

// ---- legacy7 -------------------------------------------------------------------------------------------

export type Legacy7Strategy =
  | "exact"
  | "normalized"
  | "number"
  | "yes_no"
  | "choice"
  | "substring"
  | "numeric_tolerance";

const QUOTE_PAIRS: Record<string, string> = {
  '"': '"',
  "'": "'",
  "`": "`",
  "\u201c": "\u201d",
  "\u2018": "\u2019",
  "\u00ab": "\u00bb",
};

/**
 * legacy7's normalisation (§2.2 strategy 2): `normAnswer`, plus markdown `*`/`_` runs at either end and one
 * pair of matching surrounding quotes, repeated until nothing changes ("**'Paris'**." → "paris").
 */
export function legacyNorm(t: string): string {
  let s = normAnswer(t);
  for (;;) {
    let next = pyStrip(s.replace(/^[*_]+/u, "").replace(/[*_]+$/u, ""));
    const cps = Array.from(next);
    if (cps.length >= 2 && QUOTE_PAIRS[cps[0]] === cps[cps.length - 1]) next = cps.slice(1, -1).join("");
    next = normAnswer(next);
    if (next === s) return s;
    s = next;
  }
}

const WORD_CHAR = new RegExp(`^${W}$`, "u");
const DIGIT = /^\p{Nd}$/u;

/**
 * §2.2 strategy 6 with the [D] hardening: the normalised gold (≥ 2 code points) must occur in the normalised
 * prediction without touching word characters on a side where the gold itself starts/ends with a word
 * character (the intent of `\b…\b`; a plain `\b` next to a non-word edge would demand a word neighbour).
 * A numeric gold must be a whole number token: no digit, "-", "." or "," just before it, and no digit or
 * "[.,]digit" just after it ("5" is not found in "25", "2.5", "-5" or "5,000").
 */
export function hardenedSubstringMatch(pred: string, gold: string): boolean {
  const g = normAnswer(gold);
  const t = normAnswer(pred);
  const gcps = Array.from(g);
  if (gcps.length < 2) return false;
  const numeric = goldKind(gold) === "num";
  const startsWord = WORD_CHAR.test(gcps[0]);
  const endsWord = WORD_CHAR.test(gcps[gcps.length - 1]);
  const tcps = Array.from(t);
  for (let i = 0; i + gcps.length <= tcps.length; i++) {
    if (tcps.slice(i, i + gcps.length).join("") !== g) continue;
    const before = tcps[i - 1] ?? "";
    const after = tcps[i + gcps.length] ?? "";
    const afterNext = tcps[i + gcps.length + 1] ?? "";
    if (startsWord && before !== "" && WORD_CHAR.test(before)) continue;
    if (endsWord && after !== "" && WORD_CHAR.test(after)) continue;
    if (numeric) {
      if (before !== "" && (DIGIT.test(before) || "-.,".includes(before))) continue;
      if (after !== "" && (DIGIT.test(after) || (".,".includes(after) && afterNext !== "" && DIGIT.test(afterNext))))
        continue;
    }
    return true;
  }
  return false;
}

/** The old unrestricted rule, `norm(gold) in norm(pred)`: kept only to document what legacy7 hardens. */
export function naiveSubstringMatch(pred: string, gold: string): boolean {
  return normAnswer(pred).includes(normAnswer(gold));
}

/**
 * The README's seven strategies in order (§2.2); the first that matches decides. An empty prediction never
 * matches (as a failed generation must stay wrong). Strategies 3–5 reuse the §2.1 extractors; 3 requires
 * exact float equality, 7 accepts ANY number in the prediction within 1e-3 of the gold.
 */
export function legacy7Match(pred: string, gold: string): { correct: boolean; strategy: Legacy7Strategy | null } {
  const hit = (strategy: Legacy7Strategy) => ({ correct: true, strategy });
  if (isBlank(pred)) return { correct: false, strategy: null };
  if (pred.trim() === gold.trim()) return hit("exact");
  if (legacyNorm(pred) === legacyNorm(gold)) return hit("normalized");
  const kind = goldKind(gold);
  const goldValue = canonicalGoldValue(gold);
  if (goldValue !== null && extractNumber(pred) === goldValue) return hit("number");
  if (kind === "yn" && extractYesNo(pred) === canonicalGold(gold)) return hit("yes_no");
  if (kind === "choice" && extractChoice(pred) === canonicalGold(gold)) return hit("choice");
  if (hardenedSubstringMatch(pred, gold)) return hit("substring");
  if (goldValue !== null && allNumbers(pred).some((v) => Math.abs(v - goldValue) < NUM_TOLERANCE))
    return hit("numeric_tolerance");
  return { correct: false, strategy: null };
}

/** CQ's correctness test under the chosen matcher (§2); also used by RS. */
export function isCorrect(pred: string, gold: string, options: MatchOptions = {}): boolean {
  const matcher = options.matcher ?? "canonical";
  if (matcher === "legacy7") return legacy7Match(pred, gold).correct;
  if (matcher !== "canonical") throw new RangeError(`unknown cq_matcher "${String(matcher)}"`);
  return isCorrectCanonical(pred, gold, options.roundingAware);
}
