import { sqliteTable, text, integer, index, uniqueIndex, primaryKey } from "drizzle-orm/sqlite-core";
import { LIMITS } from "../limits.ts";

export const tenants = sqliteTable("tenants", {
  id: text("id").primaryKey(),
  name: text("name").notNull(),
  createdAt: integer("created_at", { mode: "timestamp_ms" }).notNull(),
  /**
   * Days an ended run is kept after it finished before the cron deletes it (src/runs/lifetime/housekeeping.ts);
   * null keeps runs for ever. New tenants and those made before the setting existed get the default.
   */
  retentionDays: integer("retention_days").default(LIMITS.retentionDays.default),
});

/** API keys are shown once; only their SHA-256 is stored (they are 256-bit random, so no salt or KDF is needed). */
export const apiKeys = sqliteTable(
  "api_keys",
  {
    id: text("id").primaryKey(),
    tenantId: text("tenant_id")
      .notNull()
      .references(() => tenants.id),
    name: text("name").notNull(),
    prefix: text("prefix").notNull(),
    keyHash: text("key_hash").notNull(),
    createdAt: integer("created_at", { mode: "timestamp_ms" }).notNull(),
    revokedAt: integer("revoked_at", { mode: "timestamp_ms" }),
  },
  (t) => [uniqueIndex("api_keys_key_hash").on(t.keyHash), index("api_keys_tenant").on(t.tenantId, t.id)],
);

/** Custom vrty IDF tables: metadata here, the canonical JSON in `idf_table_chunks` (a D1 value holds at most 2 MB). */
export const idfTables = sqliteTable(
  "idf_tables",
  {
    id: text("id").primaryKey(),
    tenantId: text("tenant_id")
      .notNull()
      .references(() => tenants.id),
    name: text("name").notNull(),
    sha256: text("sha256").notNull(),
    nDocs: integer("n_docs").notNull(),
    nTerms: integer("n_terms").notNull(),
    minDf: integer("min_df").notNull(),
    sizeBytes: integer("size_bytes").notNull(),
    createdAt: integer("created_at", { mode: "timestamp_ms" }).notNull(),
  },
  (t) => [index("idf_tables_tenant").on(t.tenantId, t.id)],
);

export const idfTableChunks = sqliteTable(
  "idf_table_chunks",
  {
    tableId: text("table_id")
      .notNull()
      .references(() => idfTables.id, { onDelete: "cascade" }),
    seq: integer("seq").notNull(),
    data: text("data").notNull(),
  },
  (t) => [primaryKey({ columns: [t.tableId, t.seq] })],
);

export type RunStatus = "queued" | "running" | "succeeded" | "failed" | "canceled";
export type SampleStatus = "succeeded" | "failed";

/** A run's endpoint report as stored; the wire shape is EndpointReportSchema (src/routes/run-schemas.ts). */
export type EndpointReport = {
  adaptive: boolean;
  /** Seconds per point of `series` (1, doubled whenever the series would pass its bound). */
  bucket_s: number;
  /** [seconds since the run's first model call, the window's limit, permits held], each the bucket's largest. */
  series: [number, number, number][];
  max_limit: number;
  max_in_flight: number;
};

