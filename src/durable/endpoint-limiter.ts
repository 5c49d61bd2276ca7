import { DurableObject } from "cloudflare:workers";
import { DEFAULT_WINDOW, PermitBook, type Grant, type Outcome, type Released, type WindowOptions, type WindowState } from "../limiter/index.ts";
import { LIMITS } from "../limits.ts";
import { invocationsOf } from "../platform/invocation.ts";
import { guardedSql } from "../platform/sql-guard.ts";
import { countedEnv } from "../platform/counted-env.ts";

/** What a limiter shows of itself (`inspect`): for tests, operators and the runs' reports. */
export type LimiterView = { limit: number; inFlight: number; waiting: number; pausedUntil: number; maxInFlight: number; window: WindowState };

const OPTIONS: WindowOptions = { ...DEFAULT_WINDOW, max: LIMITS.concurrency };

/**
 * The adaptive concurrency of one model endpoint for one tenant (one object per tenant, base URL and
 * key hash: see endpoint-gate.ts): every lane of every run of the tenant that calls the endpoint
 * with that key asks here for a permit before each HTTP attempt and releases it with the outcome,
 * so two runs against one key share one window and one `Retry-After` pause.
 *
 * Permits live in memory with a lease (a lane that dies loses its permit when the lease ends); the
 * window (the control law's state, src/limiter/) and the pause are stored whenever they change, so
 * after an eviction the endpoint's known limit is kept. Permits granted before an eviction are not
 * known after it: their releases still pass on a `Retry-After`, and for at most one lease the
 * endpoint may see up to a window more than the limit, which its 429s then correct.
 *
 * Waiters are served first come, first served; a waiter's RPC is its place in the queue, so one that
 * an eviction drops is rejected, and its lane asks again.
 */
export class EndpointLimiter extends DurableObject<Env> {
  private readonly book: PermitBook;
  private readonly waiters: { leaseMs: number; grant: (g: Grant) => void }[] = [];
  private timer: ReturnType<typeof setTimeout> | null = null;
  private saved = "";

  constructor(ctx: DurableObjectState, env: Env) {
    super(ctx, countedEnv(env));
    ctx.storage.sql.exec("CREATE TABLE IF NOT EXISTS limiter (k INTEGER PRIMARY KEY CHECK (k = 1), v TEXT NOT NULL)");
    const row = ctx.storage.sql.exec<{ v: string }>("SELECT v FROM limiter WHERE k = 1").toArray()[0];
    const stored = row ? (JSON.parse(row.v) as { window: WindowState; pausedUntil: number }) : null;
    // A new prefix per instance: a permit of an evicted instance never matches one of this one.
    this.book = new PermitBook({ window: stored?.window, options: OPTIONS, prefix: `${crypto.randomUUID().slice(0, 8)}:` });
    this.book.pausedUntil = stored?.pausedUntil ?? 0;
  }

  /** A permit for one attempt of at most `leaseMs`, granted in turn once the window has room. */
  async acquire(leaseMs: number): Promise<Grant> {
    if (!(leaseMs > 0)) throw new RangeError(`EndpointLimiter.acquire: leaseMs must be positive, got ${leaseMs}`);
    if (this.waiters.length === 0) {
      const grant = this.book.tryGrant(Date.now(), leaseMs);
      if (grant) return grant;
    }
    return new Promise<Grant>((grant) => {
      this.waiters.push({ leaseMs, grant });
      this.wake();
    });
  }

  /** Ends a permit with its attempt's outcome; see PermitBook.release. */
  async release(id: string, outcome: Outcome): Promise<Released> {
    const released = this.book.release(id, outcome, Date.now());
    this.save();
    this.serve();
    return released;
  }

  async inspect(): Promise<LimiterView> {
    const b = this.book;
    return { limit: b.limit, inFlight: b.inFlight, waiting: this.waiters.length, pausedUntil: b.pausedUntil, maxInFlight: b.maxInFlight, window: { ...b.window } };
  }

  /** Grants permits to waiters in arrival order while the window has room, then plans the next wake. */
  private serve(): void {
    const now = Date.now();
    while (this.waiters.length) {
      const grant = this.book.tryGrant(now, this.waiters[0].leaseMs);
      if (!grant) break;
      this.waiters.shift()!.grant(grant);
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
    this.timer = setTimeout(() => {
      this.timer = null;
      this.serve();
    }, Math.max(0, at - now));
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
    guardedSql(this.ctx.storage.sql, "the endpoint limiter").exec("INSERT OR REPLACE INTO limiter (k, v) VALUES (1, ?)", JSON.stringify({ window: b.window, pausedUntil: b.pausedUntil }));
  }
}

// Each RPC call and alarm is an invocation of its own, with its own D1 and subrequest budget.
invocationsOf(EndpointLimiter, "limiter", ["acquire", "release", "inspect"]);
