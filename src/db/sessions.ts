// Dashboard sessions: the browser signs in once with an API key and then holds only a random session
// token in an HttpOnly cookie. Only the token's SHA-256 is stored; a session dies with its key (revoked),
// at its expiry, when the user signs out, or when its tenant opens too many (the oldest end).
import { and, desc, eq, gt, inArray, isNull, lt, notInArray, or } from "drizzle-orm";
import type { Db } from "./client.ts";
import { apiKeys, dashboardSessions, tenants } from "./schema.ts";
import { newId } from "../ids.ts";
import { randomToken, sha256Hex } from "../crypto.ts";
import { SIGN_IN_LIMITS } from "../auth/sign-in-limits.ts";

export type DashboardSession = typeof dashboardSessions.$inferSelect;

/** How long a sign-in lasts. */
export const SESSION_HOURS = 12;

export async function createSession(
  db: Db,
  key: { id: string; tenantId: string },
  now = new Date(),
): Promise<{ session: DashboardSession; token: string }> {
  const token = randomToken(32);
  const session: DashboardSession = {
    id: newId("ses"),
    tokenHash: await sha256Hex(token),
    tenantId: key.tenantId,
    keyId: key.id,
    csrfToken: randomToken(24),
    createdAt: now,
    expiresAt: new Date(now.getTime() + SESSION_HOURS * 3600_000),
  };
  // In one batch (one transaction): the new session, then the tenant's expired ones and all but its newest
  // `sessionsPerTenant` go. Ids begin with their creation time, so the newest are the greatest ids; two
  // sign-ins at once each trim after their own insert, and the bound holds after both.
  const newest = db
    .select({ id: dashboardSessions.id })
    .from(dashboardSessions)
    .where(eq(dashboardSessions.tenantId, key.tenantId))
    .orderBy(desc(dashboardSessions.id))
    .limit(SIGN_IN_LIMITS.sessionsPerTenant);
  await db.batch([
    db.insert(dashboardSessions).values(session),
    db
      .delete(dashboardSessions)
      .where(
        and(
          eq(dashboardSessions.tenantId, key.tenantId),
          or(lt(dashboardSessions.expiresAt, now), notInArray(dashboardSessions.id, newest)),
        ),
      ),
  ]);
  return { session, token };
}

/** The live session of a token, with its tenant's name: not expired, and its key not revoked. */
export async function findSession(
  db: Db,
  token: string,
  now = new Date(),
): Promise<(DashboardSession & { tenantName: string }) | undefined> {
  const row = await db
    .select({ session: dashboardSessions, tenantName: tenants.name })
    .from(dashboardSessions)
    .innerJoin(apiKeys, eq(apiKeys.id, dashboardSessions.keyId))
    .innerJoin(tenants, eq(tenants.id, dashboardSessions.tenantId))
    .where(
      and(
        eq(dashboardSessions.tokenHash, await sha256Hex(token)),
        gt(dashboardSessions.expiresAt, now),
        isNull(apiKeys.revokedAt),
      ),
    )
    .get();
  return row ? { ...row.session, tenantName: row.tenantName } : undefined;
}

export async function deleteSession(db: Db, id: string): Promise<void> {
  await db.delete(dashboardSessions).where(eq(dashboardSessions.id, id));
}

/**
 * Deletes sessions expired before `now`, at most `perStatement` rows a statement and `statements`
 * statements (the cron's step, runs/lifetime/housekeeping.ts): a backlog drains over ticks within the D1 budget
 * of one invocation. Returns how many went.
 */
export async function deleteExpiredSessions(
  db: Db,
  now: Date,
  {
    perStatement = SIGN_IN_LIMITS.expiredSessionsPerStatement,
    statements = SIGN_IN_LIMITS.expiredSessionStatementsPerTick,
  }: { perStatement?: number; statements?: number } = {},
): Promise<number> {
  let deleted = 0;
  for (let i = 0; i < statements; i++) {
    const expired = db
      .select({ id: dashboardSessions.id })
      .from(dashboardSessions)
      .where(lt(dashboardSessions.expiresAt, now))
      .limit(perStatement);
    const result = await db.delete(dashboardSessions).where(inArray(dashboardSessions.id, expired)).run();
    const changes = result.meta.changes ?? 0;
    deleted += changes;
    if (changes < perStatement) break;
  }
  return deleted;
}
