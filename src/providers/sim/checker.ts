/**
 * The simulator as reasoning-quality's contradiction checker (LS `model` backend with a `sim:*` model),
 * so LS through a "model" runs offline. The platform binds the batch's step pairs; the reply is the JSON
 * the checker prompt asks for. A pair is a contradiction when exactly one step is negated and the two
 * share a content word (four letters or more), entailment when they share one otherwise, else neutral:
 * a deterministic stand-in, not an NLI model.
 */
import type { SimResponder } from "./types.ts";

const NEGATIONS = new Set([
  "not",
  "no",
  "never",
  "false",
  "incorrect",
  "wrong",
  "cannot",
  "isn't",
  "aren't",
  "doesn't",
  "don't",
]);

const words = (text: string) =>
  text
    .toLowerCase()
    .split(/[^\p{L}\p{N}']+/u)
    .filter(Boolean);

export function simCheckerLabel(premise: string, hypothesis: string): "contradiction" | "entailment" | "neutral" {
  const a = words(premise);
  const b = new Set(words(hypothesis));
  const shared = a.some((w) => w.length >= 4 && !NEGATIONS.has(w) && b.has(w));
  const negA = a.some((w) => NEGATIONS.has(w));
  const negB = [...b].some((w) => NEGATIONS.has(w));
  if (shared && negA !== negB) return "contradiction";
  return shared ? "entailment" : "neutral";
}

export function checkerResponder(pairs: readonly { premise: string; hypothesis: string }[]): SimResponder {
  return () => ({
    content: JSON.stringify({ labels: pairs.map((p) => simCheckerLabel(p.premise, p.hypothesis)) }),
    finish_reason: "stop",
  });
}
