/**
 * The lease of a unit that makes one model call: the call and its two retries at the timeout, plus a
 * minute for the sample write and the report.
 */
export function singleCallLeaseMs(timeoutS: number): number {
  return (timeoutS * 3 + 60) * 1000;
}
