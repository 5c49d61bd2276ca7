// Issue 30: an isolate's count of failed credential checks (src/auth/failure-windows.ts), on a clock the
// test sets.
import { describe, expect, it } from "vitest";
import { FailureWindows } from "../../src/auth/failure-windows.ts";

const windowMs = 60_000;

describe("FailureWindows", () => {
  it("opens a subject's window at its first failure and refuses it from the bound until the window ends", () => {
    const w = new FailureWindows({ maxEntries: 10, windowMs });
    w.fail("ip:a", 1_000);
    w.fail("ip:a", 5_000);
    expect(w.retryAfterMs("ip:a", 3, 5_000)).toBe(0);
    w.fail("ip:a", 9_000);
    // Three failures, bound 3: refused until 1,000 + 60,000.
    expect(w.retryAfterMs("ip:a", 3, 9_000)).toBe(61_000 - 9_000);
    expect(w.retryAfterMs("ip:b", 3, 9_000)).toBe(0);
    expect(w.retryAfterMs("ip:a", 3, 61_000)).toBe(0);
    w.fail("ip:a", 61_000); // a new window, one failure in it
    expect(w.retryAfterMs("ip:a", 3, 61_000)).toBe(0);
  });

  it("blocks a subject the location found over for a whole window from then, whatever it counted", () => {
    const w = new FailureWindows({ maxEntries: 10, windowMs });
    w.fail("ip:a", 0);
    w.block("ip:a", 50_000);
    expect(w.retryAfterMs("ip:a", 20, 50_000)).toBe(windowMs);
    w.block("ip:b", 0);
    expect(w.retryAfterMs("ip:b", 20, windowMs - 1)).toBe(1);
    expect(w.retryAfterMs("ip:b", 20, windowMs)).toBe(0);
  });

  it("forgets the least recently failed subject past its size", () => {
    const w = new FailureWindows({ maxEntries: 2, windowMs });
    w.fail("a", 0);
    w.fail("b", 0);
    w.fail("a", 1);
    w.fail("c", 2);
    expect(w.size).toBe(2);
    expect(w.retryAfterMs("a", 2, 3)).toBe(windowMs - 3); // kept (failed again at 1); its window opened at 0
    expect(w.retryAfterMs("b", 1, 3)).toBe(0); // forgotten
    expect(w.retryAfterMs("c", 1, 3)).toBe(2 + windowMs - 3); // opened at 2
  });

  it("counts checks under way apart from the windows: one outlives a window's end and is never forgotten for room", () => {
    const w = new FailureWindows({ maxEntries: 1, windowMs });
    w.begin("ip:a");
    w.begin("ip:a");
    w.fail("ip:b", 0);
    w.fail("ip:c", 1); // forgets ip:b's window, not ip:a's checks
    expect(w.inFlight("ip:a")).toBe(2);
    expect(w.failures("ip:b", 1)).toBe(0);
    expect(w.failures("ip:c", windowMs + 1)).toBe(0);
    w.end("ip:a");
    expect(w.inFlight("ip:a")).toBe(1);
    w.end("ip:a");
    w.end("ip:a"); // never below zero
    expect(w.inFlight("ip:a")).toBe(0);
    w.begin("ip:a");
    expect(w.inFlight("ip:a")).toBe(1);
  });

  it("refuses a size or window that is not positive", () => {
    expect(() => new FailureWindows({ maxEntries: 0, windowMs })).toThrow(RangeError);
    expect(() => new FailureWindows({ maxEntries: 1, windowMs: 0 })).toThrow(RangeError);
  });
});
