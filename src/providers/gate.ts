/**
 * Admission to a model endpoint, asked before every HTTP attempt: the seam through which the one
 * retry policy (retry.ts) goes through a shared concurrency limiter (the platform's, in
 * src/runs/limiter/endpoint-gate.ts). Providers know only this contract.
 */
import { ProviderError } from "./types.ts";

/** How an attempt went, as the gate's limiter learns it (the same shape as src/runs/limiter's `Outcome`). */
export type AttemptOutcome =
  | { kind: "ok"; latencyMs: number }
  | { kind: "overload"; retryAfterMs?: number }
  | { kind: "error" }
  | { kind: "canceled" };

/** One attempt's admission; released exactly once, with the attempt's outcome. */
export interface CallPermit {
  /**
   * Ends the permit. For an overload, resolves to whether the limiter took the refusal as its own
   * window's doing (`absorbed`): then the retry does not count against the call's retries.
   */
  release(outcome: AttemptOutcome): Promise<{ absorbed: boolean }>;
}

export interface CallGate {
  /** Waits for a permit; rejects with the signal's reason if it aborts first. */
  acquire(signal?: AbortSignal): Promise<CallPermit>;
}

/**
 * Whether a failure says the endpoint is overloaded rather than that the request is wrong: 429, 503,
 * 529 (Anthropic's overloaded), or any retryable failure whose message says "overloaded".
 */
export function isOverload(error: ProviderError): boolean {
  if (error.kind === "rate_limit" || error.status === 503 || error.status === 529) return true;
  return (
    error.retryable && error.kind !== "timeout" && error.kind !== "connection" && /overloaded/i.test(error.message)
  );
}

/** The outcome a failed attempt reports to its gate. */
export function failureOutcome(error: unknown, aborted: boolean): AttemptOutcome {
  if (aborted) return { kind: "canceled" };
  if (error instanceof ProviderError && isOverload(error)) {
    const retryAfterMs = error.retryAfterMs;
    return retryAfterMs !== undefined && Number.isFinite(retryAfterMs)
      ? { kind: "overload", retryAfterMs }
      : { kind: "overload" };
  }
  return { kind: "error" };
}