/** One evaluation run. `config` never holds secrets: provider keys live encrypted in the run's coordinator only. */
export const runs = sqliteTable(
  "runs",
  {
    id: text("id").primaryKey(),
    tenantId: text("tenant_id")
      .notNull()
      .references(() => tenants.id),
    evaluator: text("evaluator").notNull(),
    status: text("status").$type<RunStatus>().notNull(),
    config: text("config", { mode: "json" }).$type<Record<string, unknown>>().notNull(),
    done: integer("done").notNull().default(0),
    failed: integer("failed").notNull().default(0),
    total: integer("total").notNull(),
    result: text("result", { mode: "json" }).$type<unknown>(),
    error: text("error"),
    webhookUrl: text("webhook_url"),
    createdAt: integer("created_at", { mode: "timestamp_ms" }).notNull(),
    startedAt: integer("started_at", { mode: "timestamp_ms" }),
    finishedAt: integer("finished_at", { mode: "timestamp_ms" }),
    /**
     * The run's model calls so far (its samples' and its aggregate's), written with the progress:
     * HTTP requests (retries included), retries, and answers that were a rate limit (429). Null for
     * runs made before calls were counted.
     */
    callRequests: integer("call_requests"),
    callRetries: integer("call_retries"),
    callRateLimited: integer("call_rate_limited"),
    /**
     * Where the result lives when it is too large for this row (LIMITS.inlineResultBytes): the key of
     * its R2 object (binding RESULTS), `result` then being null. Null for a result kept in the row.
     */
    resultKey: text("result_key"),
    /** UTF-8 bytes of the result's JSON, wherever it lives; null without a result (or before it was counted). */
    resultBytes: integer("result_bytes"),
    /**
     * What the run's model endpoint saw of it (src/runs/coordinator/endpoint-series.ts): the shared
     * limiter's window and the requests in flight over time. Null for runs that called no endpoint
     * (the simulator) and runs made before it was kept.
     */
    endpoint: text("endpoint", { mode: "json" }).$type<EndpointReport>(),
    /**
     * UTF-8 bytes of the run's samples' output and error text in D1, kept by the coordinator as it
     * copies them (so `GET /v1/usage` never scans samples). Null for runs made before it was counted.
     */
    sampleBytes: integer("sample_bytes"),
    /** UTF-8 bytes of `config`, written with the row, so `GET /v1/usage` never reads configs. Null for older runs. */
    configBytes: integer("config_bytes"),
    /**
     * When the run's deletion began (src/runs/lifetime/delete.ts). From then on no read sees the run; the row
     * itself is deleted last, so a deletion cut short is found here and finished by the cron.
     */
    deletedAt: integer("deleted_at", { mode: "timestamp_ms" }),
  },
  (t) => [
    index("runs_tenant").on(t.tenantId, t.id),
    index("runs_tenant_status").on(t.tenantId, t.status, t.id),
    // The sweep of lost starts: queued runs, oldest first, across tenants.
    index("runs_status_created").on(t.status, t.createdAt),
    // The cron's retention: a tenant's runs that ended before its cutoff, oldest first.
    index("runs_tenant_finished").on(t.tenantId, t.finishedAt),
    // The cron's sweep of deletions under way.
    index("runs_deleted").on(t.deletedAt),
  ],
);

/** One row per unit outcome; unique on (run, unit), so a redelivered message can never write twice. */
export const samples = sqliteTable(
  "samples",
  {
    seq: integer("seq").primaryKey({ autoIncrement: true }),
    runId: text("run_id")
      .notNull()
      .references(() => runs.id, { onDelete: "cascade" }),
    unitId: text("unit_id").notNull(),
    status: text("status").$type<SampleStatus>().notNull(),
    attempts: integer("attempts").notNull(),
    /** Exact JSON text: evaluators parse it themselves (chain-determinism needs `1.0` kept apart from `1`). */
    output: text("output"),
    error: text("error"),
    createdAt: integer("created_at", { mode: "timestamp_ms" }).notNull(),
    /**
     * The unit's model calls over all its attempts (those whose lane reported them): HTTP requests
     * (retries included), retries, and answers that were a rate limit (429). Null for samples stored
     * before calls were counted.
     */
    callRequests: integer("call_requests"),
    callRetries: integer("call_retries"),
    callRateLimited: integer("call_rate_limited"),
  },
  (t) => [uniqueIndex("samples_run_unit").on(t.runId, t.unitId), index("samples_run_seq").on(t.runId, t.seq)],
);

/** `Idempotency-Key` of run creation: the same key and body return the same run. */
export const idempotencyKeys = sqliteTable(
  "idempotency_keys",
  {
    tenantId: text("tenant_id").notNull(),
    key: text("key").notNull(),
    requestHash: text("request_hash").notNull(),
    runId: text("run_id").notNull(),
    createdAt: integer("created_at", { mode: "timestamp_ms" }).notNull(),
  },
  // The keys of a run, deleted with it: a key of a deleted run may be used again.
  (t) => [primaryKey({ columns: [t.tenantId, t.key] }), index("idempotency_keys_run").on(t.runId)],
);

