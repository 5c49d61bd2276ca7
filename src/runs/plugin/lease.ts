import { callCost } from "../../platform/invocation-budget.ts";

/**
 * The lease of a unit that makes one model call: the call's worst case under the retry policy (its
 * attempts at the timeout and the waits between them, callCost), plus a minute for the sample write
 * and the report.
 */
export function singleCallLeaseMs(timeoutS: number): number {
  return callCost(timeoutS).ms + 60_000;
}
