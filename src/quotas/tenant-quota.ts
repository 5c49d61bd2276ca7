import { DurableObject } from "cloudflare:workers";
import { invocationsOf } from "../platform/invocation.ts";
import { countedEnv } from "../platform/counted-env.ts";
import { guardedSql } from "../platform/sql-guard.ts";
import { openDb } from "../db/client.ts";
import { FINAL_STATUSES, runStatuses, unendedRunIds } from "../db/runs.ts";
import { tenantUsage } from "../db/lifetime.ts";
import { effectiveQuotas, QUOTA_MAX, type QuotaName, type Quotas } from "./defaults.ts";
import { dayOf, dayRefusal, inWindow, windowRefusal, type Refusal } from "./windows.ts";

/** What one tenant's object keeps: its overrides and what it has counted. */
type State = {
  overrides: Partial<Quotas>;
  /** When each run of the last minute was created (ms, ascending). */
  created: number[];
  /** When each heavy read of the last minute was admitted (ms, ascending). */
  heavy: number[];
  /** The UTC day `dayUnits` counts, and the units of the runs created in it. */
  day: number;
  dayUnits: number;
  /** The runs admitted and not known to have ended, with when they were admitted. */
  active: { id: string; at: number }[];
  /** The tenant's stored bytes as last measured in D1, and when. */
  bytes: { total: number; at: number } | null;
};

const EMPTY: State = { overrides: {}, created: [], heavy: [], day: 0, dayUnits: 0, active: [], bytes: null };

/**
 * How long an admitted run counts as running before D1 shows it: the time between its admission and
 * its row's insert (milliseconds, normally). A creation that failed in between stops counting after it.
 */
export const PENDING_MS = 60_000;
/** How old a measure of the stored bytes may be before an admission measures again. */
export const BYTES_TTL_MS = 60_000;
/**
 * What a concurrent-runs refusal suggests in `Retry-After`: a slot frees when one of the tenant's runs
 * ends, which nobody can foresee, so this is a polling interval, not a promise.
 */
export const CONCURRENT_RETRY_SECONDS = 15;

export type QuotaRefusal = Refusal & { quota: QuotaName; limit: number };
export type Admission = { ok: true } | ({ ok: false } & QuotaRefusal);
/** Where a tenant stands against each quota it is counted against here (stored bytes are the usage route's). */
export type QuotaStanding = {
  quotas: Quotas;
  overrides: Partial<Quotas>;
  used: { runs_per_minute: number; concurrent_runs: number; units_per_day: number; heavy_reads_per_minute: number };
};
/** An operator's change: a number sets a quota, null returns it to its default, absent leaves it. */
export type QuotaPatch = Partial<Record<QuotaName, number | null>>;

/**
 * One tenant's quotas (named by its tenant id): runs created per minute, concurrent runs, units per day,
 * stored bytes and heavy reads per minute, with the operator's overrides. Every check and its count
 * happen in one turn of this object, so two requests at once cannot both take the last slot.
 *
 * The concurrent count cannot leak: it is the runs this object admitted, but before it refuses it
 * rebuilds that set from D1 (the tenant's queued and running runs, plus admissions too recent to be
 * there), so a run that ended in any way (finished, canceled, failed by the cron, crashed) frees its
 * slot without anyone having to tell this object. Only creations (the platform's follow-up runs
 * included) and heavy reads call it.
 */
export class TenantQuota extends DurableObject<Env> {
  private readonly sql: SqlStorage;
  /** Admissions wait for each other: one may await D1 and must not interleave with the next. */
  private turn: Promise<unknown> = Promise.resolve();

  constructor(ctx: DurableObjectState, env: Env) {
    super(ctx, countedEnv(env));
    this.sql = guardedSql(ctx.storage.sql, "TenantQuota");
    this.sql.exec("CREATE TABLE IF NOT EXISTS quota (k INTEGER PRIMARY KEY CHECK (k = 1), v TEXT NOT NULL)");
  }

