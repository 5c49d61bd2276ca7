/**
 * What one invocation (a request, a Queue batch, a cron tick, a Durable Object's RPC call or alarm)
 * has used of the budgets production gives it: D1 queries and subrequests. Production ends an
 * invocation that goes past them; local workerd does not, so this counts them and throws at the same
 * point, and the tests fail where production would. The count follows the invocation through its
 * promises (AsyncLocalStorage), so code deep in a call chain charges the right budget without being
 * handed one. Code that runs outside any invocation (plain Node: engines, benchmarks) charges nothing.
 */
import { AsyncLocalStorage } from "node:async_hooks";
import { PLATFORM_LIMITS, type PlatformLimit } from "./limits.ts";

/** The PlatformLimitError behind `err`, also one wrapped as a cause (drizzle wraps a failed query's error). */
export function platformLimitOf(err: unknown): PlatformLimitError | undefined {
  for (let e = err, depth = 0; e instanceof Error && depth < 8; e = e.cause, depth++) {
    if (e instanceof PlatformLimitError) return e;
  }
  return undefined;
}

/** A production limit that an operation would have gone past; it names what and by how much. */
export class PlatformLimitError extends Error {
  readonly limit: PlatformLimit;
  constructor(limit: PlatformLimit, message: string) {
    super(
      `${message} (Cloudflare's limit: ${PLATFORM_LIMITS[limit].value.toLocaleString("en-US")}; ${PLATFORM_LIMITS[limit].source})`,
    );
    this.name = "PlatformLimitError";
    this.limit = limit;
  }
}

export interface InvocationUsage {
  /** What the invocation is, for messages and benchmarks: "fetch GET /v1/runs/{id}/events", "lane.alarm". */
  readonly kind: string;
  d1Queries: number;
  /** fetch() calls and D1 queries (both are subrequests to production). */
  subrequests: number;
}

/** The most any one invocation in this isolate has used, and the largest value it stored; for `npm run bench`. */
export interface HighWater {
  d1Queries: { count: number; kind: string };
  subrequests: { count: number; kind: string };
  storedValue: { bytes: number; what: string };
}

const current = new AsyncLocalStorage<InvocationUsage>();
const high: HighWater = {
  d1Queries: { count: 0, kind: "" },
  subrequests: { count: 0, kind: "" },
  storedValue: { bytes: 0, what: "" },
};

/** Runs `fn` as one invocation with a fresh budget. */
export function invocation<T>(kind: string, fn: () => T): T {
  return current.run({ kind, d1Queries: 0, subrequests: 0 }, fn);
}

/** The running invocation's usage so far, if code runs inside one. */
export function currentUsage(): Readonly<InvocationUsage> | undefined {
  return current.getStore();
}

/** Charges the running invocation; throws where production would end it. */
export function charge(what: "d1" | "subrequest", n = 1): void {
  const usage = current.getStore();
  if (!usage) return;
  if (what === "d1") {
    usage.d1Queries += n;
    if (usage.d1Queries > high.d1Queries.count) high.d1Queries = { count: usage.d1Queries, kind: usage.kind };
    const limit = PLATFORM_LIMITS.d1QueriesPerInvocation.value;
    if (usage.d1Queries > limit) {
      throw new PlatformLimitError(
        "d1QueriesPerInvocation",
        `${usage.kind} made its D1 query number ${usage.d1Queries}`,
      );
    }
  }
  usage.subrequests += n;
  if (usage.subrequests > high.subrequests.count) high.subrequests = { count: usage.subrequests, kind: usage.kind };
  const limit = PLATFORM_LIMITS.subrequestsPerInvocation.value;
  if (usage.subrequests > limit) {
    throw new PlatformLimitError(
      "subrequestsPerInvocation",
      `${usage.kind} made its subrequest number ${usage.subrequests}`,
    );
  }
}

/** Notes a value written to storage, for the high-water mark (the guard itself is storage-guard.ts). */
export function noteStoredValue(what: string, bytes: number): void {
  if (bytes > high.storedValue.bytes) high.storedValue = { bytes, what };
}

export function highWater(): HighWater {
  return structuredClone(high);
}

export function resetHighWater(): void {
  high.d1Queries = { count: 0, kind: "" };
  high.subrequests = { count: 0, kind: "" };
  high.storedValue = { bytes: 0, what: "" };
}

/**
 * Makes each named method of a Durable Object class (its RPC methods, `fetch`, `alarm`) an invocation
 * of its own, as production counts them. Only entry points: a method called from inside another
 * would start a fresh budget.
 */
export function invocationsOf<C extends abstract new (...args: never[]) => object>(
  cls: C,
  name: string,
  methods: readonly (keyof InstanceType<C> & string)[],
): void {
  const proto = cls.prototype as Record<string, unknown>;
  for (const method of methods) {
    const inner = proto[method];
    if (typeof inner !== "function") throw new TypeError(`${name}.${method} is not a method`);
    Object.defineProperty(proto, method, {
      configurable: true,
      writable: true,
      value: function (this: unknown, ...args: unknown[]) {
        return invocation(`${name}.${method}`, () => (inner as (...a: unknown[]) => unknown).apply(this, args));
      },
    });
  }
}
