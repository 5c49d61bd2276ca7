/**
 * What one long-running invocation (a lane's alarm, or the RPC that started it) may still do before
 * it hands over to a fresh one: production cancels an alarm after 15 minutes of wall time and ends
 * any invocation at its subrequest limit, so a lane checks before each unit, and a unit of many steps
 * (a replay of many turns) before each step, that the worst the next one may need still fits.
 */
import { callDeadlineMs, DEFAULT_MAX_RETRIES, MAX_ABSORBED_RETRIES } from "../providers/retry.ts";
import { currentUsage } from "./invocation.ts";
import { PLATFORM_LIMITS } from "./limits.ts";

export type InvocationLimits = {
  /** Wall time one invocation may take. */
  wallMs: number;
  /** Subrequests one invocation may make (model calls, their retries, RPCs, D1 queries). */
  subrequests: number;
  now: () => number;
};

/**
 * Production's figures, less a margin for what follows the last step: the unit's report to the
 * coordinator and the hand-over (a minute of wall time; 100 subrequests).
 */
export const PRODUCTION_INVOCATION_LIMITS: InvocationLimits = {
  wallMs: PLATFORM_LIMITS.alarmWallMs.value - 60_000,
  subrequests: PLATFORM_LIMITS.subrequestsPerInvocation.value - 100,
  now: () => Date.now(),
};

let limits: InvocationLimits = PRODUCTION_INVOCATION_LIMITS;

/**
 * For tests only: smaller budgets (never larger) or a hand-driven clock for the budgets made in this
 * isolate from now on, so that a test sees hand-overs without running for 15 minutes. Returns the undo.
 */
export function setInvocationLimitsForTest(change: Partial<InvocationLimits>): () => void {
  const before = limits;
  const next = { ...limits, ...change };
  if (
    next.wallMs > PRODUCTION_INVOCATION_LIMITS.wallMs ||
    next.subrequests > PRODUCTION_INVOCATION_LIMITS.subrequests
  ) {
    throw new RangeError("setInvocationLimitsForTest: a test may lower the lane's budgets, never raise them");
  }
  limits = next;
  return () => void (limits = before);
}

/** The most a step (a unit, or one turn of a long unit) may need: wall time, and subrequests. */
export type StepCost = { ms: number; subrequests: number };

/** One invocation's budget, from its start. */
export class InvocationBudget {
  private readonly limits = limits;
  private readonly startedAt = this.limits.now();
  private begun = false;
  /** The most subrequests this invocation had made when a step was asked for (for `inspect` and tests). */
  maxSubrequests = 0;

  /** Subrequests this invocation has made so far (counted by src/platform/invocation.ts). */
  used(): number {
    return currentUsage()?.subrequests ?? 0;
  }

  /**
   * Whether a step of at most `cost` fits in what is left, and if so counts it begun. The first step
   * of an invocation always does: a fresh invocation is the most any step can have, so waiting for
   * another would only repeat this one (a request whose step cannot fit in a fresh one is refused
   * when its run is created: see `fitsOneInvocation`).
   */
  take(cost: StepCost): boolean {
    const used = this.used();
    this.maxSubrequests = Math.max(this.maxSubrequests, used);
    const fits =
      this.limits.now() - this.startedAt + cost.ms <= this.limits.wallMs &&
      used + cost.subrequests <= this.limits.subrequests;
    if (!fits && this.begun) return false;
    this.begun = true;
    return true;
  }
}

/**
 * The most `parallel` model calls made at once may need, from the one retry policy
 * (src/providers/retry.ts) with the retries every lane's endpoint client counts (DEFAULT_MAX_RETRIES):
 * in wall time, the call's deadline, which the policy keeps (every counted attempt up to its timeout
 * and, between them, the longest `Retry-After` it honours; absorbed 429s and waits for a permit come out
 * of the same time); in subrequests, every attempt the policy may send (the counted ones and up to
 * MAX_ABSORBED_RETRIES 429s the limiter absorbs) with a limiter request each.
 */
export function callCost(timeoutS: number, parallel = 1): StepCost {
  const attempts = DEFAULT_MAX_RETRIES + 1 + MAX_ABSORBED_RETRIES;
  return { ms: callDeadlineMs(timeoutS * 1000), subrequests: parallel * attempts * 2 };
}

/** The larger of two steps, dimension by dimension (a unit of several kinds of step is budgeted by its largest). */
export function largerStep(a: StepCost, b: StepCost): StepCost {
  return { ms: Math.max(a.ms, b.ms), subrequests: Math.max(a.subrequests, b.subrequests) };
}

/** Whether a step of at most `cost` fits in a fresh invocation in production (checked when a run is created). */
export function fitsOneInvocation(cost: StepCost): boolean {
  return cost.ms <= PRODUCTION_INVOCATION_LIMITS.wallMs && cost.subrequests <= PRODUCTION_INVOCATION_LIMITS.subrequests;
}

/**
 * The largest `timeout_s` (whole seconds) whose call fits in a fresh invocation: 240 s with production's
 * 14 minutes (3 × 240 s + 2 × 60 s = 840 s). The request schemas' maximum for every model call a unit makes.
 */
export const MAX_CALL_TIMEOUT_S = Math.floor(
  (PRODUCTION_INVOCATION_LIMITS.wallMs - callCost(0).ms) / (DEFAULT_MAX_RETRIES + 1) / 1000,
);
