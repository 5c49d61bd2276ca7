/**
 * The bounds on guessing credentials and on dashboard sessions, in one place; docs/security.md states
 * them, and how an operator changes them.
 *
 * Failed credential checks (a wrong API key as a bearer or at sign-in, a wrong ADMIN_TOKEN) are counted
 * per client address and per key prefix over a window. Past a bound the address or prefix gets 429 with
 * `Retry-After` until its window ends, even with a right key: a guesser learns nothing more in that
 * window, and stops costing KV and D1 reads. Two layers count the same failures (auth/throttle.ts):
 * - this isolate, exactly, on its own clock: an attacker on one connection usually stays in one isolate;
 * - Cloudflare's Rate Limiting binding, across the isolates of one Cloudflare location. It is permissive
 *   and eventually consistent (counters are cached on the machine and synced within the location), and
 *   per location: an attacker spread over N locations gets up to N bounds per window. Nothing here is
 *   global; a Durable Object per address would be exact everywhere, but would put a network round trip
 *   in front of every failed check (and, to block a right key, of every check).
 *   https://developers.cloudflare.com/workers/runtime-apis/bindings/rate-limit/
 *
 * The binding's bounds are set in wrangler.jsonc (`ratelimits`: `simple.limit` and `simple.period`); they
 * must equal the figures below, which the isolate layer and `Retry-After` use (test/node/sign-in-limits
 * checks that they agree). An operator changes a bound in both places and deploys.
 */
export const SIGN_IN_LIMITS = {
  /**
   * The window, in seconds. The binding allows only 10 or 60; a minute makes a guesser's rate at most
   * `failuresPerAddress` a minute per location, far below anything that could find a 256-bit key, while a
   * person who mistyped a key waits at most a minute.
   */
  windowSeconds: 60,
  /**
   * Failed checks from one client address per window (binding AUTH_FAILURES_BY_ADDRESS). Generous enough
   * for an office behind one NAT whose scripts still send a revoked key now and then; a bound per address
   * is all that stops a guesser who varies the key's prefix.
   */
  failuresPerAddress: 20,
  /**
   * Failed checks of keys with one prefix per window, from any address (binding AUTH_FAILURES_BY_PREFIX).
   * A prefix is public (key listings show it), so this bounds guessing the rest of a known key from many
   * addresses. Its price: sending wrong keys with a key's prefix locks that key out for the window; its
   * tenant can make another key (a new prefix) at once.
   */
  failuresPerPrefix: 10,
  /** Characters of a presented key that identify it without being secret (db/tenants.ts stores them as `prefix`). */
  keyPrefixChars: 16,
  /** Addresses and prefixes one isolate remembers (about 100 bytes each); past it, the least recently failed goes. */
  isolateEntries: 10_000,

  /**
   * Live dashboard sessions per tenant; signing in past it ends the tenant's oldest. A person signs in
   * once per browser every `SESSION_HOURS`; 50 is a team's browsers, not a script's loop (500 sign-ins
   * used to leave 500 live sessions).
   */
  sessionsPerTenant: 50,
  /**
   * Expired sessions the cron deletes with one statement, and statements per tick: 4 of D1's 1,000
   * queries per invocation, two bound parameters each, and up to 2,000 rows a minute, more than sign-ins
   * can create (each tenant's bound already deletes its expired sessions at sign-in).
   */
  expiredSessionsPerStatement: 500,
  expiredSessionStatementsPerTick: 4,
} as const;
