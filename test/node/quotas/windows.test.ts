// Issue 30: the counting behind the quotas, with hand-picked times (src/quotas/windows.ts).
import { describe, expect, it } from "vitest";
import { DAY_MS, dayRefusal, inWindow, MINUTE_MS, secondsUntil, windowRefusal } from "../../../src/quotas/windows.ts";

const T = 1_800_000_000_000; // some instant; only differences matter

describe("windowRefusal", () => {
  it("admits while the window holds fewer than the limit", () => {
    expect(windowRefusal([T - 5_000], 1, 2, T)).toBeNull();
    expect(windowRefusal([], 3, 3, T)).toBeNull();
  });

  it("says when the oldest stamp leaves: 3 stamps, limit 3, 1 more wanted", () => {
    // The first stamp (T − 50 s) leaves at T − 50 s + 60 s = T + 10 s: 10 s from now.
    const r = windowRefusal([T - 50_000, T - 20_000, T - 1_000], 1, 3, T);
    expect(r?.retryAfterSeconds).toBe(10);
  });

  it("waits for as many stamps as must leave: 3 stamps, limit 3, 2 more wanted", () => {
    // 3 + 2 − 3 = 2 must leave; the second (T − 20 s) leaves at T + 40 s.
    expect(windowRefusal([T - 50_000, T - 20_000, T - 1_000], 2, 3, T)?.retryAfterSeconds).toBe(40);
  });

  it("rounds up to whole seconds, and never says less than 1", () => {
    // Leaves at T + 0.2 s: 1 s (a Retry-After of 0 would invite a retry that fails again).
    expect(windowRefusal([T - 59_800], 1, 1, T)?.retryAfterSeconds).toBe(1);
    // Leaves at T + 1.5 s: 2 s.
    expect(windowRefusal([T - 58_500], 1, 1, T)?.retryAfterSeconds).toBe(2);
  });

  it("gives no Retry-After when the request alone is more than the limit, or the limit is 0", () => {
    expect(windowRefusal([], 3, 2, T)?.retryAfterSeconds).toBeNull();
    expect(windowRefusal([], 1, 0, T)?.retryAfterSeconds).toBeNull();
  });
});

describe("inWindow", () => {
  it("keeps the stamps of the last minute only (one exactly a minute old has left)", () => {
    expect(inWindow([T - MINUTE_MS, T - MINUTE_MS + 1, T], T)).toEqual([T - MINUTE_MS + 1, T]);
  });
});

describe("dayRefusal", () => {
  const midnight = Math.floor(T / DAY_MS) * DAY_MS;

  it("admits what fits what is left of the day", () => {
    expect(dayRefusal(3, 2, 5, T)).toBeNull();
  });

  it("refuses past the limit until the next 00:00 UTC", () => {
    // 1 h 30 min before midnight: 5,400 s.
    const now = midnight + DAY_MS - 5_400_000;
    const r = dayRefusal(4, 2, 5, now);
    expect(r?.retryAfterSeconds).toBe(5_400);
    expect(r?.detail).toContain("1 of today's 5 units are left");
  });

  it("gives no Retry-After to a request larger than a whole day", () => {
    expect(dayRefusal(0, 6, 5, T)?.retryAfterSeconds).toBeNull();
  });
});

describe("secondsUntil", () => {
  it("is at least 1", () => expect(secondsUntil(T - 1_000, T)).toBe(1));
});
