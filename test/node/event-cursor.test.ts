// Issue 23, item 4: an event's id is the stream's position, and Last-Event-ID brings it back exactly.
import { describe, expect, it } from "vitest";
import { formatCursor, parseCursor, START, type EventCursor } from "../../src/runs/events/event-cursor.ts";
import { EVENT_STREAM_LIMITS, lowered } from "../../src/runs/events/event-limits.ts";
import { PLATFORM_LIMITS } from "../../src/platform/limits.ts";

describe("event cursor", () => {
  it.each<[string, EventCursor]>([
    ["0", START],
    ["42", { seq: 42, progress: null, final: false }],
    [
      "42_17_3_100_running",
      { seq: 42, progress: { done: 17, failed: 3, total: 100, status: "running" }, final: false },
    ],
    [
      "42_97_3_100_succeeded_final",
      { seq: 42, progress: { done: 97, failed: 3, total: 100, status: "succeeded" }, final: true },
    ],
  ])("%s is written and read back as the same position", (text, cursor) => {
    expect(formatCursor(cursor)).toBe(text);
    expect(parseCursor(text)).toEqual(cursor);
  });

  it("starts from the beginning without a Last-Event-ID", () => {
    expect(parseCursor(undefined)).toEqual(START);
    expect(parseCursor("  ")).toEqual(START);
  });

  it.each(["-1", "12_x", "1_2_3_4_paused", "1_2_3_4", "1_final", "1e3", "9999999999999999"])(
    "refuses %s, which it never writes",
    (text) => {
      expect(parseCursor(text)).toBeUndefined();
    },
  );
});

describe("the event stream's query budget", () => {
  it("is a quarter of the D1 queries production allows one invocation", () => {
    expect(EVENT_STREAM_LIMITS.queries).toBe(PLATFORM_LIMITS.d1QueriesPerInvocation.value / 4);
  });

  it("can be lowered, never raised, and never below one poll", () => {
    expect(lowered(undefined)).toBe(EVENT_STREAM_LIMITS.queries);
    expect(lowered(Number("not a number"))).toBe(EVENT_STREAM_LIMITS.queries);
    expect(lowered(12)).toBe(12);
    expect(lowered(10_000)).toBe(EVENT_STREAM_LIMITS.queries);
    expect(lowered(1)).toBe(EVENT_STREAM_LIMITS.minQueries);
  });
});
