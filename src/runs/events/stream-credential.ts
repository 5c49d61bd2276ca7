/**
 * The credential an event stream was opened with, asked again while the stream stays open. A request
 * is authenticated once, but a stream can last many minutes: without asking again, a stream opened
 * with a key that is then revoked, or by a session that then signs out, would go on delivering the
 * run's events and its result. It asks D1 itself, not the key cache (a cache may accept a revoked key
 * for up to KEY_CACHE_LIMITS.revocationBoundSeconds), so a stream ends within one re-check interval
 * (EVENT_STREAM_LIMITS.credentialRecheckMs) of a revocation.
 */
import type { Db } from "../../db/client.ts";
import { findActiveKeyByHash } from "../../db/tenants.ts";
import { findSession } from "../../db/sessions.ts";
import { sha256Hex } from "../../crypto.ts";

/** How the request that opened the stream was authenticated. */
export type OpenedWith = { apiKey: string } | { sessionToken: string; expiresAt: Date };

export type StreamCredential = {
  /** Null while the credential is still good; otherwise why it no longer is (one D1 query). */
  check(now: number): Promise<string | null>;
  /** When the credential expires by itself (a session), so the stream ends then and not later. */
  expiresAt?: number;
  /** When D1 last vouched for it in this request (a session's lookup); undefined: not yet, ask at once. */
  checkedAt?: number;
};

export const KEY_REVOKED = "The API key of this stream has been revoked.";
export const SESSION_ENDED =
  "The dashboard session of this stream has ended (signed out, expired, or its key revoked); sign in again.";

export async function streamCredential(db: Db, opened: OpenedWith, now: number): Promise<StreamCredential> {
  if ("apiKey" in opened) {
    const keyHash = await sha256Hex(opened.apiKey);
    return { check: async () => ((await findActiveKeyByHash(db, keyHash)) ? null : KEY_REVOKED) };
  }
  const { sessionToken } = opened;
  return {
    check: async (at) => ((await findSession(db, sessionToken, new Date(at))) ? null : SESSION_ENDED),
    expiresAt: opened.expiresAt.getTime(),
    // The auth middleware has just looked the session up in D1.
    checkedAt: now,
  };
}
