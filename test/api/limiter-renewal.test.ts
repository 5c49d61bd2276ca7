// Issue 23, item 5: the EndpointLimiter object as lanes use it now: a permit kept and renewed, which
// yields its place to those waiting at each renewal; and shards that each own a share of the window.
import { describe, expect, it, vi } from "vitest";
import { env } from "cloudflare:workers";
import { limiterName } from "../../src/runs/limiter/endpoint-gate.ts";
import { DEFAULT_WINDOW } from "../../src/runs/limiter/index.ts";
import { WAIT } from "./helpers.ts";

const LEASE = 60_000;
let n = 0;
const fresh = async (shard = 0, shards = 1) =>
  env.LIMITERS.getByName(
    await limiterName(`tenant-renewal-${n++}`, "https://api.example.com/v1", "sk-x", shard, shards),
  );

describe("EndpointLimiter.renew", () => {
  it("keeps the same permit while nobody waits, and counts the successes it reports", async () => {
    const limiter = await fresh();
    const g = await limiter.acquire(LEASE);
    const again = await limiter.renew(g.id, [120, 130, 110], LEASE);
    expect(again.id).toBe(g.id);
    const view = await limiter.inspect();
    expect(view).toMatchObject({ inFlight: 1, waiting: 0, requests: 2 });
    // One request in flight of 16: under half the window in use, so the window holds; the quickest answer is kept.
    expect(view.window).toMatchObject({ size: DEFAULT_WINDOW.initial, baseLatencyMs: 110 });
  });

  it("yields the permit to the first waiter and queues behind it", async () => {
    const limiter = await fresh();
    const W = DEFAULT_WINDOW.initial;
    const held = await Promise.all(Array.from({ length: W }, () => limiter.acquire(LEASE)));
    const waiting = limiter.acquire(LEASE);
    await vi.waitFor(async () => expect((await limiter.inspect()).waiting).toBe(1), WAIT);
    // No successes to report (one would grow the window, full and in use, to 17: room for both).
    const renewed = limiter.renew(held[0].id, [], LEASE);
    // The waiter gets the renewed permit's place; the renewing lane now waits.
    const served = await waiting;
    expect(served.id).not.toBe(held[0].id);
    await vi.waitFor(async () => expect(await limiter.inspect()).toMatchObject({ inFlight: W, waiting: 1 }), WAIT);
    await limiter.release(held[1].id, { kind: "canceled" });
    const again = await renewed;
    expect(again.id).not.toBe(held[0].id);
    expect((await limiter.inspect()).inFlight).toBe(W);
  });

  it("gives the permit back during a Retry-After pause: the renewal waits for its end", async () => {
    const limiter = await fresh();
    const a = await limiter.acquire(LEASE);
    const b = await limiter.acquire(LEASE);
    await limiter.release(b.id, { kind: "overload", retryAfterMs: 200 });
    const renewed = await limiter.renew(a.id, [], LEASE);
    // Granted again only once the pause was over.
    const view = await limiter.inspect();
    expect(Date.now()).toBeGreaterThanOrEqual(view.pausedUntil);
    expect(renewed.id).not.toBe(a.id);
  });
});

describe("limiter shards", () => {
  it("each shard owns its share of the window, named apart from the unsharded limiter", async () => {
    expect(await limiterName("t", "https://e/v1/", "k", 0, 1)).toBe(await limiterName("t", "https://e/v1", "k"));
    expect(await limiterName("t", "https://e/v1", "k", 1, 2)).not.toBe(
      await limiterName("t", "https://e/v1", "k", 0, 2),
    );
    const shard = await fresh(1, 4);
    // 16 to start and 100 at most, split four ways: 4 and 25.
    expect((await shard.inspect()).limit).toBe(4);
    const grants = await Promise.all(Array.from({ length: 4 }, () => shard.acquire(LEASE)));
    expect(grants.map((g) => g.limit)).toEqual([4, 4, 4, 4]);
    expect((await shard.inspect()).inFlight).toBe(4);
  });
});
