// What the GET /v1/compare tests share: the request, the answer's shape, and the Wilson score limits
// written out from the textbook (an independent calculation, not the engine's).
import { expect } from "vitest";
import type { Comparison as ApiComparison, MetricComparison } from "@assay/sdk";
import { ComparisonSchema } from "../../src/routes/comparison-schemas.ts";
import { send } from "./helpers.ts";

export type Metric = MetricComparison;

/** The API's comparison (the SDK's type), with `details` open: each evaluator's tests read their own. */
export type Comparison = Omit<ApiComparison, "details"> & { details: any };

export function compare(key: string, base: string, head: string, query = ""): Promise<Response> {
  return send("GET", `/v1/compare?base=${base}&head=${head}${query}`, key);
}

/**
 * The comparison of two runs; anything but a 200 fails with the API's answer. Issue 24: so does an answer
 * the document does not describe field for field: parsing drops what the schema does not declare, so an
 * undeclared field (in `details`, say) makes the parsed answer differ from the answer.
 */
export async function comparison(key: string, base: string, head: string, query = ""): Promise<Comparison> {
  const res = await compare(key, base, head, query);
  const text = await res.text();
  if (res.status !== 200) throw new Error(`compare: ${res.status} ${text}`);
  const answer = JSON.parse(text) as Comparison;
  expect(ComparisonSchema.parse(answer), "the answer as its schema declares it").toEqual(answer);
  return answer;
}

export const byName = (c: Comparison, name: string): Metric => c.metrics.find((m) => m.name === name)!;

/** Wilson score limits of k/n at z (Wilson 1927). */
export function wilsonLimits(k: number, n: number, z: number): [number, number] {
  const p = k / n;
  const centre = p + (z * z) / (2 * n);
  const half = z * Math.sqrt((p * (1 - p)) / n + (z * z) / (4 * n * n));
  const denom = 1 + (z * z) / n;
  return [(centre - half) / denom, (centre + half) / denom];
}
