/**
 * What a run's request may ask of one step of a unit (a model call and its retries, a replay's turn, a
 * round of checker calls): no more than a fresh lane invocation may do in production (an alarm's wall
 * time, the subrequests of one invocation). A lane hands over between steps, never inside one, so a step
 * that cannot fit would be killed and run again from its start, forever. The schemas bound every
 * `timeout_s` by it, and each evaluator checks its steps' worst cases with `requireStepsFit` at creation.
 */
import { z } from "@hono/zod-openapi";
import { ApiError } from "../../errors.ts";
import {
  fitsOneInvocation,
  MAX_CALL_TIMEOUT_S,
  PRODUCTION_INVOCATION_LIMITS,
  type StepCost,
} from "../../platform/invocation-budget.ts";

const WALL_MIN = PRODUCTION_INVOCATION_LIMITS.wallMs / 60_000;
const WHY = `a call is tried up to 3 times, each up to timeout_s, with up to 60 s between tries (a server's Retry-After), and all of it must fit in one lane invocation (${WALL_MIN} min)`;

/** A model call's `timeout_s` field: at most MAX_CALL_TIMEOUT_S, and the description says why. */
export function callTimeoutField(what = "Per model call") {
  return z
    .number()
    .positive()
    .max(MAX_CALL_TIMEOUT_S, { message: `timeout_s may be at most ${MAX_CALL_TIMEOUT_S}: ${WHY}.` })
    .default(60)
    .openapi({ description: `${what}, in seconds; at most ${MAX_CALL_TIMEOUT_S}: ${WHY}` });
}

/** One kind of step a run's units take: the request field that sizes it, and its worst case. */
export type StepCheck = { path: string; what: string; cost: StepCost };

/**
 * Refuses (400, naming each field) a request one of whose steps may need more than a fresh invocation
 * has. The single check every evaluator's creation goes through.
 */
export function requireStepsFit(steps: StepCheck[]): void {
  const errors = steps
    .filter((s) => !fitsOneInvocation(s.cost))
    .map((s) => ({
      path: s.path,
      message:
        `${s.what} may need ${Math.ceil(s.cost.ms / 1000)} s and ${s.cost.subrequests} subrequests, more than one lane invocation ` +
        `may do (${WALL_MIN} min, ${PRODUCTION_INVOCATION_LIMITS.subrequests} subrequests): timeout_s may be at most ${MAX_CALL_TIMEOUT_S}.`,
    }));
  if (errors.length > 0) throw ApiError.validation(errors);
}
