/**
 * The simulator answering reasoning-quality dataset questions, so a local run shows a meaningful table
 * with no key. The platform binds the item's gold answer and the model's knobs:
 * - `accuracy` ∈ [0, 1]: the chance that the model knows an item (drawn once per model and item);
 * - `verbosity` ≥ 0: reasoning sentences before the final answer (more tokens, lower ES);
 * - `variation` ∈ [0, 1]: the chance that a further run or a perturbed question is answered afresh
 *   (correctness redrawn, wording changed) rather than like the primary run (lower CS, RS and SS).
 * A wrong answer is a plausible wrong value of the gold's kind: a number off by one, the opposite of
 * yes/no, the next choice letter, or a hedge. Same (seed, model, item, call) → same answer.
 */
import { hashOf, pick, rngOf } from "./hash.ts";
import type { SimResponder } from "./types.ts";

export type SimReasonerOptions = {
  /** The model's name: two simulated models differ. */
  model: string;
  /** Identifies the item (e.g. its index). */
  item: string;
  gold: string;
  /** Which call of the item: 0 = the primary run, others = further runs and perturbations. */
  call: number;
  accuracy?: number;
  verbosity?: number;
  variation?: number;
};

const OPENERS = [
  "First, I restate what is asked.",
  "Let me work through this carefully.",
  "I start from the facts given.",
];
const MIDDLES = [
  "Each quantity in the question matters.",
  "I check the relation between the parts.",
  "Nothing in the question changes the basic rule.",
  "I compare the options against what is known.",
  "The numbers involved are small enough to check by hand.",
];

function wrongAnswer(gold: string): string {
  const g = gold.trim();
  const n = Number(g.replace(/,/g, ""));
  if (g !== "" && Number.isFinite(n)) return String(n + 1);
  if (/^yes\b/i.test(g)) return "No";
  if (/^no\b/i.test(g)) return "Yes";
  if (/^[A-D]$/i.test(g)) return "ABCD"["ABCD".indexOf(g.toUpperCase()) + 1] ?? "A";
  return "It cannot be determined";
}

export function reasonerResponder(o: SimReasonerOptions): SimResponder {
  const accuracy = o.accuracy ?? 0.7;
  const variation = o.variation ?? 0.2;
  const verbosity = o.verbosity ?? 3;
  for (const [name, v] of [
    ["accuracy", accuracy],
    ["variation", variation],
  ] as const) {
    if (!(v >= 0 && v <= 1)) throw new RangeError(`reasonerResponder: ${name} must be in [0, 1], got ${v}`);
  }
  if (!(Number.isInteger(verbosity) && verbosity >= 0 && verbosity <= 50))
    throw new RangeError(`reasonerResponder: verbosity must be an integer in [0, 50], got ${verbosity}`);
  return (ctx) => {
    const base = rngOf("reasoner", ctx.seed, o.model, o.item);
    const knows = base() < accuracy;
    const afresh = o.call !== 0 && rngOf("reasoner-variation", ctx.seed, o.model, o.item, o.call)() < variation;
    const random = afresh ? rngOf("reasoner-call", ctx.seed, o.model, o.item, o.call) : base;
    const correct = afresh ? random() < accuracy : knows;
    const steps = [OPENERS[pick(random, OPENERS.length)]];
    for (let i = 1; i < verbosity; i++)
      steps.push(MIDDLES[(hashOf(o.item, i) + pick(random, MIDDLES.length)) % MIDDLES.length]);
    const answer = correct ? o.gold.trim() : wrongAnswer(o.gold);
    const content =
      verbosity === 0 ? `The answer is ${answer}` : `${steps.slice(0, verbosity).join(" ")} The answer is ${answer}`;
    return { content, finish_reason: "stop" };
  };
}
