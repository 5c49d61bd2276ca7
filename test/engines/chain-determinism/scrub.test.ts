// Issue 14, item 5: the agent loop's scrub knew only the reference's three patterns, so a key without an
// `sk-` prefix, or one broken by an escape, stayed in `error_category`.
import { describe, expect, it } from "vitest";
import { scrub } from "../../../src/engines/chain-determinism/scrub.ts";
import { parsePyJson, pyRepr } from "../../../src/engines/python/index.ts";

/** The OpenAI Python SDK's message for a 401 whose body echoes `key` (see pythonStatusMessage). */
function echoed(key: string): string {
  const parsed = parsePyJson(
    JSON.stringify({ error: { message: `Incorrect API key provided: ${key}`, code: "invalid_api_key" } }),
  );
  if (!parsed.ok) throw new Error(parsed.error);
  return `api_error: AuthenticationError: Error code: 401 - ${pyRepr(parsed.value)}`;
}

describe("scrub", () => {
  it.each([
    // The reference's patterns, unchanged (its golden vectors hold these texts).
    [
      "api_error: AuthenticationError: bad key sk-abcdefghijklmnop",
      "api_error: AuthenticationError: bad key sk-<REDACTED>",
    ],
    ["sent Bearer abc.def-ghi", "sent Bearer <REDACTED>"],
    ["x-api-key='k123' next", "x-api-key='<REDACTED>' next"],
    ['api_key = "zzz"', 'api_key = "<REDACTED>"'],
  ])("%s", (text, expected) => {
    expect(scrub(text)).toBe(expected);
  });

  it("given the run's secrets, removes a key the patterns miss", () => {
    // Python's repr doubles the backslash and escapes the quote; the pattern stops at the first.
    const key = `sk-ab"cd\\ef-0123456789abcdef0123`;
    const text = echoed(key);
    expect(scrub(text)).toContain("0123456789abcdef0123");
    expect(scrub(text, [key])).toBe(
      "api_error: AuthenticationError: Error code: 401 - {'error': {'message': 'Incorrect API key provided: [REDACTED]', 'code': 'invalid_api_key'}}",
    );
    // No `sk-` prefix, and cut short by the 160-character truncation.
    const plain = "tok_9f8e7d6c5b4a39281706f5e4d3c2b1a0";
    expect(scrub(`api_error: APIStatusError: denied for ${plain.slice(0, 20)}`, [plain])).toBe(
      "api_error: APIStatusError: denied for [REDACTED]",
    );
  });
});
