/**
 * The simulator's RPL answerer: for a request without tools whose system message asks for a JSON object
 * with `prob_true` (the RPL evaluator's instructions), it answers with such an object as the message text,
 * so a local user running `rpl` on a `sim:*` model sees a realistic, deterministic spread.
 *
 * prob_true = clamp(base + template + noise, 0.01, 0.99), two decimals, where
 * - base ∈ [0.05, 0.95] comes from hash(model, claim): the claim is read from the `Claim: "…"` line that
 *   our banks' user template ends with (the last such line of the user message); without one, the whole
 *   user message stands in for it;
 * - template ∈ [−0.08, 0.08] comes from hash(model, user message), so each paraphrase shifts the answer;
 * - noise ∈ [−0.03, 0.03] comes from hash(model, seed, replay, user message): replicates differ a little.
 * `response_format` is neither required nor read. The other fields are short generic strings, never a URL.
 */
import { hashOf, rngOf } from "./hash.ts";
import type { SimContext, SimReply } from "./types.ts";

/** True for the requests this responder answers: no tools, and a system message mentioning `prob_true`. */
export function isRplRequest(ctx: SimContext): boolean {
  if ((ctx.request.tools ?? []).length > 0) return false;
  return ctx.request.messages.some(
    (m) => m.role === "system" && typeof m.content === "string" && m.content.includes("prob_true"),
  );
}

/** The claim of an RPL user message: the text inside the last `Claim: "…"` line, or null. */
export function claimOf(userText: string): string | null {
  const at = userText.lastIndexOf('Claim: "');
  if (at < 0 || (at > 0 && userText[at - 1] !== "\n")) return null;
  const start = at + 'Claim: "'.length;
  const end = userText.lastIndexOf('"\n', userText.length);
  const close = end >= start ? end : userText.endsWith('"') ? userText.length - 1 : -1;
  return close >= start ? userText.slice(start, close) : null;
}

const unit = (...parts: (string | number)[]) => hashOf(...parts) / 4294967296;
const round2 = (x: number) => Math.round(x * 100) / 100;

/** The probability the simulator answers for one request (exported for tests). */
export function simRplProbability(ctx: SimContext): number {
  const claim = claimOf(ctx.userText) ?? ctx.userText;
  const base = 0.05 + 0.9 * unit("rpl-base", ctx.model, claim);
  const template = (unit("rpl-template", ctx.model, ctx.userText) * 2 - 1) * 0.08;
  const noise = (unit("rpl-noise", ctx.model, ctx.seed, ctx.replay, ctx.userText) * 2 - 1) * 0.03;
  return round2(Math.min(0.99, Math.max(0.01, base + template + noise)));
}

const REASONS = [
  "General background knowledge bears on the claim",
  "The claim's main terms have a common reading",
  "Similar claims are usually judged on broad evidence",
  "The claim is phrased as a general statement",
  "Known base rates point in one direction",
  "Typical cases fit the claim only in part",
];
const CONTRARY = [
  "Counterexamples may exist in specific settings",
  "The claim's scope could be read more broadly",
  "Evidence on this point is mixed",
  "Definitions of the key terms vary",
];

/** The RPL responder: answers RPL requests with a JSON object; leaves every other request to the next responder. */
export function rplResponder(ctx: SimContext): SimReply | undefined {
  if (!isRplRequest(ctx)) return undefined;
  const prob = simRplProbability(ctx);
  const random = rngOf("rpl-text", ctx.model, ctx.seed, ctx.replay, ctx.userText);
  const pickDistinct = (from: string[], n: number) => {
    const pool = [...from];
    const out: string[] = [];
    while (out.length < n && pool.length) out.push(pool.splice(Math.floor(random() * pool.length), 1)[0]);
    return out;
  };
  const answer = {
    prob_true: prob,
    confidence_self: round2(0.5 + 0.4 * Math.abs(prob - 0.5)),
    assumptions: ["The claim is read in its most common sense"],
    reasoning_bullets: pickDistinct(REASONS, 3),
    contrary_considerations: pickDistinct(CONTRARY, 2),
    ambiguity_flags: prob > 0.35 && prob < 0.65 ? ["The claim's scope is broad"] : [],
  };
  return { content: JSON.stringify(answer), finish_reason: "stop" };
}