/** A tenant's webhook signing secret, encrypted with the Worker secret SECRETS_KEY. */
export const webhookSecrets = sqliteTable("webhook_secrets", {
  tenantId: text("tenant_id")
    .primaryKey()
    .references(() => tenants.id),
  secretEnc: text("secret_enc").notNull(),
  createdAt: integer("created_at", { mode: "timestamp_ms" }).notNull(),
});

/**
 * A tenant's saved provider connections (`/v1/providers`): an OpenAI-compatible endpoint and its key,
 * saved once and named by runs instead of the key. The key is stored only encrypted under SECRETS_KEY,
 * as the webhook secrets are (src/secrets.ts); `apiKeyLast4` is all the API ever shows of it. Names are
 * unique per tenant: runs and paths (`/v1/providers/{name}`) address a connection by its name.
 */
export const providerConnections = sqliteTable(
  "provider_connections",
  {
    id: text("id").primaryKey(),
    tenantId: text("tenant_id")
      .notNull()
      .references(() => tenants.id),
    name: text("name").notNull(),
    baseUrl: text("base_url").notNull(),
    /** base64(iv ‖ AES-256-GCM ciphertext) of the key; null for an endpoint that takes none. */
    apiKeyEnc: text("api_key_enc"),
    /** The key's last four characters, kept only for keys of 16 characters or more; null otherwise. */
    apiKeyLast4: text("api_key_last4"),
    createdAt: integer("created_at", { mode: "timestamp_ms" }).notNull(),
    updatedAt: integer("updated_at", { mode: "timestamp_ms" }).notNull(),
  },
  (t) => [
    uniqueIndex("provider_connections_tenant_name").on(t.tenantId, t.name),
    index("provider_connections_tenant").on(t.tenantId, t.id),
  ],
);

/** Every attempt to deliver a run's final event; `messageId` (the `webhook-id` header) is shared by the attempts of one message. */
export const webhookDeliveries = sqliteTable(
  "webhook_deliveries",
  {
    id: text("id").primaryKey(),
    messageId: text("message_id").notNull(),
    runId: text("run_id")
      .notNull()
      .references(() => runs.id, { onDelete: "cascade" }),
    tenantId: text("tenant_id").notNull(),
    event: text("event").notNull(),
    url: text("url").notNull(),
    attempt: integer("attempt").notNull(),
    status: text("status").$type<"succeeded" | "failed">().notNull(),
    responseStatus: integer("response_status"),
    error: text("error"),
    durationMs: integer("duration_ms").notNull(),
    createdAt: integer("created_at", { mode: "timestamp_ms" }).notNull(),
  },
  (t) => [index("webhook_deliveries_run").on(t.runId, t.id)],
);

/** User-uploaded suites (chain-determinism: queries + tools + stub responses), stored as validated JSON. */
export const suites = sqliteTable(
  "suites",
  {
    id: text("id").primaryKey(),
    tenantId: text("tenant_id")
      .notNull()
      .references(() => tenants.id),
    evaluator: text("evaluator").notNull(),
    name: text("name").notNull(),
    sha256: text("sha256").notNull(),
    data: text("data", { mode: "json" }).$type<unknown>().notNull(),
    createdAt: integer("created_at", { mode: "timestamp_ms" }).notNull(),
  },
  (t) => [index("suites_tenant").on(t.tenantId, t.evaluator, t.id)],
);

/** Unit results reusable across a tenant's runs (rpl samples by cache key): the same request is never paid for twice. */
export const sampleCache = sqliteTable(
  "sample_cache",
  {
    tenantId: text("tenant_id").notNull(),
    cacheKey: text("cache_key").notNull(),
    value: text("value").notNull(),
    createdAt: integer("created_at", { mode: "timestamp_ms" }).notNull(),
  },
  (t) => [primaryKey({ columns: [t.tenantId, t.cacheKey] })],
);

/**
 * reasoning-quality datasets uploaded by a tenant. The items live in `dataset_chunks` because a D1 row
 * is at most 2 MB and an upload may hold 10,000 items; the dataset and its chunks are written in one
 * batch (one transaction), so a failed upload stores nothing.
 */
