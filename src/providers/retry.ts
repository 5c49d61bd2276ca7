/**
 * The one retry policy. Providers only classify failures (a `ProviderError` with a `kind` and maybe a
 * `retryAfterMs`); this module alone decides whether and when to try again, like inspect_ai's model
 * layer. The OpenAI package's own retries are switched off so that there is exactly one loop.
 */
import { failureOutcome, type CallGate, type CallPermit } from "./gate.ts";
import { ProviderError } from "./types.ts";
import type { ChatClient, ChatOptions, ChatRequest } from "./types.ts";

/** Backoff base and cap, as in the OpenAI Python SDK (`INITIAL_RETRY_DELAY` 0.5 s, `MAX_RETRY_DELAY` 8 s). */
export const INITIAL_RETRY_DELAY_MS = 500;
export const MAX_RETRY_DELAY_MS = 8_000;
/** A server's `Retry-After` is honoured up to this; a longer one is clamped (a run has deadlines to keep). */
export const MAX_RETRY_AFTER_MS = 60_000;
/** Retries after the first attempt unless a client says otherwise (the OpenAI SDKs' default too). */
export const DEFAULT_MAX_RETRIES = 2;

/**
 * The longest one call may take, first attempt to last answer, when every attempt it counts runs to its
 * timeout and a server asks for the longest wait between them. A lane budgets a call by this (see
 * platform/invocation-budget.ts), so the policy keeps to it: a retry that could end past it is not
 * made (absorbed 429s and slow permits eat into the same time).
 */
export function callDeadlineMs(attemptMs: number, maxRetries = DEFAULT_MAX_RETRIES): number {
  return (maxRetries + 1) * attemptMs + maxRetries * MAX_RETRY_AFTER_MS;
}

/** Called before each retry's wait: `attempt` is the attempt that just failed (1-based). */
export type RetryInfo = { attempt: number; error: ProviderError; delayMs: number };

export type RetryPolicy = {
  /** Retries after the first attempt; 0 disables retrying. */
  maxRetries: number;
  /** Waits `ms`, rejecting with the signal's reason if it aborts. Injectable so tests are instant. */
  sleep?: (ms: number, signal?: AbortSignal) => Promise<void>;
  /** Source of jitter in [0, 1). Injectable for exact tests. */
  random?: () => number;
  onRetry?: (info: RetryInfo) => void;
  /**
   * Admission before every attempt, retries included (an endpoint's shared, adaptive limiter): each
   * attempt holds a permit and releases it with its outcome, so a 429 shrinks the window and the
   * retry queues for a permit again after its wait.
   */
  gate?: CallGate;
  /** Clock for the latency a gate is told and for `deadline`. Injectable for exact tests. */
  now?: () => number;
  /**
   * The call's time bound (`callDeadlineMs`) and the most one attempt may take: no retry starts that
   * could answer after `ms` from the first attempt's start; the last error is thrown instead.
   */
  deadline?: { ms: number; attemptMs: number };
};

/**
 * 429s a gate absorbed (its window was too wide, see `CallPermit.release`) are retried without
 * counting against `maxRetries`, at most this many times in one call: a backstop, since the window's
 * floor (one request in flight) stops absorbing sooner.
 */
export const MAX_ABSORBED_RETRIES = 20;

/**
 * How long to wait before retry number `retry` (0-based: 0 is the wait after the first failure).
 *
 * - If the error carries `retryAfterMs` (from `Retry-After` / `retry-after-ms`), that, clamped to
 *   [0, MAX_RETRY_AFTER_MS]. Unlike the Python SDK, which ignores values over 60 s, we clamp them: a
 *   rate-limited endpoint asked for *at least* that long, so waiting the maximum is the closer answer.
 * - Otherwise the Python SDK's backoff: `min(0.5 s × 2^retry, 8 s) × (1 − 0.25 × random)`, i.e. jitter
 *   shortens the wait by up to 25 %, so concurrent callers do not retry in lockstep.
 */
export function retryDelayMs(error: ProviderError, retry: number, random: () => number = Math.random): number {
  if (error.retryAfterMs !== undefined && Number.isFinite(error.retryAfterMs)) {
    return Math.min(Math.max(0, error.retryAfterMs), MAX_RETRY_AFTER_MS);
  }
  const base = Math.min(INITIAL_RETRY_DELAY_MS * 2 ** retry, MAX_RETRY_DELAY_MS);
  return base * (1 - 0.25 * random());
}

/** `setTimeout` as a promise that rejects with `signal.reason` when the caller aborts. */
export function abortableSleep(ms: number, signal?: AbortSignal): Promise<void> {
  return new Promise((resolve, reject) => {
    if (signal?.aborted) return reject(signal.reason);
    const onAbort = () => {
      clearTimeout(timer);
      reject(signal!.reason);
    };
    const timer = setTimeout(() => {
      signal?.removeEventListener("abort", onAbort);
      resolve();
    }, ms);
    signal?.addEventListener("abort", onAbort, { once: true });
  });
}

