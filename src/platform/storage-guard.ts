/**
 * The size checks production makes on a stored value, made before the write: a Durable Object's
 * storage value (and SQLite row) and a D1 row are at most 2 MB. Local workerd stores far larger
 * values, so without this a run would pass every test and fail on its first deployment.
 */
import { PLATFORM_LIMITS, type PlatformLimit } from "./limits.ts";
import { noteStoredValue, PlatformLimitError, platformLimitOf } from "./invocation.ts";

const encoder = new TextEncoder();

/** UTF-8 bytes of a string, without allocating for the common all-ASCII case twice. */
export function utf8Bytes(text: string): number {
  return encoder.encode(text).byteLength;
}

/**
 * Throws a PlatformLimitError naming `what` when `bytes` is over the limit of `where`; notes the
 * size for the benchmarks' high-water mark otherwise.
 */
export function guardStoredSize(where: "durableObjectValueBytes" | "d1RowBytes", what: string, bytes: number): void {
  noteStoredValue(what, bytes);
  const limit = PLATFORM_LIMITS[where].value;
  if (bytes > limit) {
    const store = where === "d1RowBytes" ? "a D1 row" : "a Durable Object storage value";
    throw new PlatformLimitError(
      where,
      `${what} is ${bytes.toLocaleString("en-US")} bytes, over what ${store} may hold`,
    );
  }
}

/**
 * guardStoredSize for a text: a UTF-16 unit is 1 to 3 UTF-8 bytes, so only a text that could be over
 * the limit is measured exactly (the high-water mark gets its length, exact for ASCII, otherwise).
 */
export function guardStoredText(where: "durableObjectValueBytes" | "d1RowBytes", what: string, text: string): void {
  guardStoredSize(where, what, text.length * 3 > PLATFORM_LIMITS[where].value ? utf8Bytes(text) : text.length);
}

const SIZE_LIMITS = new Set<PlatformLimit>([
  "durableObjectValueBytes",
  "d1RowBytes",
  "sqlBoundParameters",
  "sqlStatementBytes",
]);

/**
 * The PlatformLimitError behind `err` when it is a size (a value, a row, a statement): unlike a
 * per-invocation budget, it is refused again on every try, so a caller that retries should not.
 */
export function storedSizeLimitOf(err: unknown): PlatformLimitError | undefined {
  const limit = platformLimitOf(err);
  return limit && SIZE_LIMITS.has(limit.limit) ? limit : undefined;
}
