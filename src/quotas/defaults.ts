/**
 * Every per-tenant quota, its default and why. An operator changes a tenant's quota with
 * `PUT /v1/admin/tenants/{id}/quotas` (null goes back to the default); docs/quotas.md and
 * docs/limits.md list them. The defaults are generous: they stop one tenant (or a leaked key) from
 * spending the service's money and time, not ordinary use.
 */
export const QUOTA_NAMES = [
  "runs_per_minute",
  "concurrent_runs",
  "units_per_day",
  "stored_bytes",
  "heavy_reads_per_minute",
] as const;
export type QuotaName = (typeof QUOTA_NAMES)[number];
export type Quotas = Record<QuotaName, number>;

const GiB = 1024 * 1024 * 1024;

export const QUOTA_DEFAULTS: Quotas = {
  /**
   * Runs created in any 60 s. Two a second, sustained: far more than a person or a CI job makes (a CI
   * job makes a handful per commit), while the 200 runs in 8 s issue 30 measured are cut to 120 a minute.
   */
  runs_per_minute: 120,
  /**
   * Runs not ended (queued or running) at once. Each holds up to LIMITS.concurrency lanes; 50 runs at
   * full width is 5,000 units in flight, more than any single endpoint key serves.
   */
  concurrent_runs: 50,
  /**
   * Units (model calls, replays, samples) of the runs created in one UTC day, counted at creation.
   * Room for 48 of the largest experiment the README cites (40,950 units) a day; at even a cent per
   * call, a day's quota is a bill a tenant would notice long before it is reached.
   */
  units_per_day: 2_000_000,
  /**
   * What `GET /v1/usage` counts (D1 text and R2 results). One fifth of a D1 database (10 GB for every
   * tenant), and room for the largest runs issue 23 measured (0.1–1.2 GB each).
   */
  stored_bytes: 2 * GiB,
  /**
   * Reads of a whole run (comparisons, exports, reports; docs/quotas.md lists them) in any 60 s. One
   * a second: a dashboard comparing runs or a script exporting a run per release stay far below it,
   * while five heavy comparisons at once held the Worker for 25 s in issue 30's attack.
   */
  heavy_reads_per_minute: 60,
};

/** What each quota counts, in a line: the API's schemas (admin quotas, usage) describe each with it. */
export const QUOTA_DESCRIPTIONS: Record<QuotaName, string> = {
  runs_per_minute: "Runs created in any 60 s",
  concurrent_runs: "Runs not ended (queued or running) at once",
  units_per_day: "Units of the runs created in one UTC day, counted at creation",
  stored_bytes: "Bytes stored, as GET /v1/usage counts them (`bytes.total`); creating a run is refused at or over it",
  heavy_reads_per_minute: "Reads of a whole run (comparisons, NDJSON sample exports, reports) in any 60 s",
};

/**
 * The largest value an operator may set. A quota counted in a window keeps one timestamp per event and
 * the concurrent count one run id per run, all in one stored value of the tenant's object (at most
 * 2 MB in production): these bounds keep it under a megabyte.
 */
export const QUOTA_MAX: Quotas = {
  runs_per_minute: 10_000,
  concurrent_runs: 10_000,
  units_per_day: 1_000_000_000,
  stored_bytes: 1024 * GiB,
  heavy_reads_per_minute: 10_000,
};

/** A tenant's quotas: its overrides over the defaults. */
export function effectiveQuotas(overrides: Partial<Quotas>): Quotas {
  return { ...QUOTA_DEFAULTS, ...overrides };
}