export const datasets = sqliteTable(
  "datasets",
  {
    id: text("id").primaryKey(),
    tenantId: text("tenant_id")
      .notNull()
      .references(() => tenants.id),
    name: text("name").notNull(),
    format: text("format").notNull(),
    nItems: integer("n_items").notNull(),
    /** The dataset tags present (items' `dataset`), for the per-dataset breakdown. */
    tags: text("tags", { mode: "json" }).$type<string[]>().notNull(),
    sha256: text("sha256").notNull(),
    createdAt: integer("created_at", { mode: "timestamp_ms" }).notNull(),
  },
  (t) => [index("datasets_tenant").on(t.tenantId, t.id)],
);

export const datasetChunks = sqliteTable(
  "dataset_chunks",
  {
    datasetId: text("dataset_id")
      .notNull()
      .references(() => datasets.id, { onDelete: "cascade" }),
    chunk: integer("chunk").notNull(),
    items: text("items").notNull(),
  },
  (t) => [primaryKey({ columns: [t.datasetId, t.chunk] })],
);

/**
 * Dashboard sessions (src/db/sessions.ts): the SHA-256 of the cookie's random token, never the token;
 * a session is bound to the key it was opened with, so revoking the key ends it.
 */
export const dashboardSessions = sqliteTable(
  "dashboard_sessions",
  {
    id: text("id").primaryKey(),
    tokenHash: text("token_hash").notNull(),
    tenantId: text("tenant_id")
      .notNull()
      .references(() => tenants.id),
    keyId: text("key_id")
      .notNull()
      .references(() => apiKeys.id),
    csrfToken: text("csrf_token").notNull(),
    createdAt: integer("created_at", { mode: "timestamp_ms" }).notNull(),
    expiresAt: integer("expires_at", { mode: "timestamp_ms" }).notNull(),
  },
  (t) => [
    uniqueIndex("dashboard_sessions_token_hash").on(t.tokenHash),
    index("dashboard_sessions_key").on(t.keyId),
    // A tenant's sessions newest first (the bound per tenant), and the expired ones (the cron).
    index("dashboard_sessions_tenant").on(t.tenantId, t.id),
    index("dashboard_sessions_expires").on(t.expiresAt),
  ],
);

/** What a tenant's prompt is for: an rpl bank (`prompt_version`) or a judge critic's prompt (`prompt`). */
export type PromptKind = "rpl" | "judge";
/** The texts of an rpl bank, Heretix's prompt YAML layout plus the JSON-format instruction (`schema`). */
export type RplPromptContent = { system: string; user_template: string; schema: string; paraphrases: string[] };
/** The texts of a critic prompt, cross-judge's prompt YAML layout. */
export type JudgePromptContent = { system_prompt: string; user_prompt_template: string };

/**
 * A tenant's versioned prompts (`/v1/prompts`), named by runs as `name@version`. A version is immutable:
 * the unique index lets only one of two concurrent pushes of a name@version store a row, and nothing
 * updates or deletes one, so a run that names it reads the same texts whenever it is created. `content`
 * holds the texts as the API shows them (src/db/prompts.ts); `sha256` identifies what the model is sent.
 */
export const prompts = sqliteTable(
  "prompts",
  {
    id: text("id").primaryKey(),
    tenantId: text("tenant_id")
      .notNull()
      .references(() => tenants.id),
    name: text("name").notNull(),
    version: text("version").notNull(),
    kind: text("kind").$type<PromptKind>().notNull(),
    sha256: text("sha256").notNull(),
    description: text("description"),
    content: text("content", { mode: "json" }).$type<RplPromptContent | JudgePromptContent>().notNull(),
    createdAt: integer("created_at", { mode: "timestamp_ms" }).notNull(),
  },
  (t) => [
    uniqueIndex("prompts_tenant_name_version").on(t.tenantId, t.name, t.version),
    index("prompts_tenant").on(t.tenantId, t.id),
    index("prompts_tenant_kind").on(t.tenantId, t.kind, t.id),
    index("prompts_tenant_name").on(t.tenantId, t.name, t.id),
  ],
);
