/**
 * An isolate's count of failed credential checks per subject (an address, a key prefix), each in a
 * window that starts at its first failure, and of its checks under way (`begin`/`end`), which a concurrent
 * burst must count before any of them has failed. Pure (the clock is passed in), so a test can end a window
 * without waiting. Bounded: a flood of distinct subjects forgets the least recently failed ones, which the
 * Rate Limiting binding still counts (auth/throttle.ts).
 */
type Entry = { failures: number; until: number; blocked: boolean };

export class FailureWindows {
  readonly #entries = new Map<string, Entry>();
  // Apart from the windows: a check under way outlives a window that ends meanwhile, and it is never
  // forgotten to make room (an entry lives only while a request does, so their number is bounded).
  readonly #inFlight = new Map<string, number>();
  readonly #maxEntries: number;
  readonly #windowMs: number;

  constructor({ maxEntries, windowMs }: { maxEntries: number; windowMs: number }) {
    if (!Number.isInteger(maxEntries) || maxEntries < 1)
      throw new RangeError("FailureWindows: maxEntries must be a positive integer");
    if (!(windowMs > 0)) throw new RangeError("FailureWindows: windowMs must be positive");
    this.#maxEntries = maxEntries;
    this.#windowMs = windowMs;
  }

  /** Milliseconds until `subject` may be checked again (0: now), given its bound `limit` per window. */
  retryAfterMs(subject: string, limit: number, now: number): number {
    const entry = this.#live(subject, now);
    if (!entry || (!entry.blocked && entry.failures < limit)) return 0;
    return entry.until - now;
  }

  /** Counts one failure of `subject`; the first one opens its window. */
  fail(subject: string, now: number): void {
    const entry = this.#live(subject, now) ?? { failures: 0, until: now + this.#windowMs, blocked: false };
    entry.failures += 1;
    this.#remember(subject, entry);
  }

  /**
   * Blocks `subject` for a whole window from `now`, whatever this isolate counted: the location's count
   * (the binding) is over. The binding's own window ends within one period, so this never blocks longer.
   */
  block(subject: string, now: number): void {
    const entry = this.#live(subject, now) ?? { failures: 0, until: 0, blocked: false };
    entry.blocked = true;
    entry.until = now + this.#windowMs;
    this.#remember(subject, entry);
  }

  /** Failures of `subject` in its current window. */
  failures(subject: string, now: number): number {
    return this.#live(subject, now)?.failures ?? 0;
  }

  /** Checks of `subject` begun and not yet ended. */
  inFlight(subject: string): number {
    return this.#inFlight.get(subject) ?? 0;
  }

  begin(subject: string): void {
    this.#inFlight.set(subject, this.inFlight(subject) + 1);
  }

  end(subject: string): void {
    const n = this.inFlight(subject) - 1;
    if (n > 0) this.#inFlight.set(subject, n);
    else this.#inFlight.delete(subject);
  }

  get size(): number {
    return this.#entries.size;
  }

  clear(): void {
    this.#entries.clear();
    this.#inFlight.clear();
  }

  #live(subject: string, now: number): Entry | undefined {
    const entry = this.#entries.get(subject);
    if (entry && now >= entry.until) {
      this.#entries.delete(subject);
      return undefined;
    }
    return entry;
  }

  #remember(subject: string, entry: Entry): void {
    // Re-inserted so that a Map's insertion order is the order of last failure.
    this.#entries.delete(subject);
    this.#entries.set(subject, entry);
    while (this.#entries.size > this.#maxEntries) this.#entries.delete(this.#entries.keys().next().value as string);
  }
}
