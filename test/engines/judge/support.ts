// Shared helpers of the judge parity tests: a fake endpoint that records what a critic sends and answers
// with canned content, and a float comparison at the README's tolerance (1e-9 absolute).
import { expect } from "vitest";
import type { ChatRequest, ChatResponse } from "../../../src/providers/types.ts";
import type { CriticEndpoint } from "../../../src/engines/judge/index.ts";

export function closeTo(actual: number | null, expected: number | null, tol = 1e-9): void {
  if (expected === null || actual === null) return expect(actual).toBe(expected);
  expect(Math.abs(actual - expected), `${actual} vs ${expected}`).toBeLessThanOrEqual(tol);
}

/** A `connect` that records endpoint and request; `answer` returns the body or throws like a provider. */
export function fakeEndpoint(answer: () => ChatResponse) {
  const calls: { endpoint: CriticEndpoint; request: ChatRequest }[] = [];
  const connect = (endpoint: CriticEndpoint) => ({
    chat: async (request: ChatRequest) => {
      calls.push({ endpoint, request });
      return answer();
    },
  });
  return { calls, connect };
}

export const contentAnswer = (content: string | null) => (): ChatResponse => ({ choices: [{ message: { role: "assistant", content } }] });

/** A deterministic clock: each call advances 1.5 ms. */
export function stepClock(): () => number {
  let t = 0;
  return () => (t += 1.5);
}
