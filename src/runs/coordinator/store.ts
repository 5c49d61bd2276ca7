// The coordinator's key-value table: the run's settings (with its final progress once it ends), its
// encrypted secret, and the small marks the other modules keep (lifecycle, flush mark, finish
// tries); and the run's config, in pieces. The units and outbox tables belong to units.ts and outbox.ts.
import type { RunStatus } from "../../db/schema.ts";
import { guardStoredText } from "../../platform/storage-guard.ts";
import { chunksOf } from "../../platform/text-chunks.ts";
import { noCalls } from "../lanes/model-calls.ts";
import type { Progress, RunSettings } from "./types.ts";

/**
 * The stored "meta" record. `status`: only in objects stored before the lifecycle had a key of its
 * own (read once, by lifecycle.ts, to migrate them); `calls` is absent in those stored before calls
 * were counted. The progress is written at the start and the end; in between the outbox counts it.
 */
export type StoredMeta = RunSettings & Omit<Progress, "calls"> & { calls?: Progress["calls"]; status?: RunStatus };

/** Adds the columns a table lacks (see the callers: an object made by an earlier version keeps its tables). */
export function addColumns(sql: SqlStorage, table: string, columns: Record<string, string>): void {
  const have = new Set(
    sql
      .exec<{ name: string }>(`PRAGMA table_info(${table})`)
      .toArray()
      .map((c) => c.name),
  );
  for (const [name, type] of Object.entries(columns)) {
    if (!have.has(name)) sql.exec(`ALTER TABLE ${table} ADD COLUMN ${name} ${type}`);
  }
}

export class Store {
  private metaCache: StoredMeta | undefined;
  private configCache: unknown;

  readonly sql: SqlStorage;

  constructor(sql: SqlStorage) {
    this.sql = sql;
    sql.exec(`CREATE TABLE IF NOT EXISTS kv (k TEXT PRIMARY KEY, v TEXT NOT NULL)`);
    // A config may be far larger than one stored value may be (2 MB): its JSON text is kept in
    // pieces, each a row, and joined when read (putConfig, config).
    sql.exec(`CREATE TABLE IF NOT EXISTS config_parts (n INTEGER PRIMARY KEY, text TEXT NOT NULL)`);
  }

  get<T>(k: string): T | undefined {
    const row = this.sql.exec<{ v: string }>("SELECT v FROM kv WHERE k = ?", k).toArray()[0];
    return row ? (JSON.parse(row.v) as T) : undefined;
  }

  /** Stores one value; one over what a stored value may be is refused, naming its key (nothing is written). */
  put(k: string, v: unknown): void {
    const text = JSON.stringify(v);
    guardStoredText("durableObjectValueBytes", `the run's stored '${k}'`, k + text);
    this.sql.exec("INSERT OR REPLACE INTO kv (k, v) VALUES (?, ?)", k, text);
    if (k === "meta") this.metaCache = v as StoredMeta;
  }

  /** The stored meta record, kept in memory: every report reads it. */
  meta(): StoredMeta | undefined {
    return (this.metaCache ??= this.get<StoredMeta>("meta"));
  }

  settings(): RunSettings | undefined {
    return this.meta();
  }

  /** The progress the meta record holds: the start's zeros, or the final counts once the run ended. */
  storedProgress(): Progress | undefined {
    const meta = this.meta();
    return meta && { done: meta.done, failed: meta.failed, calls: meta.calls ?? noCalls() };
  }

  writeMeta(settings: RunSettings, progress: Progress): void {
    // Only the settings and the progress: a migrated object's old `status` is not written back.
    const { runId, tenantId, evaluator, concurrency, leaseMs, maxAttempts, total } = settings;
    this.put("meta", {
      runId,
      tenantId,
      evaluator,
      concurrency,
      leaseMs,
      maxAttempts,
      total,
      ...progress,
    } satisfies StoredMeta);
  }

  /** Stores the run's config, in pieces of at most CHUNK_UNITS (a reasoning-quality run's items may be megabytes). */
  putConfig(config: unknown): void {
    this.sql.exec("DELETE FROM config_parts");
    chunksOf(JSON.stringify(config)).forEach((text, n) =>
      this.sql.exec("INSERT INTO config_parts (n, text) VALUES (?, ?)", n, text),
    );
    this.configCache = undefined;
  }

  /**
   * The run's config, read once per instance and kept: where lanes get a part per unit
   * (EvaluatorPlugin.unitConfig) every report needs it, and it is at most LIMITS.runConfigBytes of JSON.
   * Not a copy: callers only read it. An object started before configs were kept in pieces has its
   * config in the kv table.
   */
  config(): unknown {
    if (this.configCache !== undefined) return this.configCache;
    const parts = this.sql.exec<{ text: string }>("SELECT text FROM config_parts ORDER BY n").toArray();
    return (this.configCache = parts.length ? JSON.parse(parts.map((p) => p.text).join("")) : this.get("config"));
  }

  /** The run's provider secrets, encrypted; null once the run ended (or when it has none). */
  secretEnc(): string | null {
    return this.get<string | null>("secret") ?? null;
  }
}
