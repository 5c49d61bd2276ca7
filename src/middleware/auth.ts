import type { Context, MiddlewareHandler } from "hono";
import { getCookie } from "hono/cookie";
import { ApiError } from "../errors.ts";
import { secretsEqual, sha256Hex } from "../crypto.ts";
import { knownKey, lookUpKey } from "../auth/verified-keys.ts";
import { findSession } from "../db/sessions.ts";
import { authThrottle, subjectsOf, type Subject } from "../auth/throttle.ts";
import type { AppEnv } from "../routes/router.ts";
import type { OpenedWith } from "../runs/events/stream-credential.ts";

function bearer(header: string | undefined): string | undefined {
  const m = header?.match(/^Bearer\s+(\S+)\s*$/i);
  return m?.[1];
}

/** The dashboard's session cookie (routes/session.ts), sent only to the API's own paths. */
export const SESSION_COOKIE = "assay_session";
export const SESSION_COOKIE_PATH = "/v1";

/** The client's address as Cloudflare's edge (or wrangler dev) gives it; absent for in-process calls. */
export function clientAddress(c: Context<AppEnv>): string | undefined {
  return c.req.header("cf-connecting-ip") || undefined;
}

/**
 * How a presented credential is checked: `known`, what this isolate can answer from memory (a verified
 * key, or a look-up of it already under way to share); else `lookUp`, which asks a store.
 */
export type CredentialCheck<T> = {
  known?: () => T | Promise<T | undefined> | undefined;
  lookUp: () => Promise<T | undefined>;
};

/**
 * Checks a presented credential under the failure throttle (auth/throttle.ts): 429 before anything is
 * checked when the address or the key's prefix is throttled; a `lookUp` reserves a slot first, so a burst
 * of wrong keys sent at once reaches the stores at most the bound's number of times (429 for the rest),
 * while a right key known here is not counted at all. A check that finds nothing is counted (and may turn
 * into a 429 when the location's count is over), then answered with `unauthenticated`.
 */
export async function throttledCheck<T>(
  c: Context<AppEnv>,
  subjects: Subject[],
  check: CredentialCheck<T>,
  unauthenticated: string,
): Promise<T> {
  authThrottle.assertOpen(subjects);
  const known = check.known?.();
  let found: T | undefined;
  if (known !== undefined) found = await known;
  else {
    const release = authThrottle.reserve(subjects);
    try {
      found = await check.lookUp();
    } finally {
      release();
    }
  }
  if (found !== undefined) return found;
  await authThrottle.failed(subjects, c.env);
  throw ApiError.unauthenticated(unauthenticated);
}

const SAFE_METHODS = new Set(["GET", "HEAD", "OPTIONS"]);

/** True unless the request says it comes from another origin (browsers send `Origin` on POST, PUT, DELETE). */
export function sameOriginOrAbsent(c: Context<AppEnv>): boolean {
  const origin = c.req.header("origin");
  return origin === undefined || origin === new URL(c.req.url).origin;
}

/**
 * Requires `Authorization: Bearer <api key>` of an active key, or a live dashboard session cookie, and
 * sets the caller's tenant. A revoked key may still pass for a bounded while (auth/key-cache-limits.ts);
 * a session is looked up in D1 every time, so signing out or revoking its key ends it at once. With the cookie, a request that changes something must come from the
 * API's own origin and carry the session's `X-CSRF-Token`: a cookie alone never changes anything.
 * Wrong keys are throttled per address and key prefix (auth/throttle.ts); a session token is 256 random
 * bits that no key check can reveal, so a wrong cookie is not counted.
 */
export const requireApiKey: MiddlewareHandler<AppEnv> = async (c, next) => {
  const token = bearer(c.req.header("authorization"));
  if (token) {
    // Usually answered from this isolate's memory or KV, not D1: see auth/key-cache-limits.ts.
    const stores = { db: c.var.db, kv: c.env.KEY_CACHE };
    const keyHash = await sha256Hex(token);
    const key = await throttledCheck(
      c,
      subjectsOf(clientAddress(c), token),
      { known: () => knownKey(stores, keyHash), lookUp: () => lookUpKey(stores, keyHash) },
      "The API key is unknown or has been revoked.",
    );
    c.set("tenantId", key.tenantId);
    return next();
  }
  const cookie = getCookie(c, SESSION_COOKIE);
  if (!cookie) throw ApiError.unauthenticated("Send an API key as `Authorization: Bearer <key>`.");
  const session = await findSession(c.var.db, cookie);
  if (!session)
    throw ApiError.unauthenticated(
      "The dashboard session has ended (signed out, expired, or its key revoked); sign in again.",
    );
  if (!SAFE_METHODS.has(c.req.method)) {
    const csrf = c.req.header("x-csrf-token");
    if (!sameOriginOrAbsent(c) || !csrf || !(await secretsEqual(csrf, session.csrfToken))) {
      throw ApiError.unauthenticated(
        "A signed-in request that changes something must come from this server's pages with the session's `X-CSRF-Token`.",
      );
    }
  }
  c.set("tenantId", session.tenantId);
  c.set("session", session);
  await next();
};

/**
 * The credential `requireApiKey` accepted for this request, for a response that outlives the check
 * (an event stream asks again while it is open): the session when the cookie was used, else the key.
 */
export function openedWith(c: Context<AppEnv>): OpenedWith {
  const session = c.var.session;
  const cookie = getCookie(c, SESSION_COOKIE);
  if (session && cookie) return { sessionToken: cookie, expiresAt: session.expiresAt };
  return { apiKey: bearer(c.req.header("authorization"))! };
}

/**
 * Requires the operator secret `ADMIN_TOKEN`; with no secret configured, the admin routes are closed.
 * Wrong tokens are throttled per client address only: one secret has no prefix to count by, and a bound
 * across all addresses would let anyone lock the operator out.
 */
export const requireAdmin: MiddlewareHandler<AppEnv> = async (c, next) => {
  const token = bearer(c.req.header("authorization"));
  const expected = c.env.ADMIN_TOKEN;
  if (!token) throw ApiError.unauthenticated("Send the operator token as `Authorization: Bearer <ADMIN_TOKEN>`.");
  await throttledCheck(
    c,
    subjectsOf(clientAddress(c)),
    { lookUp: async () => (expected && (await secretsEqual(token, expected)) ? true : undefined) },
    "The operator token is wrong, or ADMIN_TOKEN is not configured.",
  );
  await next();
};
