import { DurableObject } from "cloudflare:workers";
import {
  DEFAULT_WINDOW,
  PermitBook,
  shardOptions,
  type Grant,
  type Outcome,
  type Released,
  type WindowOptions,
  type WindowState,
} from "./index.ts";
import { LIMITS } from "../../limits.ts";
import { invocationsOf } from "../../platform/invocation.ts";
import { shardsOfName } from "./endpoint-gate.ts";
import { guardedSql } from "../../platform/sql-guard.ts";
import { countedEnv } from "../../platform/counted-env.ts";

/** What a limiter shows of itself (`inspect`): for tests, operators and the runs' reports. */
export type LimiterView = {
  limit: number;
  inFlight: number;
  waiting: number;
  pausedUntil: number;
  maxInFlight: number;
  window: WindowState;
  /** Permit requests (acquire, renew, release) this instance has served since it started: what the lanes cost it. */
  requests: number;
};

/** A permit as the limiter grants it, with how many were still waiting then (a lane renews sooner while some are). */
export type LimiterGrant = Grant & { waiting: number };

const OPTIONS: WindowOptions = { ...DEFAULT_WINDOW, max: LIMITS.concurrency };

/** The window options of the object named `name`: a shard owns its share of the whole window (see endpoint-gate.ts). */
function optionsOf(name: string | undefined): WindowOptions {
  return shardOptions(OPTIONS, name ? shardsOfName(name) : 1);
}

/**
 * The adaptive concurrency of one model endpoint for one tenant (one object per tenant, base URL and
 * key hash, or a few shards of it: see endpoint-gate.ts): every lane of every run of the tenant that
 * calls the endpoint with that key holds a permit here while it sends requests, so two runs against
 * one key share one window and one `Retry-After` pause.
 *
 * A lane keeps its permit from one request to the next and renews it every few requests or seconds
 * (`renew`), reporting the successes since; an overload or a cancel releases it at once (`release`).
 * So this object serves a fraction of a request per model call, not two (each request to it is
 * billed, and one object takes about 1,000 a second). A renewal while others wait, during a pause or
 * after a cut puts the lane back in the queue: the window and its fairness hold per renewal period.
 *
 * Permits live in memory with a lease (a lane that dies loses its permit when the lease ends); the
 * window (the control law's state, window.ts) and the pause are stored whenever they change, so
 * after an eviction the endpoint's known limit is kept. Permits granted before an eviction are not
 * known after it: their releases still pass on a `Retry-After`, and for at most one lease the
 * endpoint may see up to a window more than the limit, which its 429s then correct.
 *
 * Waiters are served first come, first served; a waiter's RPC is its place in the queue, so one that
 * an eviction drops is rejected, and its lane asks again.
 */
export class EndpointLimiter extends DurableObject<Env> {
  private readonly book: PermitBook;
  private readonly waiters: { leaseMs: number; grant: (g: LimiterGrant) => void }[] = [];
  private timer: ReturnType<typeof setTimeout> | null = null;
  private saved = "";
  private requests = 0;

  constructor(ctx: DurableObjectState, env: Env) {
    super(ctx, countedEnv(env));
    ctx.storage.sql.exec("CREATE TABLE IF NOT EXISTS limiter (k INTEGER PRIMARY KEY CHECK (k = 1), v TEXT NOT NULL)");
    const row = ctx.storage.sql.exec<{ v: string }>("SELECT v FROM limiter WHERE k = 1").toArray()[0];
    const stored = row ? (JSON.parse(row.v) as { window: WindowState; pausedUntil: number }) : null;
    // A new prefix per instance: a permit of an evicted instance never matches one of this one.
    this.book = new PermitBook({
      window: stored?.window,
      options: optionsOf(ctx.id.name),
      prefix: `${crypto.randomUUID().slice(0, 8)}:`,
    });
    this.book.pausedUntil = stored?.pausedUntil ?? 0;
  }

