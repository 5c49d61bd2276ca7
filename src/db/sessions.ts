// Dashboard sessions: the browser signs in once with an API key and then holds only a random session
// token in an HttpOnly cookie. Only the token's SHA-256 is stored; a session dies with its key (revoked),
// at its expiry, or when the user signs out.
import { and, eq, gt, isNull, lt } from "drizzle-orm";
import type { Db } from "./client.ts";
import { apiKeys, dashboardSessions, tenants } from "./schema.ts";
import { newId } from "../ids.ts";
import { randomToken, sha256Hex } from "../crypto.ts";

export type DashboardSession = typeof dashboardSessions.$inferSelect;

/** How long a sign-in lasts. */
export const SESSION_HOURS = 12;

export async function createSession(db: Db, key: { id: string; tenantId: string }, now = new Date()): Promise<{ session: DashboardSession; token: string }> {
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
  // Expired sessions of the same key go when a new one is made: the table stays small without a sweep.
  await db.batch([
    db.delete(dashboardSessions).where(and(eq(dashboardSessions.keyId, key.id), lt(dashboardSessions.expiresAt, now))),
    db.insert(dashboardSessions).values(session),
  ]);
  return { session, token };
}

/** The live session of a token, with its tenant's name: not expired, and its key not revoked. */
export async function findSession(db: Db, token: string, now = new Date()): Promise<(DashboardSession & { tenantName: string }) | undefined> {
  const row = await db
    .select({ session: dashboardSessions, tenantName: tenants.name })
    .from(dashboardSessions)
    .innerJoin(apiKeys, eq(apiKeys.id, dashboardSessions.keyId))
    .innerJoin(tenants, eq(tenants.id, dashboardSessions.tenantId))
    .where(and(eq(dashboardSessions.tokenHash, await sha256Hex(token)), gt(dashboardSessions.expiresAt, now), isNull(apiKeys.revokedAt)))
    .get();
  return row ? { ...row.session, tenantName: row.tenantName } : undefined;
}

export async function deleteSession(db: Db, id: string): Promise<void> {
  await db.delete(dashboardSessions).where(eq(dashboardSessions.id, id));
}
