// Throttling of failed credential checks (issue 30): per client address and per key prefix, counted in
// this isolate and at this Cloudflare location. Why these bounds and layers: sign-in-limits.ts.
//
// The order is what makes guessing pointless: `assertOpen` runs before any key is checked, from memory
// alone (a valid key's request pays no round trip for it), and answers 429 to a throttled subject even
// when the key it brings is right. A check that must ask a store (KV, D1) first `reserve`s a slot: failures
// and checks under way together stay within the bound, so wrong keys sent at once cannot all be checked
// before the first of them has failed. Only a failed check reaches the binding.
import { ApiError } from "../errors.ts";
import { KEY_PREFIX } from "../db/tenants.ts";
import { FailureWindows } from "./failure-windows.ts";
import { SIGN_IN_LIMITS } from "./sign-in-limits.ts";
import { retryAfterSeconds } from "../retry-after.ts";

/** Who failed: the client's address, or the prefix of the key it presented. */
export type Subject = { kind: "address" | "prefix"; key: string };

/** The Rate Limiting bindings that count failures at the location (wrangler.jsonc `ratelimits`). */
export type FailureLimiters = { AUTH_FAILURES_BY_ADDRESS: RateLimit; AUTH_FAILURES_BY_PREFIX: RateLimit };

const BOUND = { address: SIGN_IN_LIMITS.failuresPerAddress, prefix: SIGN_IN_LIMITS.failuresPerPrefix } as const;

/**
 * The subject of an address. An IPv6 client commonly holds a whole /64 and can pick any address in it,
 * so it is counted by its /64; an IPv4 address by itself.
 */
export function addressSubject(address: string): string {
  if (!address.includes(":")) return `ip:${address}`;
  const [head, tail = ""] = address.toLowerCase().split("::");
  const left = head ? head.split(":") : [];
  const right = address.includes("::") && tail ? tail.split(":") : [];
  const groups = [...left, ...Array<string>(Math.max(0, 8 - left.length - right.length)).fill("0"), ...right];
  return `ip6:${groups
    .slice(0, 4)
    .map((g) => g.replace(/^0+(?=.)/, ""))
    .join(":")}::/64`;
}

/**
 * What a failed check counts against. `address` is `CF-Connecting-IP`, which Cloudflare's edge sets on
 * every request from the Internet (a client cannot remove or forge it) and `wrangler dev` sets to the
 * local client's address; without it (a call through a service binding, or a test calling the fetch
 * handler directly) there is no address to count, and only the prefix is. A presented secret counts by
 * its prefix only when it is shaped like an assay key: nothing else can match one, and the first
 * characters of some other secret sent by mistake are not ours to keep. The operator token has no prefix.
 */
export function subjectsOf(address: string | undefined, presentedKey?: string): Subject[] {
  const subjects: Subject[] = [];
  if (address) subjects.push({ kind: "address", key: addressSubject(address) });
  if (presentedKey?.startsWith(KEY_PREFIX) && presentedKey.length > SIGN_IN_LIMITS.keyPrefixChars) {
    subjects.push({ kind: "prefix", key: `prefix:${presentedKey.slice(0, SIGN_IN_LIMITS.keyPrefixChars)}` });
  }
  return subjects;
}

/**
 * `Retry-After` when a subject's failures and checks under way reach the bound: those checks end within
 * a store's round trip, after which the subject is either throttled for its window or open again.
 */
const SETTLE_MS = 1000;

function tooMany(subject: Subject, retryAfterMs: number, what = "failed sign-ins or key checks"): ApiError {
  const seconds = retryAfterSeconds(retryAfterMs);
  const who = subject.kind === "address" ? "from this client address" : "with this key's prefix";
  return new ApiError({
    status: 429,
    type: "limit-exceeded",
    detail: `Too many ${what} ${who}; try again in ${seconds} s.`,
    headers: { "Retry-After": String(seconds) },
  });
}

export class AuthThrottle {
  readonly windows: FailureWindows;

  constructor(windows: FailureWindows) {
    this.windows = windows;
  }

  /** This isolate's clock; a seam, so a test can end a window without waiting. */
  now(): number {
    return Date.now();
  }

  /** Throws 429 when any subject is throttled here. Memory only: no binding, no round trip. */
  assertOpen(subjects: Subject[]): void {
    const now = this.now();
    for (const s of subjects) {
      const wait = this.windows.retryAfterMs(s.key, BOUND[s.kind], now);
      if (wait > 0) throw tooMany(s, wait);
    }
  }

  /**
   * Reserves a check of every subject that must ask a store, or throws 429 when a subject's failures and
   * checks under way already reach its bound. Returns the release, to call once the check has ended
   * (before `failed`, in the same turn, so that the reservation becomes the failure).
   */
  reserve(subjects: Subject[]): () => void {
    const now = this.now();
    for (const s of subjects) {
      const wait = this.windows.retryAfterMs(s.key, BOUND[s.kind], now);
      if (wait > 0) throw tooMany(s, wait);
      if (this.windows.failures(s.key, now) + this.windows.inFlight(s.key) >= BOUND[s.kind])
        throw tooMany(s, SETTLE_MS, "key checks under way");
    }
    for (const s of subjects) this.windows.begin(s.key);
    let released = false;
    return () => {
      if (released) return;
      released = true;
      for (const s of subjects) this.windows.end(s.key);
    };
  }

  /**
   * Counts a failed check of every subject, here and at the location. Throws 429 when the location's
   * count is over (other isolates saw the rest), and from then on this isolate refuses the subject before
   * checking anything. Returns when the caller should answer its 401. A binding that fails is logged
   * and skipped: this isolate's count still holds.
   */
  async failed(subjects: Subject[], limiters: FailureLimiters): Promise<void> {
    const now = this.now();
    for (const s of subjects) this.windows.fail(s.key, now);
    const outcomes = await Promise.all(
      subjects.map(async (s) => {
        const limiter = s.kind === "address" ? limiters.AUTH_FAILURES_BY_ADDRESS : limiters.AUTH_FAILURES_BY_PREFIX;
        try {
          return (await limiter.limit({ key: s.key })).success;
        } catch (err) {
          console.error(
            JSON.stringify({
              level: "warn",
              message: "rate limiting binding failed; counted in this isolate only",
              error: String(err),
            }),
          );
          return true;
        }
      }),
    );
    const over = subjects.filter((_, i) => !outcomes[i]);
    for (const s of over) this.windows.block(s.key, now);
    if (over.length > 0) throw tooMany(over[0]!, SIGN_IN_LIMITS.windowSeconds * 1000);
  }
}

/** This isolate's throttle: module state lives as long as the isolate does, across requests. */
export const authThrottle = new AuthThrottle(
  new FailureWindows({ maxEntries: SIGN_IN_LIMITS.isolateEntries, windowMs: SIGN_IN_LIMITS.windowSeconds * 1000 }),
);
