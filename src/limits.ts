/**
 * Every limit of the API in one place; docs/limits.md's table mirrors this file.
 * Going past one is a 4xx that names the limit, never a timeout.
 */
const MiB = 1024 * 1024;

export const LIMITS = {
  /** Request body size for ordinary routes. */
  bodyBytes: 1 * MiB,
  /** Request body size for routes that take many texts at once (batch scoring, IDF table uploads). */
  bulkBodyBytes: 16 * MiB,
  /**
   * Levels of objects and arrays in a JSON request body, the body itself being level 1. Checked before
   * anything recursive reads the body, so no input can overflow a stack; real tool schemas and
   * documents nest a dozen levels or so, and this leaves room for several times that.
   */
  jsonDepth: 64,
  /** Characters in one prompt or response; vrty scores only the first 2,048 tokens anyway. */
  textChars: 200_000,
  /** Pairs in one `POST /v1/vrty/score/batch`. */
  batchPairs: 1_000,
  /** Documents in one IDF table upload. */
  idfDocuments: 10_000,
  /** Terms kept in one custom IDF table. */
  idfTerms: 500_000,
  /** Custom IDF tables per tenant. */
  idfTablesPerTenant: 50,
  /** Saved provider connections per tenant (`/v1/providers`). */
  providerConnectionsPerTenant: 100,
  /**
   * Units (replays, samples, critic calls) in one run. Room for the reasoning-quality paper's experiment
   * in one run (975 items × 7 models × (3 runs + 3 perturbations) = 40,950 calls); the coordinator
   * aggregates from a cursor over its outbox, so a run's size costs it storage, not memory.
   */
  unitsPerRun: 60_000,
  /** Items in one judge run (the result holds every item's verdicts; past `inlineResultBytes` it lives in R2). */
  judgeItems: 10_000,
  /**
   * UTF-8 bytes of a result kept in its runs row (a D1 row is at most 2 MB); a larger one is stored
   * in R2 and `GET /v1/runs/{id}` links to it. A deployment may lower it with the RESULT_INLINE_BYTES
   * variable (the tests do, to reach the R2 path with small runs).
   */
  inlineResultBytes: 1 * MiB,
  /** Critics in one judge panel. */
  judgeCritics: 10,
  /** Items in one uploaded reasoning-quality dataset. */
  datasetItems: 10_000,
  /**
   * UTF-8 bytes of the JSON a run works from (reasoning-quality's items, a judge run's items, a
   * chain-determinism suite). The coordinator keeps it in pieces (no stored value is over 2 MB) but
   * receives it in one call at the start (32 MiB at most) and holds it, parsed, for the run in an
   * isolate of 128 MB; lanes get only what a unit needs. 10,000 reasoning-quality items take about 3.3 MB.
   */
  runConfigBytes: 16 * MiB,
  /** Units of one run in flight at once. */
  concurrency: 100,
  /** UTF-8 bytes of one stored sample's output and error (a D1 row is at most 2,000,000 bytes); past it, a failed sample says so. */
  sampleBytes: 1_900_000,
  /** Characters of an `Idempotency-Key` header, the same on every route that creates runs (Stripe's maximum). */
  idempotencyKeyChars: 255,
  /**
   * Days an ended run is kept when its tenant has not chosen (`PUT /v1/settings`): D1 holds 10 GB for
   * every tenant, and the largest runs take 0.1–1.2 GB each, so data must expire by default; a month
   * keeps the baselines of a release cycle to compare against. A tenant may keep runs for ever (null).
   */
  retentionDays: { default: 30, max: 3_650 },
  /** Page size for list endpoints. */
  pageSize: { default: 20, max: 100 },
} as const;
