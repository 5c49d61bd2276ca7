/** The four dimension keys, in ascending code-unit order (the order results are built in). */
export type Dimension = "coherence" | "completeness" | "conciseness" | "relevance";

export type Explanations = {
  coherence: string;
  completeness: string;
  conciseness: string;
  relevance: string;
};

const LABEL: Record<Dimension, string> = {
  coherence: "Coherence",
  completeness: "Completeness",
  conciseness: "Conciseness",
  relevance: "Relevance",
};

// Spec §6. The README phrases are reference outputs kept verbatim; the others are ours.
const PHRASE: Record<Dimension, readonly [high: string, moderate: string, low: string]> = {
  relevance: [
    "response strongly overlaps with the prompt's key terms.",
    "response partly shares the prompt's key terms.",
    "response shares few of the prompt's key terms.",
  ],
  coherence: [
    "adjacent sentences carry consistent topic.",
    "adjacent sentences partly share topic.",
    "adjacent sentences share little topic.",
  ],
  completeness: [
    "most of the prompt's key terms appear in the response.",
    "some of the prompt's key terms appear in the response.",
    "few of the prompt's key terms appear in the response.",
  ],
  conciseness: [
    "response has high information density.",
    "response has moderate information density.",
    "response has low information density (repetition or padding).",
  ],
};

/**
 * `value` with 2 decimals, rounding exact ties half-to-even as Python's `"%.2f"` does (§6).
 *
 * `toFixed` rounds exact ties up. In [0, 1] the only doubles lying exactly halfway between two
 * 2-decimal numbers are m/8 for odd m (0.125, 0.375, 0.625, 0.875): (2k+1)/200 is a binary
 * fraction only when 25 divides 2k+1. Everything else is not a tie, and `toFixed` (which
 * rounds the exact binary value) already agrees with Python.
 */
export function formatScore(value: number): string {
  const eighths = value * 8; // exact: scaling by a power of two
  if (Number.isInteger(eighths) && eighths % 2 !== 0) {
    const lower = Math.floor(value * 100); // value * 100 = k + 0.5 exactly here
    const even = lower % 2 === 0 ? lower : lower + 1;
    return (even / 100).toFixed(2);
  }
  return value.toFixed(2);
}

/** Bands of §6 on the unrounded value: high ≥ 0.70, moderate ≥ 0.40, else low. */
export function band(value: number): 0 | 1 | 2 {
  if (value >= 0.7) return 0;
  if (value >= 0.4) return 1;
  return 2;
}

/** `"<Label>: <value> - <phrase>"` for a scored dimension (§6). */
export function explain(dim: Dimension, value: number): string {
  return `${LABEL[dim]}: ${formatScore(value)} - ${PHRASE[dim][band(value)]}`;
}

/** Explanation for a dimension that could not be scored because `side` had no content tokens (§5). */
export function explainUnscorable(dim: Dimension, side: "prompt" | "response"): string {
  return `${LABEL[dim]}: 0.00 - ${side} contained no scorable tokens.`;
}
