// The coordinator's key-value table: the run's settings (with its final progress once it ends), its
// config and encrypted secret, and the small marks the other modules keep (lifecycle, flush mark,
// finish tries). The units and outbox tables belong to units.ts and outbox.ts.
import type { RunStatus } from "../../db/schema.ts";
import { noCalls } from "../model-calls.ts";
import type { Progress, RunSettings } from "./types.ts";

/**
 * The stored "meta" record. `status`: only in objects stored before the lifecycle had a key of its
 * own (read once, by lifecycle.ts, to migrate them); `calls` is absent in those stored before calls
 * were counted. The progress is written at the start and the end; in between the outbox counts it.
 */
export type StoredMeta = RunSettings & Omit<Progress, "calls"> & { calls?: Progress["calls"]; status?: RunStatus };

/** Adds the columns a table lacks (see the callers: an object made by an earlier version keeps its tables). */
export function addColumns(sql: SqlStorage, table: string, columns: Record<string, string>): void {
  const have = new Set(sql.exec<{ name: string }>(`PRAGMA table_info(${table})`).toArray().map((c) => c.name));
  for (const [name, type] of Object.entries(columns)) {
    if (!have.has(name)) sql.exec(`ALTER TABLE ${table} ADD COLUMN ${name} ${type}`);
  }
}

export class Store {
  private metaCache: StoredMeta | undefined;

  readonly sql: SqlStorage;

  constructor(sql: SqlStorage) {
    this.sql = sql;
    sql.exec(`CREATE TABLE IF NOT EXISTS kv (k TEXT PRIMARY KEY, v TEXT NOT NULL)`);
  }

  get<T>(k: string): T | undefined {
    const row = this.sql.exec<{ v: string }>("SELECT v FROM kv WHERE k = ?", k).toArray()[0];
    return row ? (JSON.parse(row.v) as T) : undefined;
  }

  put(k: string, v: unknown): void {
    this.sql.exec("INSERT OR REPLACE INTO kv (k, v) VALUES (?, ?)", k, JSON.stringify(v));
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
    this.put("meta", { runId, tenantId, evaluator, concurrency, leaseMs, maxAttempts, total, ...progress } satisfies StoredMeta);
  }

  /** Read each time, not kept: a config may be large, and only a lane's first unit and the finish need it. */
  config(): unknown {
    return this.get("config");
  }

  /** The run's provider secrets, encrypted; null once the run ended (or when it has none). */
  secretEnc(): string | null {
    return this.get<string | null>("secret") ?? null;
  }
}
