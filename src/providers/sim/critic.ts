/**
 * The simulator playing a judge critic: it answers a verdict as JSON, so the whole judge flow
 * (request, parsing, voting, alpha) runs offline. The platform puts this responder in front of the
 * default ones for a `sim:*` critic, with the item and the critic's knobs bound.
 *
 * Every item has a hidden true label: the item's `expected` label when the request gives one, else a
 * label drawn from the item's id and the run's seed (never UNCLEAR when the vocabulary has others).
 * All critics share it, so an honest panel agrees. Each critic then, per item, independently:
 * - with probability `bias.rate` answers `bias.label` (a critic that leans one way);
 * - otherwise, with probability `noise`, answers a label drawn uniformly from the vocabulary (which
 *   may by chance be the true one);
 * - otherwise answers the true label.
 * Confidence: 0.70–1.00 for the true label, 0.55–0.85 for a biased answer, 0.30–0.70 for noise.
 * Same (seed, critic, item) → same answer.
 */
import { hashOf, pick, rngOf } from "./hash.ts";
import type { SimResponder } from "./types.ts";

export type SimCriticOptions = {
  /** The critic's name: critics with the same knobs still answer independently. */
  critic: string;
  /** The run's label vocabulary. */
  labels: readonly string[];
  /** The item's id: the unit of truth. */
  item: string;
  /** The item's true label, if the request states it. */
  expected?: string | null;
  bias?: { label: string; rate: number } | null;
  noise?: number;
};

/** The hidden true label of an item (exported for tests). */
export function simTrueLabel(seed: string, item: string, labels: readonly string[], expected?: string | null): string {
  if (expected) return expected;
  const candidates = labels.length > 1 ? labels.filter((l) => l !== "UNCLEAR") : labels;
  return candidates[hashOf("judge-truth", seed, item) % candidates.length];
}

export function criticResponder(o: SimCriticOptions): SimResponder {
  const noise = o.noise ?? 0;
  if (!(noise >= 0 && noise <= 1)) throw new RangeError(`criticResponder: noise must be in [0, 1], got ${noise}`);
  if (o.bias && !(o.bias.rate >= 0 && o.bias.rate <= 1))
    throw new RangeError(`criticResponder: bias.rate must be in [0, 1], got ${o.bias.rate}`);
  if (o.labels.length === 0) throw new RangeError("criticResponder: labels must not be empty");
  return (ctx) => {
    const random = rngOf("judge-critic", ctx.seed, o.critic, o.item);
    const truth = simTrueLabel(ctx.seed, o.item, o.labels, o.expected);
    const draw = random();
    let kind: string;
    let confidence: number;
    let why: string;
    if (o.bias && draw < o.bias.rate) {
      [kind, confidence, why] = [o.bias.label, 0.55 + 0.3 * random(), "leans towards its preferred label"];
    } else if (random() < noise) {
      [kind, confidence, why] = [
        o.labels[pick(random, o.labels.length)],
        0.3 + 0.4 * random(),
        "is unsure and guesses",
      ];
    } else {
      [kind, confidence, why] = [truth, 0.7 + 0.3 * random(), "sees the item's true label"];
    }
    const verdict = {
      kind,
      confidence: Math.round(confidence * 100) / 100,
      reasoning: `Simulated critic ${o.critic} ${why}.`,
    };
    return { content: JSON.stringify(verdict), finish_reason: "stop" };
  };
}
