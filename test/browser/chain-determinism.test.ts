// The chain-determinism run page in a real browser: runs made on the simulator (and on the fake
// endpoint, for errors) through the API, then their pages checked against the results the API returns.
import { afterAll, beforeAll, describe, expect, inject, it } from "vitest";
import type { Browser, Page } from "playwright-core";
import {
  base,
  browserMissing,
  DEV_KEY,
  foreignRequests,
  launch,
  openPage,
  screenshot,
  signIn,
  SKIP_REASON,
} from "./browser.ts";
import { finalRun } from "../support/final-run.ts";

const headers = { Authorization: `Bearer ${DEV_KEY}`, "Content-Type": "application/json" };

type QueryResult = {
  query_id: string;
  status: string;
  n_success: number;
  n_unique_sequences?: number;
  modal_share?: number;
  first_divergence_turn?: number | null;
};
type Result = {
  n_total: number;
  n_errors: number;
  n_diverged: number;
  n_measurable: number;
  divergence_rate: number | null;
  wilson_ci_95: [number, number] | [null, null];
  per_query: QueryResult[];
};

/** Creates a run and waits for it to end. */
type Endpoint = { adaptive: boolean; max_limit: number; max_in_flight: number } | null;
type Calls = { requests: number; retries: number; rate_limited: number } | null;

async function finishedRun(
  body: Record<string, unknown>,
): Promise<{ id: string; result: Result; endpoint: Endpoint; calls: Calls }> {
  const res = await fetch(`${base()}/v1/chain-determinism/runs`, {
    method: "POST",
    headers,
    body: JSON.stringify(body),
  });
  expect(res.status).toBe(202);
  const { id } = (await res.json()) as { id: string };
  const run = await finalRun<{
    status: string;
    result: Result;
    error: string | null;
    endpoint: Endpoint;
    calls: Calls;
  }>(base(), id, headers);
  expect(run.status, run.error ?? "").toBe("succeeded");
  return { id, result: run.result, endpoint: run.endpoint, calls: run.calls };
}

// The page's own format, restated: a share as a percentage with one decimal.
const pct = (x: number) => `${(100 * x).toFixed(1)}%`;

async function card(page: Page, field: string): Promise<string> {
  return ((await page.locator(`.card[data-field="${field}"] .value`).textContent()) ?? "").trim();
}

if (browserMissing) describe("the chain-determinism run page", () => it.skip(SKIP_REASON, () => {}));

