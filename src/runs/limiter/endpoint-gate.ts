// A lane's side of an endpoint's shared limiter (endpoint-limiter.ts): which limiter (and shard) an
// endpoint call belongs to, the `CallGate` the one retry policy goes through (it keeps its permits
// between attempts and renews them in aggregate: docs/concurrency.md), and what the lane saw of the
// window, reported with each unit for the run's endpoint series.
import { sha256Hex } from "../../crypto.ts";
import type { AttemptOutcome, CallGate, CallPermit } from "../../providers/index.ts";

/**
 * How many limiter objects share the window of one (tenant, endpoint, key); see src/runs/limiter/shards.ts.
 * One: with lanes renewing their permits every RENEW_EVERY.attempts calls, one object serves an
 * endpoint answering thousands of calls a second within its ~1,000 requests a second, and a single
 * window learns the endpoint's limit from every lane's refusals at once. Raise it for a key busier
 * than that; shard 0 of 1 keeps the unsharded name, so a limiter's learned window survives the change
 * only for that shard.
 */
export const LIMITER_SHARDS = 1;

/**
 * The limiter of a (tenant, endpoint, key): one per tenant, base URL (trailing slashes aside) and
 * SHA-256 of the API key, so two runs against one key share a window whatever their models, and
 * two keys (two quotas) do not. The key itself is never part of the name. With `shards` > 1, shard
 * `shard` of that window (the lane picks it with `shardOf`).
 *
 * Per key rather than per model: most providers' concurrency and overload limits are per key or
 * deployment, and sharing more only makes the window more careful.
 */
export async function limiterName(
  tenantId: string,
  baseUrl: string,
  apiKey: string | undefined,
  shard = 0,
  shards = 1,
): Promise<string> {
  const keyHash = apiKey ? (await sha256Hex(apiKey)).slice(0, 32) : "none";
  const name = [tenantId, baseUrl.replace(/\/+$/, ""), keyHash];
  return JSON.stringify(shards === 1 ? name : [...name, shard, shards]);
}

/** The number of shards a limiter's name says its window is split into (1 for an unsharded name). */
export function shardsOfName(name: string): number {
  try {
    const parts = JSON.parse(name) as unknown[];
    const shards = parts[4];
    return typeof shards === "number" && Number.isInteger(shards) && shards >= 1 ? shards : 1;
  } catch {
    return 1;
  }
}

/** One point a lane saw: [epoch second, the window's limit, permits held]. */
export type EndpointPoint = [number, number, number];

/** What a unit's lane saw of its endpoints' windows, sent with the unit's report. */
export type EndpointObservation = { points: EndpointPoint[] };

/**
 * Collects a unit's view of the window: per second, the largest limit and in-flight count a grant
 * or release showed. A unit spans seconds, not hours, so this stays small.
 */
export class EndpointWatch {
  private points = new Map<number, EndpointPoint>();

  note(limit: number, inFlight: number, now = Date.now()): void {
    const s = Math.floor(now / 1000);
    const p = this.points.get(s);
    if (!p) this.points.set(s, [s, limit, inFlight]);
    else {
      p[1] = Math.max(p[1], limit);
      p[2] = Math.max(p[2], inFlight);
    }
  }

  /** The observation so far (undefined if the unit called no limited endpoint), and a fresh start. */
  take(): EndpointObservation | undefined {
    if (this.points.size === 0) return undefined;
    const points = [...this.points.values()];
    this.points = new Map();
    return { points };
  }
}

/** The RPC surface a gate uses (EndpointLimiter's), so that the gate needs no `cloudflare:*` to be read. */
export type LimiterStub = {
  acquire(leaseMs: number, opening?: number): Promise<GrantView>;
  renew(id: string, latenciesMs: number[], leaseMs: number): Promise<GrantView>;
  release(
    id: string,
    outcome: AttemptOutcome,
    latenciesMs?: number[],
  ): Promise<{ absorbed: boolean; limit: number; inFlight: number }>;
};
/** `waiting`: how many were still waiting for a permit when this one was granted. */
type GrantView = { id: string; limit: number; inFlight: number; waiting?: number };

