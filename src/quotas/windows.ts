/**
 * The counting behind the quotas, as plain functions of a clock the caller passes: sliding one-minute
 * windows (runs created, heavy reads) and the UTC day (units). Pure, so tested with hand-picked times.
 */
import { retryAfterSeconds } from "../retry-after.ts";

export const MINUTE_MS = 60_000;
export const DAY_MS = 86_400_000;

/** Why an admission was refused; `retryAfterSeconds` is null when waiting alone cannot help. */
export type Refusal = { retryAfterSeconds: number | null; detail: string };

/** The stamps (ms, ascending) still inside the window that ends at `now`. */
export function inWindow(stamps: readonly number[], now: number, windowMs = MINUTE_MS): number[] {
  return stamps.filter((t) => t > now - windowMs);
}

/**
 * Whether `n` more events fit a sliding window that holds `stamps` (ascending, already inside it)
 * under `limit`. Refused, it says when enough of the oldest stamps leave for them to fit: the
 * (stamps + n − limit)-th oldest leaves at its time + the window. More than `limit` at once never fit.
 */
export function windowRefusal(
  stamps: readonly number[],
  n: number,
  limit: number,
  now: number,
  windowMs = MINUTE_MS,
): Refusal | null {
  if (stamps.length + n <= limit) return null;
  const what = `${stamps.length} in the last ${windowMs / 1000} s, and this needs ${n} more of ${limit}`;
  if (n > limit)
    return {
      retryAfterSeconds: null,
      detail: `this request alone needs ${n}, more than the ${limit} allowed in any ${windowMs / 1000} s`,
    };
  const frees = stamps[stamps.length + n - limit - 1] + windowMs;
  return { retryAfterSeconds: secondsUntil(frees, now), detail: what };
}

/** The UTC day (days since the epoch) that `now` falls in. */
export const dayOf = (now: number) => Math.floor(now / DAY_MS);

/** Whether `units` more fit the day's `limit` when `used` are spent; refused, it says when the day ends. */
export function dayRefusal(used: number, units: number, limit: number, now: number): Refusal | null {
  if (used + units <= limit) return null;
  if (units > limit)
    return {
      retryAfterSeconds: null,
      detail: `this request alone needs ${units} units, more than the ${limit} a day allows`,
    };
  const left = Math.max(0, limit - used);
  return {
    retryAfterSeconds: secondsUntil((dayOf(now) + 1) * DAY_MS, now),
    detail: `${left} of today's ${limit} units are left (UTC day), and this needs ${units}`,
  };
}

/** The `Retry-After` seconds from `now` until `at` (src/retry-after.ts). */
export function secondsUntil(at: number, now: number): number {
  return retryAfterSeconds(at - now);
}