  /**
   * Admits the runs of one creation request (ids chosen by the caller, units each) against runs per
   * minute, concurrent runs, units per day and stored bytes, and counts them; or counts nothing and
   * says which quota refused them.
   */
  async admitRuns(runs: { id: string; units: number }[], now = Date.now()): Promise<Admission> {
    return this.serial(async () => {
      const s = this.load(now);
      const q = effectiveQuotas(s.overrides);
      const units = runs.reduce((sum, r) => sum + r.units, 0);
      const refused =
        named("runs_per_minute", q, windowRefusal(s.created, runs.length, q.runs_per_minute, now)) ??
        (await this.concurrentRefusal(s, q, runs.length, now)) ??
        named("units_per_day", q, dayRefusal(s.dayUnits, units, q.units_per_day, now)) ??
        (await this.bytesRefusal(s, q, now));
      if (refused) {
        this.save(s);
        return { ok: false, ...refused };
      }
      this.count(s, runs, now);
      this.save(s);
      return { ok: true };
    });
  }

  /**
   * Counts runs the platform made itself (an rpl auto stage's follow-up), never refusing them: the run
   * they continue was admitted, and stopping half-way would waste it. They use up the minute, the day's
   * units and a concurrent slot like any run, so the next request of the tenant sees them.
   */
  async countRuns(runs: { id: string; units: number }[], now = Date.now()): Promise<void> {
    return this.serial(async () => {
      const s = this.load(now);
      this.count(s, runs, now);
      this.save(s);
    });
  }

  /**
   * Takes back what admitting or counting these runs used (their minute stamps, the day's units if it
   * is still that day, their concurrent slots), for runs that were admitted but never written: a
   * concurrent request with the same Idempotency-Key wrote its run first, or the write failed.
   */
  async releaseRuns(runs: { id: string; units: number }[], now = Date.now()): Promise<void> {
    return this.serial(async () => {
      const s = this.load(now);
      for (const r of runs) {
        const i = s.active.findIndex((a) => a.id === r.id);
        if (i < 0) continue;
        const [{ at }] = s.active.splice(i, 1);
        const stamp = s.created.indexOf(at);
        if (stamp >= 0) s.created.splice(stamp, 1);
        if (dayOf(at) === s.day) s.dayUnits = Math.max(0, s.dayUnits - r.units);
      }
      this.save(s);
    });
  }

  /** Admits one read of a whole run (docs/quotas.md lists them) and counts it, or says when one fits. */
  async admitHeavyRead(now = Date.now()): Promise<Admission> {
    return this.serial(async () => {
      const s = this.load(now);
      const q = effectiveQuotas(s.overrides);
      const refused = named("heavy_reads_per_minute", q, windowRefusal(s.heavy, 1, q.heavy_reads_per_minute, now));
      if (refused) return { ok: false, ...refused };
      s.heavy.push(now);
      this.save(s);
      return { ok: true };
    });
  }

  /** The tenant's quotas and what it has used of each; the concurrent count read afresh from D1. */
  async standing(now = Date.now()): Promise<QuotaStanding> {
    return this.serial(async () => {
      const s = this.load(now);
      await this.reconcile(s, now);
      this.save(s);
      return {
        quotas: effectiveQuotas(s.overrides),
        overrides: { ...s.overrides },
        used: {
          runs_per_minute: s.created.length,
          concurrent_runs: s.active.length,
          units_per_day: s.dayUnits,
          heavy_reads_per_minute: s.heavy.length,
        },
      };
    });
  }

  /** Applies an operator's change (validated by the route against QUOTA_MAX) and returns the overrides after it. */
  async setOverrides(patch: QuotaPatch): Promise<Partial<Quotas>> {
    return this.serial(async () => {
      const s = this.load(Date.now());
      for (const [name, value] of Object.entries(patch) as [QuotaName, number | null | undefined][]) {
        if (value === undefined) continue;
        if (value === null) delete s.overrides[name];
        else if (Number.isSafeInteger(value) && value >= 0 && value <= QUOTA_MAX[name]) s.overrides[name] = value;
        else
          throw new RangeError(
            `TenantQuota.setOverrides: ${name} must be an integer in 0..${QUOTA_MAX[name]}, got ${value}`,
          );
      }
      this.save(s);
      return { ...s.overrides };
    });
  }

  private serial<T>(fn: () => Promise<T>): Promise<T> {
    const next = this.turn.then(fn, fn);
    this.turn = next.catch(() => undefined);
    return next;
  }

  private get tenantId(): string {
    const name = this.ctx.id.name;
    if (!name) throw new Error("TenantQuota: the object must be named by its tenant id (idFromName)");
    return name;
  }

