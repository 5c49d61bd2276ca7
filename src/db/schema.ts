import { sqliteTable, text, integer, index, uniqueIndex, primaryKey } from "drizzle-orm/sqlite-core";

export const tenants = sqliteTable("tenants", {
  id: text("id").primaryKey(),
  name: text("name").notNull(),
  createdAt: integer("created_at", { mode: "timestamp_ms" }).notNull(),
});

/** API keys are shown once; only their SHA-256 is stored (they are 256-bit random, so no salt or KDF is needed). */
export const apiKeys = sqliteTable(
  "api_keys",
  {
    id: text("id").primaryKey(),
    tenantId: text("tenant_id").notNull().references(() => tenants.id),
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
    tenantId: text("tenant_id").notNull().references(() => tenants.id),
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