/** Tries of an acquire whose RPC failed (a limiter being reset), before the call goes ahead unlimited. */
const ACQUIRE_TRIES = 3;

/**
 * A lane keeps a permit across its attempts and renews it (reporting their successes) after at most
 * this many successes or this long, whichever comes first: the limiter hears from a lane about once
 * per `attempts` model calls instead of twice per call. The period stays well inside the permit's
 * lease (the attempt's timeout + 30 s) and bounds how stale the lane's view of the window and of a
 * `Retry-After` pause may be; an overload is reported at once, whatever the count.
 *
 * The count starts at 1 and doubles with each renewal that finds the window uncontested (nobody
 * waiting, room left), back to 1 when it is contested: while the window is being found (others wait
 * for a place, it grows with each reported success, a cut near the endpoint's limit must reach the
 * lanes that hold permits) a lane renews after every success, as promptly as a release per call did;
 * once the window has room, the renewals thin out to one per `attempts` calls.
 */
export const RENEW_EVERY = { attempts: 10, ms: 10_000 };

/** A gate that keeps permits between attempts: `close` gives back the ones it holds (the lane goes idle). */
export type LeasingGate = CallGate & { close(): Promise<void> };

/** A permit the gate keeps; `every`: the successes after which it is renewed next (see RENEW_EVERY). */
type Slot = { limiter: LimiterStub; id: string; latencies: number[]; since: number; busy: boolean; every: number };

/** Whether others want the window's places: then a lane holding one reports and yields after each success. */
const contested = (g: GrantView) => (g.waiting ?? 0) > 0 || g.inFlight >= g.limit;

/**
 * The gate of one endpoint's calls from one lane. Each attempt needs a permit (one request's place
 * in the shared window, leased for `leaseMs`: the attempt's timeout plus a margin); a permit is kept
 * after a success or a plain error, for the lane's next attempt, and renewed every RENEW_EVERY,
 * reporting the successes since. An overload (it narrows the window) or a cancel gives it back at
 * once, with its verdict. If the limiter cannot be reached after a few tries the attempt goes ahead
 * without a permit: a limiter is there to spare the endpoint, and a lane's calls must not fail for
 * its sake. A permit granted after the caller gave up (a cancel) is released at once.
 */
