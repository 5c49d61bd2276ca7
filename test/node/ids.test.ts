// Issue "A suite you can trust": lists are newest first by id, so ids made in one millisecond must sort
// in the order they were made.
import { describe, expect, it, vi } from "vitest";
import { newId } from "../../src/ids.ts";

describe("newId", () => {
  it("sorts ids made in the same millisecond in the order they were made", () => {
    vi.useFakeTimers({ now: Date.UTC(2026, 10, 23), toFake: ["Date"] });
    try {
      const ids = Array.from({ length: 50 }, () => newId("key"));
      expect([...ids].sort()).toEqual(ids);
      expect(new Set(ids).size).toBe(50);
    } finally {
      vi.useRealTimers();
    }
  });

  it("uses an explicit time as given: time first, fixed width, so ids sort by it", () => {
    const older = newId("ten", Date.UTC(2020, 0, 1));
    const newer = newId("ten", Date.UTC(2020, 0, 1) + 1);
    expect(older).toMatch(/^ten_[0-9a-z]{19}$/);
    // The nine characters after the prefix are the time in base 36.
    expect(Number.parseInt(older.slice(4, 13), 36)).toBe(Date.UTC(2020, 0, 1));
    expect(older < newer).toBe(true);
  });
});
