// Issue 23: production refuses a Durable Object or D1 value or row over 2 MB, a statement over 100
// bound parameters or 100,000 bytes; local workerd accepts them all. Every statement goes through
// src/platform/sql-guard.ts (the coordinator's SQLite through guardedSql, D1 through openDb), so these
// fail here as they would in production, naming what was too large, and write nothing.
import { describe, expect, it } from "vitest";
import { env } from "cloudflare:workers";
import { runInDurableObject } from "cloudflare:test";
import { sql } from "drizzle-orm";
import { openDb } from "../../src/db/client.ts";
import { insertSamples } from "../../src/db/runs.ts";
import { samples, suites } from "../../src/db/schema.ts";
import { Store } from "../../src/runs/coordinator/store.ts";
import type { RunCoordinator } from "../../src/runs/coordinator/run-coordinator.ts";
import { invocation, type PlatformLimitError, platformLimitOf, resetHighWater } from "../../src/platform/invocation.ts";
import { PLATFORM_LIMITS } from "../../src/platform/limits.ts";
import { guardedSql } from "../../src/platform/sql-guard.ts";
import { ADMIN_TOKEN, insertRunRow, newTenant, send } from "./helpers.ts";

const MAX = PLATFORM_LIMITS.durableObjectValueBytes.value;

/** Runs `fn` on the SQLite storage of a fresh coordinator object, unwrapped and guarded. */
function inObject<T>(fn: (raw: SqlStorage, guarded: SqlStorage) => T): Promise<T> {
  const stub = env.RUNS.get(env.RUNS.idFromName(`stored-sizes-${crypto.randomUUID()}`));
  return runInDurableObject(stub, (_: RunCoordinator, state) =>
    fn(state.storage.sql, guardedSql(state.storage.sql, "the test's object")),
  );
}

function thrown(fn: () => unknown): PlatformLimitError {
  try {
    fn();
  } catch (err) {
    const limit = platformLimitOf(err);
    if (limit) return limit;
    throw err;
  }
  throw new Error("expected a PlatformLimitError, nothing was thrown");
}

