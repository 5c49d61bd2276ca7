// Shared helpers of the reasoning-quality parity tests: the README's tolerances (exact for booleans, strings,
// integers and 4-decimal values; 1e-12 absolute for unrounded floats), the reference files, and the options
// that reproduce [C] where the spec's [D] defaults deliberately differ.
import { expect } from "vitest";
import type { ItemRecord, MetricOptions } from "../../../src/engines/reasoning-quality/index.ts";
import { referenceFiles } from "../../support/reference.ts";

export const TOL = 1e-12;
export const ref = referenceFiles("reasoning-quality");

/** Parses every line of a reference .jsonl file. */
export function vectors(file: string): any[] {
  return ref.lines(file).map((l) => JSON.parse(l));
}

/**
 * [C]'s behaviour where spec §4/§6 [D] changed it: items without perturbations stay in RS's C with RS_i = 0,
 * and failed generations (0 tokens) take part in ES's min–max.
 */
export const CODE_PARITY: MetricOptions = { rsWithoutPerturbations: "zero", esFailedInMinMax: true };

/** |actual − expected| ≤ tol; nulls must match exactly. */
export function closeTo(actual: number | null | undefined, expected: number | null, tol = TOL, label = ""): void {
  if (expected === null || actual === null || actual === undefined) return expect(actual, label).toBe(expected);
  expect(Math.abs(actual - expected), `${label} ${actual} vs ${expected}`).toBeLessThanOrEqual(tol);
}

/** Every numeric entry within 1e-12, same keys. */
export function closeRecord(actual: Record<string, number | null>, expected: Record<string, number | null>, label = ""): void {
  expect(Object.keys(actual).sort(), label).toEqual(Object.keys(expected).sort());
  for (const k of Object.keys(expected)) closeTo(actual[k], expected[k], TOL, `${label}.${k}`);
}

/** Element-wise within 1e-12. */
export function closeList(actual: readonly (number | null)[], expected: readonly (number | null)[], label = ""): void {
  expect(actual.length, label).toBe(expected.length);
  expected.forEach((e, i) => closeTo(actual[i], e, TOL, `${label}[${i}]`));
}

/** A `kind: "records"` record (`gold`) as the engine's ItemRecord (`gold_answer`). */
export function toItemRecord(r: any): ItemRecord {
  const { gold, ...rest } = r;
  return { ...rest, gold_answer: gold };
}

/** The expected per-item block against ours: flags, labels and C exact, scores within 1e-12. */
export function expectPerItem(actual: any, expected: any, label = ""): void {
  closeList(actual.cq, expected.cq, `${label} cq`);
  closeList(actual.cs, expected.cs, `${label} cs`);
  expect(actual.cs_labels, `${label} cs_labels`).toEqual(expected.cs_labels);
  closeList(actual.rs, expected.rs, `${label} rs`);
  expect(actual.in_C, `${label} in_C`).toEqual(expected.in_C);
  closeList(actual.ls, expected.ls, `${label} ls`);
  closeList(actual.es, expected.es, `${label} es`);
  closeList(actual.ss, expected.ss, `${label} ss`);
}