describe.skipIf(browserMissing)("the chain-determinism run page", () => {
  let browser: Browser;
  beforeAll(async () => {
    browser = await launch();
  });
  afterAll(async () => {
    await browser?.close();
  });

  it("shows the divergence rate with its Wilson interval, each query's figures and its distinct sequences where they fork", async () => {
    // Seeded: 4 queries × 10 replays; with a per-replay departure chance of 0.05 some queries diverge and some do not.
    const { id, result } = await finishedRun({
      model: "sim:agent",
      n_queries: 4,
      n_replays: 10,
      seed: 1,
      simulator: { divergence: 0.05 },
    });
    expect(result.n_diverged).toBeGreaterThan(0);
    expect(result.n_diverged).toBeLessThan(result.n_measurable);
    for (const width of [1280, 390]) {
      const { page, context, requests } = await openPage(browser, width);
      await signIn(page);
      await page.goto(`${base()}/#/runs/${id}`);
      await page.locator('canvas[data-chart="divergence rate"]').waitFor();
      await page.locator('canvas[data-chart="modal share per query"]').waitFor();

      expect(await card(page, "divergence_rate")).toBe(pct(result.divergence_rate!));
      expect(await card(page, "wilson_ci_95")).toBe(
        `${pct(result.wilson_ci_95[0]!)} – ${pct(result.wilson_ci_95[1]!)}`,
      );
      expect(await card(page, "n_diverged")).toBe(`${result.n_diverged} / ${result.n_measurable}`);
      expect(await card(page, "n_total")).toBe(String(result.n_total));
      expect(await card(page, "n_errors")).toBe(String(result.n_errors));

      for (const q of result.per_query) {
        const row = page.locator(`table.cd-queries tr[data-query="${q.query_id}"]`);
        expect(await row.locator('[data-field="n_unique_sequences"]').textContent()).toBe(String(q.n_unique_sequences));
        expect(await row.locator('[data-field="modal_share"]').textContent()).toBe(pct(q.modal_share!));
        expect(await row.locator('[data-field="first_divergence_turn"]').textContent()).toBe(
          q.first_divergence_turn === null ? "–" : String(q.first_divergence_turn),
        );
      }

      // The sequence view, query by query: as many columns as distinct sequences, their replays adding up
      // to the query's successes, and the fork row at the first divergence turn.
      for (const q of result.per_query) {
        await page.getByLabel("Query", { exact: true }).selectOption(q.query_id);
        const table = page.locator(`table.cd-seq-table[data-query="${q.query_id}"]`);
        await table.waitFor();
        expect(await table.locator("th[data-sequence]").count()).toBe(q.n_unique_sequences);
        const counts = await table
          .locator("th[data-sequence]")
          .evaluateAll((ths) => ths.map((th) => Number(th.getAttribute("data-count"))));
        expect(counts.reduce((s, n) => s + n, 0)).toBe(q.n_success);
        const forks = await table
          .locator("tr.fork")
          .evaluateAll((trs) => trs.map((tr) => Number(tr.getAttribute("data-turn"))));
        expect(forks).toEqual(
          q.first_divergence_turn === null || q.first_divergence_turn === undefined ? [] : [q.first_divergence_turn],
        );
      }
      // Back to the first diverged query for the picture.
      await page
        .getByLabel("Query", { exact: true })
        .selectOption(
          result.per_query.find((q) => q.status === "measurable" && (q.n_unique_sequences ?? 0) > 1)!.query_id,
        );
      await screenshot(page, "chain-determinism-run");
      expect(foreignRequests(requests)).toEqual([]);
      await context.close();
    }
  });

  it("keeps errors apart from divergence: error replays by category, insufficient queries, a rate that is not measurable", async () => {
    // The fake endpoint answers the run's 1st request with no choices, its 2nd with a tool that does not
    // exist, its 3rd with no choices again: each ends a different replay (an error ends its replay), so
    // there are 3 error replays, 2 `empty_choices` and 1 `replay_exception: KeyError`.
    const url = inject("fakeOpenAIUrl");
    const model = `dash-cd-errors-${Date.now()}`;
    const reg = await fetch(new URL("/_scenarios", url), {
      method: "POST",
      headers: { "Content-Type": "application/json" },
      body: JSON.stringify({
        id: model,
        agent: { calls: 1 },
        faults: [
          { on: { nth: 1 }, respond: { empty_choices: true } },
          { on: { nth: 2 }, respond: { tool_name: "no_such_tool" } },
          { on: { nth: 3 }, respond: { empty_choices: true } },
        ],
      }),
    });
    expect(reg.status).toBe(201);
    // 2 queries × 3 replays with min_success 3: a query that lost a replay is insufficient.
    const { id, result, endpoint, calls } = await finishedRun({
      model,
      provider: { base_url: url, api_key: "sk-dash-test-0123456789" },
      n_queries: 2,
      n_replays: 3,
      min_success: 3,
    });
    // A real endpoint: the run reports its shared limiter (adaptive, as no concurrency was given).
    expect(endpoint).toMatchObject({ adaptive: true });
    expect(result.n_errors).toBe(3);
    const insufficient = result.per_query.filter((q) => q.status === "insufficient").length;
    expect(insufficient).toBeGreaterThan(0);
    for (const width of [1280, 390]) {
      const { page, context, requests } = await openPage(browser, width);
      await signIn(page);
      await page.goto(`${base()}/#/runs/${id}`);
      await page.locator("table.cd-errors").waitFor();
      expect(await card(page, "n_errors")).toBe("3");
      expect(await card(page, "insufficient")).toBe(String(insufficient));
      const categories = await page
        .locator("table.cd-errors tr[data-category]")
        .evaluateAll((trs) =>
          trs.map((tr) => [tr.querySelector("th")!.textContent, tr.querySelector("td.num")!.textContent]),
        );
      expect(categories).toEqual([
        ["empty_choices", "2"],
        ["replay_exception: KeyError", "1"],
      ]);
      if (result.divergence_rate === null) {
        await page.locator("p.hint", { hasText: "Not measurable" }).waitFor();
        expect(await page.locator('canvas[data-chart="divergence rate"]').count()).toBe(0);
      }
      // Below the results, the endpoint as the run's limiter saw it, in the API's figures.
      const endpointSection = page.getByRole("region", { name: "Model endpoint" });
      await endpointSection.locator('canvas[data-chart="Concurrency window over time"]').waitFor();
      expect(await endpointSection.locator("p").textContent()).toBe(
        `Adaptive concurrency: the window reached ${endpoint!.max_limit}, with at most ${endpoint!.max_in_flight} requests in flight; ${calls!.requests} requests, ${calls!.retries} retries, ${calls!.rate_limited} answered 429.`,
      );
      await screenshot(page, "chain-determinism-errors");
      expect(foreignRequests(requests)).toEqual([]);
      await context.close();
    }
  });
});
