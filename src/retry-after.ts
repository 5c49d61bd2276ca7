/**
 * The `Retry-After` seconds for a wait of `ms`: whole seconds rounded up, at least 1 (a `Retry-After`
 * of 0 invites a retry that fails again). One rounding for every 429 (quotas, sign-in throttling).
 */
export function retryAfterSeconds(ms: number): number {
  return Math.max(1, Math.ceil(ms / 1000));
}
