// The per-invocation budgets production enforces and local workerd does not: our own counting
// (src/platform/) must throw where production would end the invocation.
import { describe, expect, it } from "vitest";
import { env } from "cloudflare:workers";
import { sql } from "drizzle-orm";
import { openDb } from "../../src/db/client.ts";
import {
  currentUsage,
  highWater,
  invocation,
  PlatformLimitError,
  platformLimitOf,
  resetHighWater,
} from "../../src/platform/invocation.ts";
import { PLATFORM_LIMITS } from "../../src/platform/limits.ts";
import { guardStoredSize } from "../../src/platform/storage-guard.ts";
import { countedEnv } from "../../src/platform/counted-env.ts";
import { charge } from "../../src/platform/invocation.ts";
import { call, newTenant, send } from "./helpers.ts";

describe("D1 queries per invocation", () => {
  it("counts each query made through openDb, and a batch as one", async () => {
    const counts = await invocation("test", async () => {
      const db = openDb(env.DB);
      await db.run(sql`SELECT 1`);
      await db.all(sql`SELECT 2`);
      await db.batch([db.run(sql`SELECT 3`), db.run(sql`SELECT 4`)]);
      return { ...currentUsage()! };
    });
    expect(counts).toMatchObject({ kind: "test", d1Queries: 3, subrequests: 3 });
  });

  it("throws on the query past production's 1,000, naming the invocation and the limit", async () => {
    const limit = PLATFORM_LIMITS.d1QueriesPerInvocation.value;
    let made = 0;
    const err = await invocation("a loop", async () => {
      const db = openDb(env.DB);
      try {
        for (;;) {
          await db.run(sql`SELECT 1`);
          made++;
        }
      } catch (e) {
        return e;
      }
    });
    expect(made).toBe(limit);
    // drizzle wraps the query's error; the limit is its cause.
    const limitErr = platformLimitOf(err);
    expect(limitErr).toBeInstanceOf(PlatformLimitError);
    expect(limitErr?.limit).toBe("d1QueriesPerInvocation");
    expect(limitErr?.message).toContain("a loop made its D1 query number 1001");
  });

  it("gives each request through the Worker its own budget, and records the most any one used", async () => {
    const { key } = await newTenant();
    resetHighWater();
    expect((await send("GET", "/v1/runs", key)).status).toBe(200);
    const first = highWater().d1Queries;
    expect(first.count).toBeGreaterThan(0);
    expect(first.kind).toBe("fetch GET /v1/runs");
    // A second request starts from zero: the mark is a per-invocation maximum, not a sum.
    expect((await call("/healthz")).status).toBe(200);
    expect((await send("GET", "/v1/runs", key)).status).toBe(200);
    expect(highWater().d1Queries.count).toBe(first.count);
  });
});

describe("subrequests per invocation", () => {
  it("charges each call to a Durable Object, R2, KV and the Queue, and nothing for getting a stub", async () => {
    const e = countedEnv(env);
    const usage = await invocation("bindings", async () => {
      const stub = e.LIMITERS.get(e.LIMITERS.idFromName("counted-env-test"));
      const afterGet = currentUsage()!.subrequests;
      await stub.inspect();
      await e.RESULTS.put("counted-env-test", "x");
      await e.RESULTS.head("counted-env-test");
      await e.RESULTS.delete("counted-env-test");
      await e.KEY_CACHE.get("counted-env-test");
      return { afterGet, total: currentUsage()!.subrequests };
    });
    expect(usage).toEqual({ afterGet: 0, total: 5 });
  });

  it("throws on the subrequest past production's 10,000 when it is a binding's call", async () => {
    const e = countedEnv(env);
    const limit = PLATFORM_LIMITS.subrequestsPerInvocation.value;
    const err = await invocation("a busy lane", async () => {
      charge("subrequest", limit);
      try {
        await e.RESULTS.head("counted-env-test");
      } catch (caught) {
        return caught;
      }
    });
    expect(err).toBeInstanceOf(PlatformLimitError);
    expect((err as PlatformLimitError).message).toContain("a busy lane made its subrequest number 10001");
  });

  it("counts a Durable Object's calls in the object's own invocation", async () => {
    resetHighWater();
    const { key } = await newTenant();
    // A request that reaches the coordinator: creating a run.
    const res = await send("POST", "/v1/chain-determinism/runs", key, {
      model: "sim:agent",
      n_queries: 1,
      n_replays: 2,
    });
    expect(res.status).toBe(202);
    expect(highWater().subrequests.count).toBeGreaterThan(highWater().d1Queries.count);
  });
});

describe("stored sizes", () => {
  it("refuses a value over 2 MB, naming it", () => {
    const limit = PLATFORM_LIMITS.durableObjectValueBytes.value;
    expect(() => guardStoredSize("durableObjectValueBytes", "the run's config", limit)).not.toThrow();
    expect(() => guardStoredSize("durableObjectValueBytes", "the run's config", limit + 1)).toThrow(
      /the run's config is 2,000,001 bytes, over what a Durable Object storage value may hold/,
    );
    expect(() => guardStoredSize("d1RowBytes", "sample u-1", 3_000_000)).toThrow(
      /sample u-1 is 3,000,000 bytes, over what a D1 row may hold/,
    );
  });
});
