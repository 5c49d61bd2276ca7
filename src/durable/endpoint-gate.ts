// A lane's side of an endpoint's shared limiter (endpoint-limiter.ts): which limiter an endpoint
// call belongs to, the `CallGate` the one retry policy goes through, and what the lane saw of the
// window, reported with each unit for the run's endpoint series.
import { sha256Hex } from "../crypto.ts";
import type { AttemptOutcome, CallGate, CallPermit } from "../providers/index.ts";

/**
 * The limiter of a (tenant, endpoint, key): one per tenant, base URL (trailing slashes aside) and
 * SHA-256 of the API key, so two runs against one key share a window whatever their models, and
 * two keys (two quotas) do not. The key itself is never part of the name.
 *
 * Per key rather than per model: most providers' concurrency and overload limits are per key or
 * deployment, and sharing more only makes the window more careful.
 */
export async function limiterName(tenantId: string, baseUrl: string, apiKey: string | undefined): Promise<string> {
  const keyHash = apiKey ? (await sha256Hex(apiKey)).slice(0, 32) : "none";
  return JSON.stringify([tenantId, baseUrl.replace(/\/+$/, ""), keyHash]);
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
  acquire(leaseMs: number): Promise<{ id: string; limit: number; inFlight: number }>;
  release(id: string, outcome: AttemptOutcome): Promise<{ absorbed: boolean; limit: number; inFlight: number }>;
};

/** Tries of an acquire whose RPC failed (a limiter being reset), before the call goes ahead unlimited. */
const ACQUIRE_TRIES = 3;

/**
 * The gate of one endpoint's calls: a permit per HTTP attempt, leased for the attempt's timeout plus
 * a margin. If the limiter cannot be reached after a few tries the attempt goes ahead without a
 * permit: a limiter is there to spare the endpoint, and a lane's calls must not fail for its sake.
 * A permit granted after the caller gave up (a cancel) is released at once.
 */
export function limiterGate(stub: () => LimiterStub | Promise<LimiterStub>, leaseMs: number, watch: EndpointWatch): CallGate {
  const open: CallPermit = { release: async () => ({ absorbed: false }) };
  return {
    async acquire(signal?: AbortSignal): Promise<CallPermit> {
      for (let attempt = 1; ; attempt++) {
        if (signal?.aborted) throw signal.reason;
        let limiter: LimiterStub;
        let grant;
        try {
          limiter = await stub();
          const l = limiter;
          grant = await untilAborted(l.acquire(leaseMs), signal, (g) => void l.release(g.id, { kind: "canceled" }).catch(() => {}));
        } catch (err) {
          if (signal?.aborted) throw signal.reason;
          if (attempt >= ACQUIRE_TRIES) {
            console.error(JSON.stringify({ level: "warn", error: `endpoint limiter unreachable, calling without a permit: ${String(err)}` }));
            return open;
          }
          continue;
        }
        watch.note(grant.limit, grant.inFlight);
        const id = grant.id;
        let released = false;
        return {
          release: async (outcome) => {
            if (released) return { absorbed: false };
            released = true;
            const r = await limiter.release(id, outcome);
            watch.note(r.limit, r.inFlight + 1);
            return r;
          },
        };
      }
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