export function limiterGate(
  stub: () => LimiterStub | Promise<LimiterStub>,
  leaseMs: number,
  watch: EndpointWatch,
  {
    renewEvery = RENEW_EVERY,
    now = Date.now,
    opening,
  }: {
    renewEvery?: { attempts: number; ms: number };
    now?: () => number;
    /** The concurrency the lane's run was given, when its request gave one (EndpointLimiter.acquire). */
    opening?: number;
  } = {},
): LeasingGate {
  const open: CallPermit = { release: async () => ({ absorbed: false }) };
  const slots: Slot[] = [];
  let closed = false;
  // The window as the limiter last showed it, noted again at each attempt that asks it nothing.
  let seen: [number, number] | null = null;
  const note = (limit: number, inFlight: number) => {
    seen = [limit, inFlight];
    watch.note(limit, inFlight);
  };
  const drop = (slot: Slot) => {
    const at = slots.indexOf(slot);
    if (at >= 0) slots.splice(at, 1);
  };
  const giveBack = (slot: Slot) => {
    drop(slot);
    return slot.limiter.release(slot.id, { kind: "canceled" }, slot.latencies.splice(0));
  };

  const permitOf = (slot: Slot): CallPermit => {
    let released = false;
    return {
      release: async (outcome) => {
        if (released) return { absorbed: false };
        released = true;
        slot.busy = false;
        // A success or an error that says nothing of the window: the permit stays for the next attempt.
        if (outcome.kind === "ok" || outcome.kind === "error") {
          if (outcome.kind === "ok") slot.latencies.push(outcome.latencyMs);
          if (closed) await giveBack(slot).catch(() => {});
          return { absorbed: false };
        }
        drop(slot);
        const r = await slot.limiter.release(slot.id, outcome, slot.latencies.splice(0));
        note(r.limit, r.inFlight + 1);
        return r;
      },
    };
  };

  /** A kept permit, renewed first if its period is over; null if it was lost on the way (a new one is asked for). */
  const reuse = async (slot: Slot, signal?: AbortSignal): Promise<CallPermit | null> => {
    slot.busy = true;
    if (slot.latencies.length < slot.every && now() - slot.since < renewEvery.ms) {
      if (seen) watch.note(seen[0], seen[1]);
      return permitOf(slot);
    }
    const l = slot.limiter;
    try {
      const grant = await untilAborted(
        l.renew(slot.id, slot.latencies.splice(0), leaseMs),
        signal,
        (g) => void l.release(g.id, { kind: "canceled" }).catch(() => {}),
      );
      slot.every = contested(grant) || grant.id !== slot.id ? 1 : Math.min(2 * slot.every, renewEvery.attempts);
      slot.id = grant.id;
      slot.since = now();
      note(grant.limit, grant.inFlight);
      return permitOf(slot);
    } catch {
      // Its lease runs out at the limiter; the attempt asks for a new one (or gives up, if canceled).
      drop(slot);
      if (signal?.aborted) throw signal.reason;
      return null;
    }
  };

  return {
    async acquire(signal?: AbortSignal): Promise<CallPermit> {
      if (signal?.aborted) throw signal.reason;
      const kept = slots.find((s) => !s.busy);
      if (kept) {
        const permit = await reuse(kept, signal);
        if (permit) return permit;
      }
      for (let attempt = 1; ; attempt++) {
        if (signal?.aborted) throw signal.reason;
        let limiter: LimiterStub;
        let grant;
        try {
          limiter = await stub();
          const l = limiter;
          grant = await untilAborted(
            l.acquire(leaseMs, opening),
            signal,
            (g) => void l.release(g.id, { kind: "canceled" }).catch(() => {}),
          );
        } catch (err) {
          if (signal?.aborted) throw signal.reason;
          if (attempt >= ACQUIRE_TRIES) {
            console.error(
              JSON.stringify({
                level: "warn",
                error: `endpoint limiter unreachable, calling without a permit: ${String(err)}`,
              }),
            );
            return open;
          }
          continue;
        }
        note(grant.limit, grant.inFlight);
        const slot: Slot = { limiter, id: grant.id, latencies: [], since: now(), busy: true, every: 1 };
        slots.push(slot);
        return permitOf(slot);
      }
    },

    async close(): Promise<void> {
      closed = true;
      // A permit in use is given back by its attempt's release (above); the others now.
      await Promise.all(slots.filter((s) => !s.busy).map((s) => giveBack(s).catch(() => {})));
    },
  };
}

/** `pending`, or the signal's reason if it aborts first; then `late` gets what `pending` still brings. */
function untilAborted<T>(pending: Promise<T>, signal: AbortSignal | undefined, late: (value: T) => void): Promise<T> {
  if (!signal) return pending;
  return new Promise<T>((resolve, reject) => {
    const onAbort = () => {
      reject(signal.reason);
      pending.then(late, () => {});
    };
    signal.addEventListener("abort", onAbort, { once: true });
    pending.then(
      (v) => {
        signal.removeEventListener("abort", onAbort);
        // Aborted first: onAbort passed the value on to `late`.
        if (!signal.aborted) resolve(v);
      },
      (e) => {
        signal.removeEventListener("abort", onAbort);
        reject(e);
      },
    );
  });
}
