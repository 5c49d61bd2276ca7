/**
 * What Cloudflare enforces in production, in one place, each figure with the page it comes from
 * (read 2026-11-27). Local workerd and the vitest pool enforce almost none of these, so our own code
 * does (src/platform/invocation.ts, src/platform/storage-guard.ts) and the tests see what production
 * sees. These are the platform's limits; the API's own limits, chosen by us, are in src/limits.ts.
 * The Workers Paid plan is assumed throughout: on Free a request gets 10 ms of CPU and 50
 * subrequests, and assay cannot run there.
 */
const MB = 1_000_000;

export const PLATFORM_LIMITS = {
  /** SQLite-backed Durable Object: the largest string, BLOB or row (a key and its value together). */
  durableObjectValueBytes: {
    value: 2 * MB,
    source: "https://developers.cloudflare.com/durable-objects/platform/limits/",
  },
  /** Bound parameters in one SQL statement, in a Durable Object's SQLite and in D1 alike. */
  sqlBoundParameters: {
    value: 100,
    source: "https://developers.cloudflare.com/d1/platform/limits/",
  },
  /** Length of one SQL statement, D1 and Durable Object SQLite. */
  sqlStatementBytes: {
    value: 100_000,
    source: "https://developers.cloudflare.com/d1/platform/limits/",
  },
  /** D1: the largest string, BLOB or row. */
  d1RowBytes: {
    value: 2 * MB,
    source: "https://developers.cloudflare.com/d1/platform/limits/",
  },
  /** D1: queries one Worker invocation may make (Workers Paid; 50 on Free). */
  d1QueriesPerInvocation: {
    value: 1_000,
    source: "https://developers.cloudflare.com/d1/platform/limits/",
  },
  /** D1: one database's size (Workers Paid). */
  d1DatabaseBytes: {
    value: 10_000_000_000,
    source: "https://developers.cloudflare.com/d1/platform/limits/",
  },
  /**
   * Subrequests one invocation may make: fetch() and calls to other Cloudflare services (D1, KV, R2,
   * Durable Objects, Queues). 10,000 is the Paid default (configurable in `limits.subrequests`); 50 on Free.
   */
  subrequestsPerInvocation: {
    value: 10_000,
    source: "https://developers.cloudflare.com/workers/platform/limits/#subrequests",
  },
  /** Outgoing connections one invocation keeps open at once; more requests wait for a free one. */
  simultaneousConnections: {
    value: 6,
    source: "https://developers.cloudflare.com/workers/platform/limits/#simultaneous-open-connections",
  },
  /** Memory of one isolate (Durable Objects in it share it). */
  memoryBytes: {
    value: 128 * 1024 * 1024,
    source: "https://developers.cloudflare.com/workers/platform/limits/#memory",
  },
  /** CPU per invocation by default on Paid; `limits.cpu_ms` raises it to 300,000 (Free: 10 ms). */
  cpuMsDefault: {
    value: 30_000,
    source: "https://developers.cloudflare.com/workers/platform/limits/#cpu-time",
  },
  /** The most `limits.cpu_ms` may be. */
  cpuMsMax: {
    value: 300_000,
    source: "https://developers.cloudflare.com/workers/platform/limits/#cpu-time",
  },
  /** Wall-clock time of one Durable Object alarm handler before the runtime cancels it. */
  alarmWallMs: {
    value: 15 * 60_000,
    source: "https://developers.cloudflare.com/durable-objects/api/alarms/",
  },
  /** Requests one Durable Object serves per second before it is overloaded (a soft figure; each is billed). */
  durableObjectRequestsPerSecond: {
    value: 1_000,
    source: "https://developers.cloudflare.com/durable-objects/platform/limits/",
  },
  /** One Queue message. */
  queueMessageBytes: {
    value: 128_000,
    source: "https://developers.cloudflare.com/queues/platform/limits/",
  },
  /** Messages in one `sendBatch` (and in one consumer batch). */
  queueBatchMessages: {
    value: 100,
    source: "https://developers.cloudflare.com/queues/platform/limits/",
  },
  /** Bytes of one `sendBatch` in all. */
  queueBatchBytes: {
    value: 256_000,
    source: "https://developers.cloudflare.com/queues/platform/limits/",
  },
  /** One KV value. */
  kvValueBytes: {
    value: 25 * 1024 * 1024,
    source: "https://developers.cloudflare.com/kv/platform/limits/",
  },
  /** One R2 object written with a single PUT. */
  r2SinglePutBytes: {
    value: 5 * 1000 * MB,
    source: "https://developers.cloudflare.com/r2/platform/limits/",
  },
} as const satisfies Record<string, { value: number; source: string }>;

export type PlatformLimit = keyof typeof PLATFORM_LIMITS;

/** The figure alone, for code that only needs the number. */
export function limitOf(name: PlatformLimit): number {
  return PLATFORM_LIMITS[name].value;
}