  /**
   * A permit for attempts of at most `leaseMs` from now, granted in turn once the window has room.
   * `opening`: the concurrency the caller's run was given, if its request gave one; a window still in
   * its start opens to it (this shard's share of it) at once (see `openTo` in src/runs/limiter/window.ts).
   */
  async acquire(leaseMs: number, opening?: number): Promise<LimiterGrant> {
    if (!(leaseMs > 0)) throw new RangeError(`EndpointLimiter.acquire: leaseMs must be positive, got ${leaseMs}`);
    if (opening !== undefined && !(Number.isInteger(opening) && opening >= 1))
      throw new RangeError(`EndpointLimiter.acquire: opening must be a positive integer, got ${opening}`);
    this.requests++;
    if (opening !== undefined) {
      this.book.open(Math.ceil(opening / shardsOfName(this.ctx.id.name ?? "")));
      this.save();
    }
    if (this.waiters.length === 0) {
      const grant = this.book.tryGrant(Date.now(), leaseMs);
      if (grant) return { ...grant, waiting: 0 };
    }
    return this.queue(leaseMs);
  }

  /**
   * Keeps permit `id` for `leaseMs` more, after the successes it reports (`latenciesMs`, in ms): the
   * same permit while nobody waits and the window still has it, otherwise a new one granted in turn
   * (see PermitBook.extend), so a lane that keeps sending yields to those waiting once per renewal.
   */
  async renew(id: string, latenciesMs: number[], leaseMs: number): Promise<LimiterGrant> {
    if (!(leaseMs > 0)) throw new RangeError(`EndpointLimiter.renew: leaseMs must be positive, got ${leaseMs}`);
    this.requests++;
    const now = Date.now();
    this.book.report(id, latenciesMs);
    const kept = this.waiters.length === 0 ? this.book.extend(id, now, leaseMs) : null;
    if (!kept) this.book.release(id, { kind: "canceled" }, now);
    this.save();
    if (kept) return { ...kept, waiting: 0 };
    const turn = this.queue(leaseMs);
    this.serve();
    return turn;
  }

  /**
   * Ends a permit with its last attempt's outcome (see PermitBook.release), after the successes made
   * under it since its grant or last renewal (`latenciesMs`; a lane giving its permit back when it
   * goes idle reports them with the outcome `canceled`).
   */
  async release(id: string, outcome: Outcome, latenciesMs: number[] = []): Promise<Released> {
    this.requests++;
    this.book.report(id, latenciesMs);
    const released = this.book.release(id, outcome, Date.now());
    this.save();
    this.serve();
    return released;
  }

  async inspect(): Promise<LimiterView> {
    const b = this.book;
    return {
      limit: b.limit,
      inFlight: b.inFlight,
      waiting: this.waiters.length,
      pausedUntil: b.pausedUntil,
      maxInFlight: b.maxInFlight,
      window: { ...b.window },
      requests: this.requests,
    };
  }

  private queue(leaseMs: number): Promise<LimiterGrant> {
    return new Promise<LimiterGrant>((grant) => {
      this.waiters.push({ leaseMs, grant });
      this.wake();
    });
  }

  /** Grants permits to waiters in arrival order while the window has room, then plans the next wake. */
  private serve(): void {
    const now = Date.now();
    while (this.waiters.length) {
      const grant = this.book.tryGrant(now, this.waiters[0].leaseMs);
      if (!grant) break;
      this.waiters.shift()!.grant({ ...grant, waiting: this.waiters.length });
    }
    this.wake();
  }

  /** Waiters wait for a release, or for the pause or the first lease to end: a timer for the latter. */
  private wake(): void {
    if (this.timer) clearTimeout(this.timer);
    this.timer = null;
    if (!this.waiters.length) return;
    const now = Date.now();
    const at = this.book.wakeAt(now);
    if (at === null) return;
    this.timer = setTimeout(
      () => {
        this.timer = null;
        this.serve();
      },
      Math.max(0, at - now),
    );
  }

  /**
   * Stores the window and the pause when the limit, the phase, the ceiling or the pause changed: not
   * for every fraction the window grows by (each write is a commit, and the fractions are worth less).
   */
  private save(): void {
    const b = this.book;
    const key = JSON.stringify([b.limit, b.window.phase, b.window.ceiling, b.pausedUntil]);
    if (key === this.saved) return;
    this.saved = key;
    // Checked as production checks a stored value (src/platform/sql-guard.ts): a fixed few numbers today.
    guardedSql(this.ctx.storage.sql, "the endpoint limiter").exec(
      "INSERT OR REPLACE INTO limiter (k, v) VALUES (1, ?)",
      JSON.stringify({ window: b.window, pausedUntil: b.pausedUntil }),
    );
  }
}

// Each RPC call and alarm is an invocation of its own, with its own D1 and subrequest budget.
invocationsOf(EndpointLimiter, "limiter", ["acquire", "renew", "release", "inspect"]);
