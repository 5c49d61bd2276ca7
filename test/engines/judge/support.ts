// Shared helpers of the judge tests: a fake endpoint that records what a critic sends and answers with
// canned content, the reference library's endpoint wiring (vendor preset, key from api_key or env, URL and
// headers), a float comparison at the reference README's tolerance (1e-9 absolute), a test name for
// a reference line, and the content predicate that says which of the four deliberate parser fixes
// (docs/evaluators/judge.md; src/engines/judge/parse.ts FIX-*) an answer triggers.
import { expect } from "vitest";
import type { ChatClient, ChatRequest, ChatResponse } from "../../../src/providers/types.ts";
import { resolveBaseUrl, VENDORS, type CriticEndpointFields } from "../../../src/providers/index.ts";
import type { RefLine } from "../../support/reference.ts";

export function closeTo(actual: number | null, expected: number | null, tol = 1e-9): void {
  if (expected === null || actual === null) return expect(actual).toBe(expected);
  expect(Math.abs(actual - expected), `${actual} vs ${expected}`).toBeLessThanOrEqual(tol);
}

/** "line 12 p12: note" — what a per-line parity test is called. */
export function lineName(r: RefLine): string {
  const v = r.value ?? {};
  return `line ${r.line} ${v.id ?? "(no id)"}${v.note ? `: ${v.note}` : ""}`;
}

/** Where and how the reference library sends a critic's request. `headers` are exactly its two. */
export type CriticEndpoint = {
  url: string;
  baseUrl: string;
  apiKey: string;
  headers: { Authorization: string; "Content-Type": "application/json" };
};

/**
 * The reference `Critic`'s endpoint wiring (spec cross-judge.md §2 steps 2–3), which the run platform does
 * not use (it binds keys from the run's secrets; its client builds the URL and headers): a `connect` for
 * the engine's `judgeCritic`. The base URL is resolved now through the providers' presets, so an unknown
 * vendor throws before any call, as the reference raises outside its try (r06, r11). The key (api_key,
 * else the vendor's env var) is resolved when the engine connects, inside its failure boundary, so a
 * missing key becomes an ERROR verdict with no request sent (r07, r08).
 */
export function referenceConnect(
  critic: CriticEndpointFields,
  env: Readonly<Record<string, string | undefined>>,
  connectTo: (endpoint: CriticEndpoint) => ChatClient,
): () => ChatClient {
  const baseUrl = resolveBaseUrl(critic);
  return () => {
    const vendor = critic.vendor ?? "deepseek";
    const preset = Object.hasOwn(VENDORS, vendor) ? VENDORS[vendor] : undefined;
    const key = critic.api_key || (preset ? env[preset.envKey] || null : null);
    if (key === null) {
      const missing = preset
        ? `Missing API key for vendor '${vendor}'. Set ${preset.envKey} env var or pass api_key=... explicitly.`
        : `Missing api_key for vendor '${vendor}'. Pass api_key=... explicitly.`;
      throw Object.assign(new Error(missing), { name: "MissingApiKey" });
    }
    const url = `${baseUrl.replace(/\/+$/, "")}/chat/completions`;
    return connectTo({
      url,
      baseUrl,
      apiKey: key,
      headers: { Authorization: `Bearer ${key}`, "Content-Type": "application/json" },
    });
  };
}

/**
 * A `connect` that records endpoint (when connected through {@link referenceConnect}) and request;
 * `answer` returns the body or throws like a provider.
 */
export function fakeEndpoint(answer: () => ChatResponse) {
  const calls: { endpoint: CriticEndpoint | undefined; request: ChatRequest }[] = [];
  const connect = (endpoint?: CriticEndpoint) => ({
    chat: async (request: ChatRequest) => {
      calls.push({ endpoint, request });
      return answer();
    },
  });
  return { calls, connect };
}

export const contentAnswer = (content: string | null) => (): ChatResponse => ({
  choices: [{ message: { role: "assistant", content } }],
});

