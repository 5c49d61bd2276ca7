// Runs to compare, made through the API of the server the e2e tests share (test/cli/setup.ts), for the
// CLI's and the dashboard's compare tests alike.
import { expect, inject } from "vitest";
import type { Comparison } from "@assay/sdk";
import { finalRun } from "./final-run.ts";

const server = () => inject("assayUrl");
const headers = { Authorization: "Bearer assay_sk_local_dev_key", "Content-Type": "application/json" };

/** Starts a run of `evaluator` (its path under /v1) and returns its id. */
export async function createRun(evaluator: string, body: Record<string, unknown>): Promise<string> {
  const res = await fetch(`${server()}/v1/${evaluator}/runs`, { method: "POST", headers, body: JSON.stringify(body) });
  expect(res.status).toBe(202);
  return ((await res.json()) as { id: string }).id;
}

/** Waits for the run to end and checks it succeeded. */
export async function succeeded(id: string): Promise<string> {
  const run = await finalRun(server(), id, headers);
  expect(run.status, run.error ?? "").toBe("succeeded");
  return id;
}

/** GET /v1/compare, which must answer 200. `query`: more parameters, each starting with `&`. */
export async function apiCompare(base: string, head: string, query = ""): Promise<Comparison> {
  const res = await fetch(`${server()}/v1/compare?base=${base}&head=${head}${query}`, { headers });
  expect(res.status).toBe(200);
  return (await res.json()) as Comparison;
}

/** The API's comparison as its evaluator's variant (typed `details`), after checking it is that evaluator's. */
export function variant<E extends Comparison["evaluator"]>(
  c: Comparison,
  evaluator: E,
): Extract<Comparison, { evaluator: E }> {
  expect(c.evaluator).toBe(evaluator);
  return c as Extract<Comparison, { evaluator: E }>;
}

/** Two succeeded reasoning-quality runs of the same two simulated models with their accuracies swapped. */
export async function swappedReasoners(): Promise<[string, string]> {
  const run = (careful: number, quick: number) =>
    createRun("reasoning-quality", {
      models: [
        { name: "careful", model: "sim:reasoner", simulator: { accuracy: careful } },
        { name: "quick", model: "sim:reasoner", simulator: { accuracy: quick } },
      ],
      datasets: [{ synthetic: { num_reasoning: 8, num_adversarial: 2, num_robustness: 2 } }],
      K: 2,
      P: 1,
    });
  const [a, b] = await Promise.all([run(0.95, 0.2), run(0.2, 0.95)]);
  await Promise.all([succeeded(a), succeeded(b)]);
  return [a, b];
}
