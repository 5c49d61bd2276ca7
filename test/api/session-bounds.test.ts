// Issue 30 ("Sign-in and keys"): 500 sign-ins left 500 live sessions. A tenant now has at most
// `sessionsPerTenant` (signing in past it ends the oldest), and the cron deletes expired sessions in
// bounded statements.
import { describe, expect, it } from "vitest";
import { env } from "cloudflare:workers";
import { openDb } from "../../src/db/client.ts";
import { createSession, deleteExpiredSessions, SESSION_HOURS } from "../../src/db/sessions.ts";
import { SIGN_IN_LIMITS } from "../../src/auth/sign-in-limits.ts";
import { runCron } from "../support/cron.ts";
import { call, newTenant, problem } from "./helpers.ts";

const { sessionsPerTenant } = SIGN_IN_LIMITS;
const HOUR = 3_600_000;

async function signIn(key: string): Promise<string> {
  const res = await call("/v1/session", {
    method: "POST",
    headers: { "Content-Type": "application/json" },
    body: JSON.stringify({ api_key: key }),
  });
  expect(res.status).toBe(201);
  return `assay_session=${/assay_session=([^;]+)/.exec(res.headers.get("set-cookie")!)![1]}`;
}

const sessionOf = (cookie: string) => call("/v1/session", { headers: { Cookie: cookie } });

async function sessionsOf(tenantId: string): Promise<number> {
  return (await env.DB.prepare("SELECT count(*) AS n FROM dashboard_sessions WHERE tenant_id = ?")
    .bind(tenantId)
    .first<{ n: number }>())!.n;
}

describe("sessions per tenant", () => {
  it(`keeps the newest ${sessionsPerTenant}: one more sign-in ends the oldest, whose cookie then gets 401`, async () => {
    const { key, tenantId } = await newTenant();
    const other = await newTenant();
    const otherCookie = await signIn(other.key);
    const cookies: string[] = [];
    for (let i = 0; i < sessionsPerTenant; i++) cookies.push(await signIn(key));
    expect(await sessionsOf(tenantId)).toBe(sessionsPerTenant);
    expect((await sessionOf(cookies[0]!)).status).toBe(200);

    cookies.push(await signIn(key));
    expect(await sessionsOf(tenantId)).toBe(sessionsPerTenant);
    await problem(await sessionOf(cookies[0]!), 401);
    expect((await sessionOf(cookies[1]!)).status).toBe(200);
    expect((await sessionOf(cookies.at(-1)!)).status).toBe(200);
    // Another tenant's sessions do not count against this one's bound.
    expect((await sessionOf(otherCookie)).status).toBe(200);
  });
});

describe("expired sessions", () => {
  it("are deleted by the cron; live ones stay", async () => {
    const db = openDb(env.DB);
    const { tenantId, keyId } = await newTenant();
    const key = { id: keyId, tenantId };
    const longAgo = new Date(Date.now() - (SESSION_HOURS + 1) * HOUR);
    // The live one first: a sign-in deletes its tenant's expired sessions itself, and here the cron must.
    const live = await createSession(db, key);
    await createSession(db, key, longAgo);
    await createSession(db, key, longAgo);
    expect(await sessionsOf(tenantId)).toBe(3);
    await runCron();
    const left = await env.DB.prepare("SELECT id FROM dashboard_sessions WHERE tenant_id = ?")
      .bind(tenantId)
      .all<{ id: string }>();
    expect(left.results.map((r) => r.id)).toEqual([live.session.id]);
  });

  it("go at most `perStatement` rows a statement and `statements` statements a call", async () => {
    const db = openDb(env.DB);
    await deleteExpiredSessions(db, new Date()); // whatever other tests left expired
    const { tenantId, keyId } = await newTenant();
    const longAgo = new Date(Date.now() - (SESSION_HOURS + 1) * HOUR);
    // Seven expired sessions, straight into D1 (signing in past the bound would trim them).
    for (let i = 0; i < 7; i++) {
      await env.DB.prepare(
        "INSERT INTO dashboard_sessions (id, token_hash, tenant_id, key_id, csrf_token, created_at, expires_at) VALUES (?, ?, ?, ?, 'x', ?, ?)",
      )
        .bind(
          `ses_expired_${tenantId}_${i}`,
          `hash-${tenantId}-${i}`,
          tenantId,
          keyId,
          longAgo.getTime(),
          longAgo.getTime() + SESSION_HOURS * HOUR,
        )
        .run();
    }
    // 2 statements of 3 rows: 6 go, 1 is left for the next tick, which takes it (a short statement ends the call).
    expect(await deleteExpiredSessions(db, new Date(), { perStatement: 3, statements: 2 })).toBe(6);
    expect(await sessionsOf(tenantId)).toBe(1);
    expect(await deleteExpiredSessions(db, new Date(), { perStatement: 3, statements: 2 })).toBe(1);
    expect(await sessionsOf(tenantId)).toBe(0);
  });
});
