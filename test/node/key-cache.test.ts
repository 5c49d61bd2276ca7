// Issue 19 ("vrty at the edge"): the isolate's memory of verified keys, on a clock the test sets.
import { describe, expect, it } from "vitest";
import { KeyCache } from "../../src/auth/key-cache.ts";

const key = (n: number) => ({ tenantId: `ten_${n}`, keyId: `key_${n}` });

describe("KeyCache", () => {
  it("returns a key until its deadline and not at or after it", () => {
    const cache = new KeyCache({ maxEntries: 4 });
    cache.set("h1", key(1), 1_000);
    expect(cache.get("h1", 0)).toEqual(key(1));
    expect(cache.get("h1", 999)).toEqual(key(1));
    expect(cache.get("h1", 1_000)).toBeUndefined();
    // An expired entry is dropped when found, so it does not hold a slot.
    expect(cache.size).toBe(0);
  });

  it("keeps at most maxEntries, forgetting the least recently used", () => {
    const cache = new KeyCache({ maxEntries: 3 });
    for (const n of [1, 2, 3]) cache.set(`h${n}`, key(n), 10_000);
    expect(cache.get("h1", 0)).toEqual(key(1)); // h1 used: h2 is now the least recently used
    cache.set("h4", key(4), 10_000);
    expect(cache.size).toBe(3);
    expect(cache.get("h2", 0)).toBeUndefined();
    expect([1, 3, 4].map((n) => cache.get(`h${n}`, 0))).toEqual([key(1), key(3), key(4)]);
  });

  it("stays bounded however many keys go in", () => {
    const cache = new KeyCache({ maxEntries: 100 });
    for (let n = 0; n < 10_000; n++) cache.set(`h${n}`, key(n), 10_000);
    expect(cache.size).toBe(100);
    // The survivors are the last 100 set.
    expect(cache.get("h9899", 0)).toBeUndefined();
    expect(cache.get("h9900", 0)).toEqual(key(9900));
  });

  it("replaces an entry set twice, with the later deadline", () => {
    const cache = new KeyCache({ maxEntries: 2 });
    cache.set("h1", key(1), 100);
    cache.set("h1", key(1), 500);
    expect(cache.size).toBe(1);
    expect(cache.get("h1", 300)).toEqual(key(1));
  });

  it("forgets a deleted key at once", () => {
    const cache = new KeyCache({ maxEntries: 2 });
    cache.set("h1", key(1), 10_000);
    cache.delete("h1");
    expect(cache.get("h1", 0)).toBeUndefined();
  });

  it.each([0, -1, 1.5, Number.NaN])("refuses maxEntries %s", (maxEntries) => {
    expect(() => new KeyCache({ maxEntries })).toThrow(RangeError);
  });
});