  private count(s: State, runs: { id: string; units: number }[], now: number): void {
    s.created.push(...runs.map(() => now));
    s.dayUnits += runs.reduce((sum, r) => sum + r.units, 0);
    s.active.push(...runs.map((r) => ({ id: r.id, at: now })));
  }

  /** The stored state, with what has left its window dropped. */
  private load(now: number): State {
    const row = this.sql.exec<{ v: string }>("SELECT v FROM quota WHERE k = 1").toArray()[0];
    const s: State = { ...structuredClone(EMPTY), ...(row ? (JSON.parse(row.v) as Partial<State>) : {}) };
    s.created = inWindow(s.created, now);
    s.heavy = inWindow(s.heavy, now);
    if (s.day !== dayOf(now)) Object.assign(s, { day: dayOf(now), dayUnits: 0 });
    return s;
  }

  private save(s: State): void {
    this.sql.exec(
      "INSERT INTO quota (k, v) VALUES (1, ?) ON CONFLICT (k) DO UPDATE SET v = excluded.v",
      JSON.stringify(s),
    );
  }

  /**
   * The admitted runs, rebuilt: those D1 has not seen end, and recent admissions D1 does not show ended
   * (no row yet, or a row written, still unended, after the first read: each is read with its status, so
   * a row inserted between the two reads is kept, not taken for ended).
   */
  private async reconcile(s: State, now: number): Promise<void> {
    const db = openDb(this.env.DB);
    const unended = await unendedRunIds(db, this.tenantId, QUOTA_MAX.concurrent_runs + 1);
    const known = new Set(unended);
    const recent = s.active.filter((r) => !known.has(r.id) && r.at > now - PENDING_MS);
    const statuses = recent.length
      ? await runStatuses(
          db,
          this.tenantId,
          recent.map((r) => r.id),
        )
      : new Map<string, string>();
    const pending = recent.filter((r) => !FINAL_STATUSES.some((f) => f === statuses.get(r.id)));
    const admittedAt = new Map(s.active.map((r) => [r.id, r.at]));
    s.active = [...unended.map((id) => ({ id, at: admittedAt.get(id) ?? 0 })), ...pending];
  }

  /** Trusts its own count while there is room; reconciles with D1 only when it would refuse. */
  private async concurrentRefusal(s: State, q: Quotas, n: number, now: number): Promise<QuotaRefusal | null> {
    if (s.active.length + n <= q.concurrent_runs) return null;
    await this.reconcile(s, now);
    if (s.active.length + n <= q.concurrent_runs) return null;
    const never = n > q.concurrent_runs;
    return {
      quota: "concurrent_runs",
      limit: q.concurrent_runs,
      retryAfterSeconds: never ? null : CONCURRENT_RETRY_SECONDS,
      detail: never
        ? `this request makes ${n} runs at once, more than the ${q.concurrent_runs} allowed`
        : `${s.active.length} runs have not ended (queued or running) and this makes ${n} more of ${q.concurrent_runs}; a slot frees when one ends or is canceled`,
    };
  }

  /** Measures the stored bytes when the last measure is old or would refuse; refuses at or over the quota. */
  private async bytesRefusal(s: State, q: Quotas, now: number): Promise<QuotaRefusal | null> {
    const stale = !s.bytes || s.bytes.at <= now - BYTES_TTL_MS;
    if (!stale && s.bytes!.total < q.stored_bytes) return null;
    const u = await tenantUsage(openDb(this.env.DB), this.tenantId);
    s.bytes = { total: u.d1Bytes + u.r2Bytes, at: now };
    if (s.bytes.total < q.stored_bytes) return null;
    return {
      quota: "stored_bytes",
      limit: q.stored_bytes,
      // Time does not free storage (retention aside): deleting runs does.
      retryAfterSeconds: null,
      detail: `the tenant stores ${s.bytes.total} bytes of ${q.stored_bytes}; delete runs (DELETE /v1/runs/{id}, or a shorter retention in PUT /v1/settings) to make room — GET /v1/usage shows what is stored`,
    };
  }
}

function named(quota: QuotaName, q: Quotas, r: Refusal | null): QuotaRefusal | null {
  return r && { quota, limit: q[quota], ...r };
}

invocationsOf(TenantQuota, "TenantQuota", [
  "admitRuns",
  "countRuns",
  "releaseRuns",
  "admitHeavyRead",
  "standing",
  "setOverrides",
]);
