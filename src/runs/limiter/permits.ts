/**
 * The permits of one endpoint: who may send a request now, under the window (window.ts), a pause an
 * endpoint asked for with `Retry-After`, and leases. Pure: the clock is a parameter of every call, so
 * the tests drive it by hand; the Durable Object (src/runs/limiter/endpoint-limiter.ts) adds the waiting.
 *
 * A permit is one request's place in the window, and carries a lease: one its holder never releases
 * (a lane that died) is taken back when the lease ends, so nothing leaks for ever. A holder that
 * sends one request after another (a lane) keeps its permit across them and reports their successes
 * in aggregate (`report`, `extend`), so the limiter hears from it once per few requests instead of
 * twice per request; a failure that speaks of the window (an overload) is a `release`, at once.
 */
import {
  DEFAULT_WINDOW,
  newWindow,
  onOverload,
  onSuccess,
  openTo,
  windowLimit,
  type WindowOptions,
  type WindowState,
} from "./window.ts";

/** How an attempt went, as its holder reports it. */
export type Outcome =
  | { kind: "ok"; latencyMs: number }
  /** 429, 503, 529 or an "overloaded" answer; `retryAfterMs` from its `Retry-After`. */
  | { kind: "overload"; retryAfterMs?: number }
  /** Any other failure (timeouts, 5xx, bad requests): says nothing about the window. */
  | { kind: "error" }
  /** The caller gave up before or during the attempt (a cancel). */
  | { kind: "canceled" };

/** A granted permit, with what the endpoint's window looked like when it was granted. */
export type Grant = { id: string; limit: number; inFlight: number; expiresAt: number };

/** What a release tells its holder: whether an overload was the window's doing (see `onOverload`), and the window after it. */
export type Released = { absorbed: boolean; limit: number; inFlight: number; pausedUntil: number };

type Held = { seq: number; sentAt: number; expiresAt: number };

/** A pause asked for by `Retry-After` is honoured up to this (as the retry policy clamps it). */
export const MAX_PAUSE_MS = 60_000;

export class PermitBook {
  readonly window: WindowState;
  private readonly options: WindowOptions;
  private readonly held = new Map<string, Held>();
  private readonly prefix: string;
  private seq = 0;
  /** No permit is granted before this (epoch ms): the endpoint's `Retry-After`. */
  pausedUntil = 0;
  /** The most permits held at once, since the book was made. */
  maxInFlight = 0;

  /** `prefix` tells this book's permit ids from an earlier one's (a limiter that was evicted). */
  constructor({
    window,
    options = DEFAULT_WINDOW,
    prefix = "",
  }: { window?: WindowState; options?: WindowOptions; prefix?: string } = {}) {
    this.options = options;
    // A restored window's `cutSeq` counts an earlier book's permits; this book numbers its own from 0,
    // so keeping it would ignore every overload until as many permits had been granted again.
    this.window = window ? { ...window, cutSeq: 0 } : newWindow(options);
    this.prefix = prefix;
  }

  get limit(): number {
    return windowLimit(this.window, this.options);
  }

  get inFlight(): number {
    return this.held.size;
  }

  /** Opens a window still in its start to `n` requests (see `openTo`). */
  open(n: number): void {
    openTo(this.window, n, this.options);
  }

  /** A permit for `leaseMs`, or null when the window is full or the endpoint asked for a pause. */
  tryGrant(now: number, leaseMs: number): Grant | null {
    this.expire(now);
    if (now < this.pausedUntil || this.held.size >= this.limit) return null;
    const seq = this.seq++;
    const id = `${this.prefix}${seq}`;
    const expiresAt = now + leaseMs;
    this.held.set(id, { seq, sentAt: this.held.size + 1, expiresAt });
    this.maxInFlight = Math.max(this.maxInFlight, this.held.size);
    return { id, limit: this.limit, inFlight: this.held.size, expiresAt };
  }

  /**
   * Ends a permit with its attempt's outcome. A permit this book does not hold (its lease ran out, or
   * it was granted before an eviction) still passes on a `Retry-After`, but not its other news: its
   * place in the window is unknown.
   */
  release(id: string, outcome: Outcome, now: number): Released {
    const held = this.held.get(id);
    const inFlight = this.held.size;
    this.held.delete(id);
    let absorbed = false;
    if (outcome.kind === "overload") {
      if (outcome.retryAfterMs !== undefined && outcome.retryAfterMs > 0) {
        this.pausedUntil = Math.max(this.pausedUntil, now + Math.min(outcome.retryAfterMs, MAX_PAUSE_MS));
      }
      absorbed = held ? onOverload(this.window, held, this.seq, this.options) : false;
    } else if (outcome.kind === "ok" && held) {
      onSuccess(this.window, { sentAt: held.sentAt, inFlight, latencyMs: outcome.latencyMs }, this.options);
    }
    return { absorbed, limit: this.limit, inFlight: this.held.size, pausedUntil: this.pausedUntil };
  }

  /**
   * The successes of the attempts its holder made under a permit it keeps, since its grant or its
   * last report: each is the window's news exactly as its own release would have been (`sentAt` the
   * level the permit was granted or last extended at, the in-flight count now, itself included). A
   * permit the book does not hold (its lease ran out, or an evicted limiter granted it) tells nothing:
   * its place in the window is unknown.
   */
  report(id: string, latenciesMs: readonly number[]): void {
    const held = this.held.get(id);
    if (!held) return;
    for (const latencyMs of latenciesMs)
      onSuccess(this.window, { sentAt: held.sentAt, inFlight: this.held.size, latencyMs }, this.options);
  }

  /**
   * Keeps a held permit for its holder's next attempts, with a fresh lease and a fresh grant number
   * (its next overload is news of the window as it is now). Null when it must be given back instead:
   * not held any more, the endpoint asked for a pause, or the window is now smaller than what is in
   * flight (a cut); the permit is then released, and its holder asks again like anyone else.
   */
  extend(id: string, now: number, leaseMs: number): Grant | null {
    this.expire(now);
    const held = this.held.get(id);
    if (!held) return null;
    if (now < this.pausedUntil || this.held.size > this.limit) {
      this.held.delete(id);
      return null;
    }
    held.seq = this.seq++;
    held.sentAt = this.held.size;
    held.expiresAt = now + leaseMs;
    return { id, limit: this.limit, inFlight: this.held.size, expiresAt: held.expiresAt };
  }

  /** Takes back the permits whose lease has ended; returns how many. */
  expire(now: number): number {
    let n = 0;
    for (const [id, h] of this.held) {
      if (h.expiresAt <= now) {
        this.held.delete(id);
        n++;
      }
    }
    return n;
  }

  /**
   * When a waiter that cannot be served now might be: the pause's end, or, with the window full,
   * the first lease to end (a release may come sooner). Null when nothing but a release can help.
   */
  wakeAt(now: number): number | null {
    if (now < this.pausedUntil) return this.pausedUntil;
    if (this.held.size < this.limit) return now;
    let first: number | null = null;
    for (const h of this.held.values()) first = first === null ? h.expiresAt : Math.min(first, h.expiresAt);
    return first;
  }
}
