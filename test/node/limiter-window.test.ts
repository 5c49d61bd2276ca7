import { describe, expect, it } from "vitest";
import {
  DEFAULT_WINDOW,
  newWindow,
  onOverload,
  onSuccess,
  openTo,
  PermitBook,
  windowLimit,
  type WindowOptions,
} from "../../src/runs/limiter/index.ts";

const O: WindowOptions = { ...DEFAULT_WINDOW, initial: 4, max: 100 };
const ok = (sentAt: number, inFlight: number, latencyMs = 200) => ({ sentAt, inFlight, latencyMs });

describe("the window's control law", () => {
  it("doubles per round trip in its start while the window is full", () => {
    const w = newWindow(O);
    // A full window of 4 successes: +1 each → 8.
    for (let i = 0; i < 4; i++) onSuccess(w, ok(4, 4), O);
    expect(windowLimit(w, O)).toBe(8);
    for (let i = 0; i < 8; i++) onSuccess(w, ok(8, 8), O);
    expect(windowLimit(w, O)).toBe(16);
  });

  it("opens to a run's given concurrency while it is in its start, never past its max", () => {
    const w = newWindow(O);
    openTo(w, 50, O);
    expect(windowLimit(w, O)).toBe(50);
    // Never smaller: a window that grew past what a run asks for keeps its size.
    openTo(w, 20, O);
    expect(windowLimit(w, O)).toBe(50);
    openTo(w, 500, O);
    expect(windowLimit(w, O)).toBe(O.max);
    // The book grants that many at once.
    const book = new PermitBook({ options: O });
    book.open(30);
    const grants = Array.from({ length: 31 }, () => book.tryGrant(0, 1000));
    expect(grants.filter(Boolean)).toHaveLength(30);
  });

  it("keeps what the endpoint showed over what a run asks for, once it has refused", () => {
    const w = newWindow({ ...O, initial: 20 });
    onOverload(w, { seq: 0, sentAt: 20 }, 1, O); // ⌊0.7 × 20⌋ = 14, ceiling 20
    openTo(w, 50, O);
    expect(windowLimit(w, O)).toBe(14);
    // Nor once the ceiling is forgotten (avoid): it grows by its own law from there.
    for (let i = 0; i < 40; i++) onSuccess(w, ok(20, 20), O);
    expect(w.phase).toBe("avoid");
    const before = windowLimit(w, O);
    openTo(w, 90, O);
    expect(windowLimit(w, O)).toBe(before);
  });

  it("does not grow while less than half of it is used", () => {
    const w = newWindow(O);
    for (let i = 0; i < 50; i++) onSuccess(w, ok(1, 1), O);
    expect(windowLimit(w, O)).toBe(4);
  });

  it("does not grow while answers are slow (the endpoint is queueing)", () => {
    const w = newWindow(O);
    onSuccess(w, ok(4, 4, 200), O); // base latency 200 ms; grows to 5
    // slow: over 2 × base + 100 ms, the base rising 0.2 % of the gap per answer (≈ 208 ms after ten)
    for (let i = 0; i < 10; i++) onSuccess(w, ok(4, 4, 600), O);
    expect(windowLimit(w, O)).toBe(5);
  });

  it("cuts to ⌊0.7 × the level the refused request was sent at⌋, once per round trip", () => {
    const w = newWindow({ ...O, initial: 20 });
    // Granted as the 12th in flight (seq 11), while the window had run ahead to 20.
    expect(onOverload(w, { seq: 11, sentAt: 12 }, 30, O)).toBe(true);
    expect(windowLimit(w, O)).toBe(8); // ⌊0.7 × 12⌋
    expect(w.ceiling).toBe(12);
    // Granted before the cut (seq < 30): nothing new, no second cut; sent above the window, so absorbed.
    expect(onOverload(w, { seq: 25, sentAt: 14 }, 31, O)).toBe(true);
    expect(windowLimit(w, O)).toBe(8);
    // Sent within today's window: refused for itself.
    expect(onOverload(w, { seq: 26, sentAt: 5 }, 31, O)).toBe(false);
  });

  it("recovers +1 per success to one below the ceiling, then probes by +1 per `probe` round trips", () => {
    const w = newWindow({ ...O, initial: 20 });
    onOverload(w, { seq: 0, sentAt: 10 }, 1, O); // window 7, ceiling 10
    expect(windowLimit(w, O)).toBe(7);
    onSuccess(w, ok(7, 7), O);
    onSuccess(w, ok(7, 7), O);
    expect(windowLimit(w, O)).toBe(9); // ceiling − 1
    // Above: 1 / (9 × 4) per success: 36 successes for +1.
    for (let i = 0; i < 35; i++) onSuccess(w, ok(9, 9), O);
    expect(windowLimit(w, O)).toBe(9);
    onSuccess(w, ok(9, 9), O);
    expect(windowLimit(w, O)).toBe(10);
  });

  it("forgets the ceiling after a window's worth of successes at or above it", () => {
    const w = newWindow({ ...O, initial: 20 });
    onOverload(w, { seq: 0, sentAt: 4 }, 1, O); // ceiling 4, window 2
    for (let i = 0; i < 3; i++) onSuccess(w, ok(4, 4), O);
    expect(w.ceiling).toBe(4);
    onSuccess(w, ok(5, 5), O);
    expect(w.ceiling).toBe(null);
    expect(w.phase).toBe("avoid");
  });

  it("at the smallest window a refusal is not the window's doing", () => {
    const w = newWindow({ ...O, initial: 1 });
    expect(onOverload(w, { seq: 0, sentAt: 1 }, 1, O)).toBe(false);
    expect(windowLimit(w, O)).toBe(1);
  });

  it("never passes max", () => {
    const w = newWindow({ ...O, initial: 90 });
    for (let i = 0; i < 500; i++) onSuccess(w, ok(100, 100), O);
    expect(windowLimit(w, O)).toBe(100);
  });

  it("refuses options that cannot work", () => {
    expect(() => newWindow({ ...O, backoff: 1 })).toThrow(RangeError);
    expect(() => newWindow({ ...O, initial: 0 })).toThrow(/min ≤ initial/);
  });
});
