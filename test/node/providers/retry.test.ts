import { describe, expect, it } from "vitest";
import { ProviderError, retryDelayMs, withRetry } from "../../../src/providers/index.ts";
import type { ChatClient, ChatResponse, ProviderErrorKind } from "../../../src/providers/index.ts";

const error = (kind: ProviderErrorKind, retryAfterMs?: number) =>
  new ProviderError({ name: "X", kind, message: "x", retryAfterMs });

describe("retryDelayMs", () => {
  // Python SDK backoff: min(0.5 s × 2^retry, 8 s) × (1 − 0.25 × random).
  it.each([
    [0, 0, 500],
    [1, 0, 1000],
    [3, 0, 4000],
    [4, 0, 8000],
    [10, 0, 8000],
    [0, 1, 375], // 500 × 0.75
    [2, 0.5, 1750], // 2000 × 0.875
  ])("retry %i with random %f waits %i ms", (retry, random, expected) => {
    expect(retryDelayMs(error("transient"), retry, () => random)).toBe(expected);
  });

  it("honours retryAfterMs instead of backoff, clamped to 60 s", () => {
    expect(retryDelayMs(error("rate_limit", 1500), 5, () => 0.9)).toBe(1500);
    expect(retryDelayMs(error("rate_limit", 0), 5)).toBe(0);
    expect(retryDelayMs(error("rate_limit", 3_600_000), 0)).toBe(60_000);
  });
});

describe("withRetry", () => {
  const ok: ChatResponse = { choices: [] };
  const flaky = (failures: Error[]): ChatClient & { calls: number } => {
    const c = {
      calls: 0,
      async chat() {
        const f = failures[c.calls++];
        if (f) throw f;
        return { ...ok };
      },
    };
    return c;
  };
  const noSleep = { sleep: async () => {}, random: () => 0 };

  it("retries retryable kinds and reports attempts on the answer", async () => {
    const inner = flaky([error("timeout"), error("connection"), error("transient")]);
    const res = await withRetry(inner, { maxRetries: 3, ...noSleep }).chat({ model: "m", messages: [] });
    expect(res.attempts).toBe(4);
  });

  it.each(["auth", "bad_request"] as const)("does not retry %s", async (kind) => {
    const inner = flaky([error(kind)]);
    await expect(
      withRetry(inner, { maxRetries: 3, ...noSleep }).chat({ model: "m", messages: [] }),
    ).rejects.toMatchObject({ kind, attempts: 1 });
    expect(inner.calls).toBe(1);
  });

  it("passes other errors through untouched and unretried", async () => {
    const boom = new TypeError("bug");
    const inner = flaky([boom]);
    await expect(withRetry(inner, { maxRetries: 3, ...noSleep }).chat({ model: "m", messages: [] })).rejects.toBe(boom);
    expect(inner.calls).toBe(1);
  });

  it("stops waiting when the caller aborts during the backoff", async () => {
    const inner = flaky([error("transient"), error("transient")]);
    const controller = new AbortController();
    const reason = new Error("canceled");
    setTimeout(() => controller.abort(reason), 20);
    // Real (abortable) sleep: the first backoff is 500 ms, the abort comes after 20 ms.
    await expect(
      withRetry(inner, { maxRetries: 3, random: () => 0 }).chat(
        { model: "m", messages: [] },
        { signal: controller.signal },
      ),
    ).rejects.toBe(reason);
    expect(inner.calls).toBe(1);
  });

  it("rejects a negative maxRetries", () => {
    expect(() => withRetry(flaky([]), { maxRetries: -1 })).toThrow(RangeError);
  });
});