/**
 * Calls `once` until it succeeds or fails for good: retryable `ProviderError`s (`error.retryable`: rate
 * limits, timeouts, connection failures, 5xx/408/409) are tried again up to `maxRetries` times with
 * `retryDelayMs` between. Anything else (auth, bad request, a caller's abort, a non-ProviderError) is
 * thrown at once.
 *
 * With a `gate`, every attempt waits for a permit first and reports its outcome; a 429 the gate
 * absorbed is retried without counting (up to MAX_ABSORBED_RETRIES), after its `Retry-After` if it had
 * one and otherwise as soon as the limiter grants it again, so no call fails while a limiter is still
 * finding the endpoint's limit.
 *
 * The answer carries `attempts` (1 = first try succeeded); the error finally thrown carries
 * `attempts` too, so the platform can count retries either way.
 */
export async function retrying<T extends { attempts?: number }>(
  once: () => Promise<T>,
  policy: RetryPolicy,
  signal?: AbortSignal,
): Promise<T> {
  const { maxRetries, sleep = abortableSleep, random = Math.random, onRetry, gate, now = Date.now, deadline } = policy;
  const callStarted = now();
  let counted = 0;
  let absorbed = 0;
  let last: ProviderError | undefined;
  for (let attempt = 1; ; attempt++) {
    const permit = gate
      ? await admitted(
          gate,
          signal,
          deadline && { left: () => deadline.ms - deadline.attemptMs - (now() - callStarted), attempt, last },
        )
      : null;
    const started = now();
    try {
      const response = await once();
      // Not awaited: the answer is the caller's now; the limiter hears of it on its own time.
      permit?.release({ kind: "ok", latencyMs: now() - started }).catch(() => {});
      response.attempts = attempt;
      return response;
    } catch (error) {
      const verdict = permit
        ? await permit.release(failureOutcome(error, signal?.aborted ?? false)).catch(() => ({ absorbed: false }))
        : null;
      if (!(error instanceof ProviderError)) throw error;
      // Only a 429 is free: it says "too many at once", which the limiter is still finding out. A 503 or
      // an "overloaded" narrows the window too, but may be an endpoint that is down: it counts as ever.
      const free = verdict?.absorbed === true && error.kind === "rate_limit" && absorbed < MAX_ABSORBED_RETRIES;
      if (!error.retryable || (!free && counted >= maxRetries) || signal?.aborted) {
        error.attempts = attempt;
        throw error;
      }
      if (free) absorbed++;
      else counted++;
      // An absorbed 429 without a Retry-After goes straight back to the limiter, whose cut window is
      // the wait: it is granted again once the endpoint has room, not after a fixed backoff.
      const delayMs =
        free && !(error.retryAfterMs !== undefined && Number.isFinite(error.retryAfterMs))
          ? 0
          : retryDelayMs(error, free ? 0 : counted - 1, random);
      if (deadline && now() - callStarted + delayMs + deadline.attemptMs > deadline.ms) {
        error.attempts = attempt;
        throw error;
      }
      last = error;
      onRetry?.({ attempt, error, delayMs });
      await sleep(delayMs, signal);
    }
  }
}

/**
 * A permit from `gate`, waited for no longer than `within.left()` says the call may still start an
 * attempt: past that, the call fails with its last error (a timeout when it had none), and a permit
 * granted too late is given back unused.
 */
async function admitted(
  gate: CallGate,
  signal: AbortSignal | undefined,
  within: { left: () => number; attempt: number; last?: ProviderError } | undefined,
): Promise<CallPermit> {
  if (!within) return gate.acquire(signal);
  const late = () => {
    const error =
      within.last ??
      new ProviderError({
        name: "APIConnectionTimeoutError",
        kind: "timeout",
        message: "No permit for the endpoint within the call's deadline",
      });
    error.attempts = within.attempt - 1;
    return error;
  };
  const left = within.left();
  if (left < 0) throw late();
  // A timer cleared as soon as the permit comes (most come at once, from the lane's lease), and the
  // caller's abort passed on: no timer or listener outlives the wait.
  const waiting = new AbortController();
  let timedOut = false;
  const timer = setTimeout(() => {
    timedOut = true;
    waiting.abort(new DOMException("no permit within the call's deadline", "TimeoutError"));
  }, left);
  const passOn = () => waiting.abort(signal?.reason);
  if (signal?.aborted) passOn();
  else signal?.addEventListener("abort", passOn, { once: true });
  let permit: CallPermit;
  try {
    permit = await gate.acquire(waiting.signal);
  } catch (error) {
    if (timedOut && !signal?.aborted) throw late();
    throw error;
  } finally {
    clearTimeout(timer);
    signal?.removeEventListener("abort", passOn);
  }
  if (within.left() < 0) {
    permit.release({ kind: "canceled" }).catch(() => {});
    throw late();
  }
  return permit;
}

export function checkRetryPolicy(policy: RetryPolicy): void {
  if (!Number.isInteger(policy.maxRetries) || policy.maxRetries < 0) {
    throw new RangeError(`withRetry: maxRetries must be a non-negative integer, got ${policy.maxRetries}`);
  }
}

/** A chat client whose calls go through `retrying`. */
export function withRetry(client: ChatClient, policy: RetryPolicy): ChatClient {
  checkRetryPolicy(policy);
  return {
    chat: (request: ChatRequest, options: ChatOptions = {}) =>
      retrying(() => client.chat(request, options), policy, options.signal),
  };
}