/** A deterministic clock: each call advances 1.5 ms. */
export function stepClock(): () => number {
  let t = 0;
  return () => (t += 1.5);
}

// ---------------------------------------------------------------------------------------------------
// The four deliberate differences from the original parser, recognised from an answer's text alone.

export type Fix = "think" | "comma" | "nan" | "percent";

const THINK_BLOCK = /<think>[\s\S]*?<\/think>/g;
/** A trailing comma, then whitespace holding a line break, then a closing bracket. */
const TRAILING_COMMA = /,(\s*\n\s*)([}\]])/g;
/** `"confidence": NaN` (the bare token Python's json accepts) or a string Python's float() reads as nan. */
const NAN_CONFIDENCE = /("confidence"\s*:\s*)(?:NaN|"\s*[+-]?[nN][aA][nN]\s*")/g;
/** `"confidence": "85%"`: a number and a percent sign in a string (Python's float() rejects it). */
const PERCENT_CONFIDENCE = /("confidence"\s*:\s*)"\s*([+-]?(?:\d+\.?\d*|\.\d+))\s*%\s*"/g;

/**
 * Which deliberate fixes an answer's text triggers, i.e. where the original's parser and ours may differ:
 * - think:   a `<think>…</think>` block holding a brace (the original takes the JSON span from the first
 *            `{` of the whole text, so such a block hides the answer);
 * - comma:   a trailing comma before a line break and a closing bracket, in any form other than the exact
 *            `,\n}` / `,\n]` the original repairs (e.g. `,\n  }`);
 * - nan:     a confidence Python reads as NaN (the original's min/max turns it into 1.0; ours gives 0);
 * - percent: a confidence like `"85%"` (the original gives 0; ours 0.85).
 * Anything else must parse exactly as the original did.
 */
export function deliberateFixes(raw: string): Fix[] {
  const fixes: Fix[] = [];
  if ([...raw.matchAll(THINK_BLOCK)].some((m) => /[{}]/.test(m[0]))) fixes.push("think");
  if ([...raw.matchAll(TRAILING_COMMA)].some((m) => m[1] !== "\n")) fixes.push("comma");
  if (new RegExp(NAN_CONFIDENCE.source).test(raw)) fixes.push("nan");
  if (new RegExp(PERCENT_CONFIDENCE.source).test(raw)) fixes.push("percent");
  return fixes;
}

/**
 * The answer rewritten so that none of the fixes is needed, stating what each fix means as a text edit:
 * think blocks dropped, a trailing comma before an indented bracket turned into the `,\n}` form the original
 * repairs, a NaN confidence written as 0, a percentage as its fraction ("85%" → 0.85).
 */
export function withoutFixTriggers(raw: string): string {
  return raw
    .replace(THINK_BLOCK, "")
    .replace(TRAILING_COMMA, ",\n$2")
    .replace(NAN_CONFIDENCE, "$10")
    .replace(PERCENT_CONFIDENCE, (_m, key: string, num: string) => `${key}${Number(num) / 100}`);
}

/**
 * The PARSE_FAIL verdict of spec §3 for an answer, derived from the spec alone: kind PARSE_FAIL,
 * confidence 0, reasoning = first 300 code points of the stripped answer, raw_response = stripped answer.
 */
export function parseFailOf(raw: string, criticId: string) {
  const stripped = raw.trim();
  return {
    kind: "PARSE_FAIL",
    confidence: 0,
    reasoning: [...stripped].slice(0, 300).join(""),
    error: "parse_fail",
    raw_response: stripped,
    critic_id: criticId,
  };
}

/** The verdict fields the reference files record (no elapsed_s). */
export function verdictFields(v: {
  kind: string;
  confidence: number;
  reasoning: string;
  error: string | null;
  raw_response: string | null;
  critic_id: string;
}) {
  return {
    kind: v.kind,
    confidence: v.confidence,
    reasoning: v.reasoning,
    error: v.error,
    raw_response: v.raw_response,
    critic_id: v.critic_id,
  };
}