describe("a Durable Object's SQLite (guardedSql)", () => {
  it("refuses a value over 2 MB, naming its table and column, and writes nothing", async () => {
    const { err, rows } = await inObject((raw, sqlg) => {
      sqlg.exec("CREATE TABLE t (k TEXT PRIMARY KEY, v TEXT)");
      sqlg.exec("INSERT INTO t (k, v) VALUES (?, ?)", "fits", "x".repeat(MAX - 10));
      const err = thrown(() => sqlg.exec("INSERT INTO t (k, v) VALUES (?, ?)", "big", "x".repeat(MAX + 1)));
      return {
        err,
        rows: raw
          .exec<{ k: string }>("SELECT k FROM t ORDER BY k")
          .toArray()
          .map((r) => r.k),
      };
    });
    expect(err.limit).toBe("durableObjectValueBytes");
    expect(err.message).toMatch(
      /^t\.v \(the test's object\) is 2,000,001 bytes, over what a Durable Object storage value may hold/,
    );
    expect(rows).toEqual(["fits"]);
  });

  it("counts a string's UTF-8 bytes, not its characters", async () => {
    // 700,000 'é' are 700,000 UTF-16 units but 1,400,000 bytes; 1,000,001 of them are 2,000,002 bytes.
    const err = await inObject((_, sqlg) => {
      sqlg.exec("CREATE TABLE t (v TEXT)");
      sqlg.exec("INSERT INTO t (v) VALUES (?)", "é".repeat(700_000));
      return thrown(() => sqlg.exec("INSERT INTO t (v) VALUES (?)", "é".repeat(1_000_001)));
    });
    expect(err.message).toContain("is 2,000,002 bytes");
  });

  it("refuses a row over 2 MB made of values under it, naming the row", async () => {
    const err = await inObject((_, sqlg) => {
      sqlg.exec("CREATE TABLE t (a TEXT, b TEXT)");
      return thrown(() =>
        sqlg.exec("INSERT INTO t (a, b) VALUES (?, ?)", "a".repeat(1_200_000), "b".repeat(1_200_000)),
      );
    });
    expect(err.message).toMatch(/^a row of t \(the test's object\) is 2,400,000 bytes/);
  });

  it("checks each row of a multi-row INSERT on its own, and an UPDATE's SET values", async () => {
    const { multi, update } = await inObject((_, sqlg) => {
      sqlg.exec("CREATE TABLE t (a TEXT, b TEXT)");
      // Two rows of 1.2 MB each: 2.4 MB in the statement, but each row fits.
      sqlg.exec(
        "INSERT INTO t (a, b) VALUES (?, ?), (?, ?)",
        "a".repeat(600_000),
        "b".repeat(600_000),
        "c".repeat(600_000),
        "d".repeat(600_000),
      );
      const multi = thrown(() =>
        sqlg.exec("INSERT INTO t (a, b) VALUES (?, ?), (?, ?)", "a", "b", "c".repeat(1_500_000), "d".repeat(600_000)),
      );
      const update = thrown(() =>
        sqlg.exec("UPDATE t SET a = ?, b = ? WHERE a = ?", "a".repeat(1_500_000), "b".repeat(600_000), "a"),
      );
      return { multi, update };
    });
    expect(multi.message).toMatch(/^a row of t \(row 2 of the statement\) \(the test's object\) is 2,100,000 bytes/);
    expect(update.message).toMatch(/^a row of t \(the test's object\) is 2,100,000 bytes/);
  });

  it("refuses more than 100 bound parameters and a statement over 100,000 bytes", async () => {
    const { params, length } = await inObject((_, sqlg) => {
      sqlg.exec("CREATE TABLE t (v INTEGER)");
      const ok = Array.from({ length: 100 }, (_, i) => i);
      sqlg.exec(`SELECT count(*) FROM t WHERE v IN (${ok.map(() => "?").join(",")})`, ...ok);
      const over = [...ok, 100];
      const params = thrown(() =>
        sqlg.exec(`SELECT count(*) FROM t WHERE v IN (${over.map(() => "?").join(",")})`, ...over),
      );
      const length = thrown(() => sqlg.exec(`SELECT 1 /* ${"x".repeat(100_000)} */`));
      return { params, length };
    });
    expect(params.limit).toBe("sqlBoundParameters");
    expect(params.message).toContain("binds 101 parameters");
    expect(length.limit).toBe("sqlStatementBytes");
    expect(length.message).toContain("is 100,015 bytes long");
  });
});

describe("the coordinator's stores", () => {
  it("names the key of a value too large for its key-value table", async () => {
    const err = await inObject((_, sqlg) => thrown(() => new Store(sqlg).put("endpoint", { points: "x".repeat(MAX) })));
    // The key (8 bytes) and the JSON text: '{"points":"' (11), the 2,000,000 x's, '"}' (2).
    expect(err.message).toMatch(
      /^the run's stored 'endpoint' is 2,000,021 bytes, over what a Durable Object storage value may hold/,
    );
  });

  it("keeps a config of 5 MB in pieces each under the limit, and reads it back whole", async () => {
    const config = {
      items: Array.from({ length: 20_000 }, (_, i) => ({
        id: `item-${i}`,
        question: `${"q".repeat(200)}é${i}`,
        answer: String(i),
      })),
    };
    const { back, largest, pieces } = await inObject((raw, sqlg) => {
      new Store(sqlg).putConfig(config);
      // A fresh Store, as after an eviction: nothing kept in memory.
      const back = new Store(sqlg).config();
      const largest = raw.exec<{ n: number }>("SELECT max(length(CAST(text AS BLOB))) AS n FROM config_parts").one().n;
      const pieces = raw.exec<{ n: number }>("SELECT count(*) AS n FROM config_parts").one().n;
      return { back, largest, pieces };
    });
    expect(new TextEncoder().encode(JSON.stringify(config)).byteLength).toBeGreaterThan((4 * MAX) / 2);
    expect(back).toEqual(config);
    expect(pieces).toBeGreaterThan(2);
    expect(largest).toBeLessThanOrEqual(MAX);
  });
});

describe("a coordinator started before configs were kept in pieces", () => {
  it("still reads its config from its key-value table", async () => {
    const config = { items: [{ id: "a", question: "q", answer: "1" }], seed: 7 };
    const back = await inObject((raw, sqlg) => {
      new Store(sqlg);
      // As an earlier version stored it: one key of the key-value table, no pieces.
      raw.exec("INSERT INTO kv (k, v) VALUES ('config', ?)", JSON.stringify(config));
      return new Store(sqlg).config();
    });
    expect(back).toEqual(config);
  });
});

describe("D1 (openDb)", () => {
  it("refuses a value over 2 MB, naming its table and column, and writes nothing", async () => {
    const { tenantId } = await newTenant("d1-sizes");
    const db = openDb(env.DB);
    const row = (id: string, data: unknown) => ({
      id,
      tenantId,
      evaluator: "chain-determinism",
      name: id,
      sha256: "0",
      data,
      createdAt: new Date(),
    });
    await db.insert(suites).values(row("s-fits", { pad: "x".repeat(1_000) }));
    const err = await db
      .insert(suites)
      .values(row("s-big", { pad: "x".repeat(MAX) }))
      .then(
        () => null,
        (e: unknown) => platformLimitOf(e),
      );
    expect(err?.limit).toBe("d1RowBytes");
    expect(err?.message).toMatch(/^suites\.data \(D1\) is 2,000,010 bytes, over what a D1 row may hold/);
    const ids = await db.select({ id: suites.id }).from(suites).where(sql`${suites.tenantId} = ${tenantId}`);
    expect(ids.map((r) => r.id)).toEqual(["s-fits"]);
  });

  it("refuses a statement with more than 100 bound parameters", async () => {
    const db = openDb(env.DB);
    const ids = Array.from({ length: 101 }, (_, i) => `id-${i}`);
    const err = await db
      .select()
      .from(suites)
      .where(
        sql`${suites.id} IN (${sql.join(
          ids.map((id) => sql`${id}`),
          sql`, `,
        )})`,
      )
      .then(
        () => null,
        (e: unknown) => platformLimitOf(e),
      );
    expect(err?.limit).toBe("sqlBoundParameters");
    expect(err?.message).toContain("binds 101 parameters");
  });
});

describe("the outbox's copy of samples to D1 (insertSamples)", () => {
  it("keeps each multi-row statement within 100 bound parameters, with every column a flushed sample sets", async () => {
    const { tenantId } = await newTenant("flush-params");
    const runId = await insertRunRow(tenantId, { status: "running", total: 250 });
    // Every field the outbox sets (outbox.ts sampleInsert): 10 columns, so at most 10 rows a statement.
    const rows = Array.from({ length: 250 }, (_, i) => ({
      runId,
      unitId: `u${i}`,
      status: "succeeded" as const,
      attempts: 1,
      output: JSON.stringify({ i }),
      error: null,
      createdAt: new Date(),
      callRequests: 1,
      callRetries: 0,
      callRateLimited: 0,
    }));
    // The guard throws past 100 parameters; a batch that went through wrote every row.
    await invocation("test flush", () => insertSamples(openDb(env.DB), rows));
    const written = await openDb(env.DB)
      .select({ n: sql<number>`count(*)` })
      .from(samples)
      .where(sql`${samples.runId} = ${runId}`)
      .get();
    expect(written?.n).toBe(250);
  });
});

describe("rows of a multi-row INSERT", () => {
  it("are sized by their VALUES tuples, literals included: ten rows of 1.2 MB in one statement all fit", async () => {
    const { tenantId } = await newTenant("flush-wide");
    const runId = await insertRunRow(tenantId, { status: "running", total: 10 });
    // drizzle writes `null` for the samples' `seq` in each tuple: 11 columns, 10 placeholders a row.
    // Sized by the column list instead, a "row" would straddle two outputs (2.4 MB) and be refused.
    const rows = Array.from({ length: 10 }, (_, i) => ({
      runId,
      unitId: `u${i}`,
      status: "succeeded" as const,
      attempts: 1,
      output: "o".repeat(1_200_000),
      error: null,
      createdAt: new Date(),
    }));
    await invocation("test wide flush", () => insertSamples(openDb(env.DB), rows));
    const written = await openDb(env.DB)
      .select({ n: sql<number>`count(*)` })
      .from(samples)
      .where(sql`${samples.runId} = ${runId}`)
      .get();
    expect(written?.n).toBe(10);
  });
});

describe("GET /v1/admin/platform", () => {
  it("reports the largest value stored and the most D1 queries one invocation made, with production's limits", async () => {
    const { tenantId, key } = await newTenant("platform-marks");
    resetHighWater();
    // One row of known size, written in an invocation of its own: its values' bytes are its strings'
    // lengths (ASCII) and 8 for its timestamp.
    const row = {
      id: "s-marks",
      tenantId,
      evaluator: "chain-determinism",
      name: "marks",
      sha256: "0",
      data: { pad: "y".repeat(1_500_000) },
      createdAt: new Date(),
    };
    await invocation("test write", () => openDb(env.DB).insert(suites).values(row));
    const rowBytes =
      row.id.length +
      tenantId.length +
      row.evaluator.length +
      row.name.length +
      row.sha256.length +
      JSON.stringify(row.data).length +
      8;
    expect((await send("GET", "/v1/runs", key)).status).toBe(200);
    const res = await send("GET", "/v1/admin/platform", ADMIN_TOKEN);
    expect(res.status).toBe(200);
    const body = (await res.json()) as any;
    expect(body.stored_value).toEqual({
      largest_bytes: rowBytes,
      what: "a row of suites (D1)",
      limit_bytes: PLATFORM_LIMITS.d1RowBytes.value,
    });
    expect(body.d1_queries.limit).toBe(PLATFORM_LIMITS.d1QueriesPerInvocation.value);
    expect(body.subrequests.limit).toBe(PLATFORM_LIMITS.subrequestsPerInvocation.value);
    expect(body.d1_queries.most).toBeGreaterThan(0);
    expect(body.subrequests.most).toBeGreaterThanOrEqual(body.d1_queries.most);
  });

  it("is for the operator only", async () => {
    const { key } = await newTenant("platform-marks-tenant");
    expect((await send("GET", "/v1/admin/platform", key)).status).toBe(401);
    expect((await send("GET", "/v1/admin/platform", undefined)).status).toBe(401);
  });
});
