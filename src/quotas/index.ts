/**
 * Per-tenant quotas (issue 30): the defaults (defaults.ts), the counting (windows.ts) and the one
 * Durable Object per tenant that checks and counts (tenant-quota.ts). What the routes call is here:
 * each refusal becomes a 429 `quota-exceeded` naming the quota, its limit and, where waiting helps,
 * `Retry-After`.
 */
import { ApiError } from "../errors.ts";
import type { Admission, QuotaPatch, QuotaStanding } from "./tenant-quota.ts";
import type { Quotas } from "./defaults.ts";

export { QUOTA_DEFAULTS, QUOTA_DESCRIPTIONS, QUOTA_MAX, QUOTA_NAMES } from "./defaults.ts";
export type { QuotaName, Quotas } from "./defaults.ts";
export type { QuotaPatch, QuotaStanding } from "./tenant-quota.ts";

const quotaOf = (env: Env, tenantId: string) => env.QUOTAS.get(env.QUOTAS.idFromName(tenantId));

/** The 429 of a refusal; without a `Retry-After` when waiting alone cannot help (docs/quotas.md). */
export function quotaExceeded(a: Admission): ApiError | null {
  if (a.ok) return null;
  return new ApiError({
    status: 429,
    type: "quota-exceeded",
    detail: `Over the tenant's ${a.quota} quota (${a.limit}): ${a.detail}.`,
    headers: a.retryAfterSeconds === null ? undefined : { "Retry-After": String(a.retryAfterSeconds) },
    extensions: { quota: a.quota, limit: a.limit },
  });
}

/** Admits the runs one request creates (ids chosen by the caller), or throws the 429 of the quota that refused them. */
export async function admitRuns(env: Env, tenantId: string, runs: { id: string; units: number }[]): Promise<void> {
  const refused = quotaExceeded(await quotaOf(env, tenantId).admitRuns(runs));
  if (refused) throw refused;
}

/** Counts the runs the platform makes itself (follow-ups), which are never refused (tenant-quota.ts). */
export async function countRuns(env: Env, tenantId: string, runs: { id: string; units: number }[]): Promise<void> {
  await quotaOf(env, tenantId).countRuns(runs);
}

/**
 * Takes back the admission of runs that were never written (another request with the same
 * Idempotency-Key wrote first, or the write failed). Never throws: the request's answer does not
 * depend on it, and a slot left taken is freed anyway once D1 shows no such run (tenant-quota.ts).
 */
export async function releaseRuns(env: Env, tenantId: string, runs: { id: string; units: number }[]): Promise<void> {
  try {
    await quotaOf(env, tenantId).releaseRuns(runs);
  } catch (err) {
    console.error(
      JSON.stringify({
        level: "warn",
        run_id: runs[0]?.id,
        error: `taking back the quota of runs never written failed: ${String(err)}`,
      }),
    );
  }
}

/** Admits one read of a whole run, or throws the 429 of `heavy_reads_per_minute`. */
export async function admitHeavyRead(env: Env, tenantId: string): Promise<void> {
  const refused = quotaExceeded(await quotaOf(env, tenantId).admitHeavyRead());
  if (refused) throw refused;
}

export function quotaStanding(env: Env, tenantId: string): Promise<QuotaStanding> {
  return quotaOf(env, tenantId).standing();
}

export function setQuotaOverrides(env: Env, tenantId: string, patch: QuotaPatch): Promise<Partial<Quotas>> {
  return quotaOf(env, tenantId).setOverrides(patch);
}
