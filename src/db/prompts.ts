// A tenant's versioned prompts (`/v1/prompts`). Every query is scoped to the tenant. A version is
// addressed by (name, version), unique per tenant; rows are only ever inserted, never updated or
// deleted, which is what makes `name@version` in a run mean the same texts forever.
import { and, count, eq } from "drizzle-orm";
import type { Db } from "./client.ts";
import { prompts, type JudgePromptContent, type PromptKind, type RplPromptContent } from "./schema.ts";
import { listPage } from "./page.ts";

export type PromptRow = typeof prompts.$inferSelect;
export type { JudgePromptContent, PromptKind, RplPromptContent };

/** Stores a new version; false (and nothing stored) when the tenant already has this name@version. */
export async function insertPrompt(db: Db, row: PromptRow): Promise<boolean> {
  const res = await db
    .insert(prompts)
    .values(row)
    .onConflictDoNothing({ target: [prompts.tenantId, prompts.name, prompts.version] })
    .run();
  return (res.meta.changes ?? 0) > 0;
}

/** The tenant's prompt `name@version`, or undefined. */
export async function getPrompt(
  db: Db,
  tenantId: string,
  name: string,
  version: string,
): Promise<PromptRow | undefined> {
  return db
    .select()
    .from(prompts)
    .where(and(eq(prompts.tenantId, tenantId), eq(prompts.name, name), eq(prompts.version, version)))
    .get();
}

/** Any one version of the tenant's prompt `name` (all versions of a name share its kind), or undefined. */
export async function anyVersionOf(db: Db, tenantId: string, name: string): Promise<PromptRow | undefined> {
  return db
    .select()
    .from(prompts)
    .where(and(eq(prompts.tenantId, tenantId), eq(prompts.name, name)))
    .limit(1)
    .get();
}

export async function countPrompts(db: Db, tenantId: string): Promise<number> {
  const row = await db.select({ n: count() }).from(prompts).where(eq(prompts.tenantId, tenantId)).get();
  return row?.n ?? 0;
}

/** The tenant's prompt versions, newest first, of one kind or one name if asked. */
export async function listPrompts(
  db: Db,
  tenantId: string,
  opts: { limit: number; after?: string; kind?: PromptKind; name?: string },
) {
  const where = and(
    eq(prompts.tenantId, tenantId),
    opts.kind ? eq(prompts.kind, opts.kind) : undefined,
    opts.name !== undefined ? eq(prompts.name, opts.name) : undefined,
  );
  return listPage(db, prompts, where, opts);
}

/** A version as lists show it: what it is and its hash, without its texts. */
export function promptSummaryToWire(r: PromptRow) {
  return {
    id: r.id,
    name: r.name,
    version: r.version,
    ref: `${r.name}@${r.version}`,
    kind: r.kind,
    sha256: r.sha256,
    description: r.description,
    created_at: r.createdAt.toISOString(),
  };
}

/** A version with its texts (the kind's own fields, as pushed, defaults filled in). */
export function promptToWire(r: PromptRow) {
  const summary = promptSummaryToWire(r);
  // A row's kind says which content it holds (the route stores them together).
  return r.kind === "rpl"
    ? { ...summary, kind: "rpl" as const, ...(r.content as RplPromptContent) }
    : { ...summary, kind: "judge" as const, ...(r.content as JudgePromptContent) };
}
