// The rpl run page in a real browser: runs made on the simulator through the API (one plain, one
// `preset: auto`), then their pages checked against the results the API returns.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
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

type Stage = { stage_id: string; decision: string };
type Result = {
  aggregates: {
    prob_true_rpl: number;
    ci95: [number, number];
    ci_width: number;
    stability_score: number;
    stability_band: string;
    rpl_compliance_rate: number;
    cache_hit_rate: number;
  };
  quality: { pqs: number };
  diagnostics: { template_means: number[] };
  next_run_id?: string;
  auto?: { stages: Stage[]; decision_log: Stage[]; final?: { decision: string } };
};

/** Waits for a run to end and returns its result. */
async function finished(id: string): Promise<Result> {
  const run = await finalRun<{ status: string; result: Result; error: string | null }>(base(), id, headers);
  expect(run.status, run.error ?? "").toBe("succeeded");
  return run.result;
}

async function createRun(body: Record<string, unknown>): Promise<string> {
  const res = await fetch(`${base()}/v1/rpl/runs`, { method: "POST", headers, body: JSON.stringify(body) });
  expect(res.status).toBe(202);
  return ((await res.json()) as { id: string }).id;
}

// The page's own formats, restated: shares as percentages with one decimal, logits with three.
const pct = (x: number) => `${(100 * x).toFixed(1)}%`;

async function card(page: Page, field: string): Promise<string> {
  return ((await page.locator(`.card[data-field="${field}"] .value`).textContent()) ?? "").trim();
}

if (browserMissing) describe("the rpl run page", () => it.skip(SKIP_REASON, () => {}));

describe.skipIf(browserMissing)("the rpl run page", () => {
  let browser: Browser;
  beforeAll(async () => {
    browser = await launch();
  });
  afterAll(async () => {
    await browser?.close();
  });

  it("shows p and its CI, stability, compliance and cache hits, and each template's mean logit in the strip plot", async () => {
    const id = await createRun({
      claim: "Dashboards make evaluation results easier to read.",
      model: "sim:rpl",
      K: 8,
      R: 2,
    });
    const result = await finished(id);
    const a = result.aggregates;
    for (const width of [1280, 390]) {
      const { page, context, requests } = await openPage(browser, width);
      await signIn(page);
      await page.goto(`${base()}/#/runs/${id}`);
      await page.locator('canvas[data-chart="prob_true with 95% CI"]').waitFor();
      await page.locator('canvas[data-chart="template mean logits"]').waitFor();

      expect(await card(page, "aggregates.prob_true_rpl")).toBe(pct(a.prob_true_rpl));
      expect(await card(page, "aggregates.ci95")).toBe(`${pct(a.ci95[0])} – ${pct(a.ci95[1])}`);
      expect(await card(page, "aggregates.ci_width")).toBe(pct(a.ci_width));
      expect(await card(page, "aggregates.stability_score")).toBe(
        `${a.stability_score.toFixed(3)} (${a.stability_band})`,
      );
      expect(await card(page, "aggregates.rpl_compliance_rate")).toBe(pct(a.rpl_compliance_rate));
      expect(await card(page, "aggregates.cache_hit_rate")).toBe(pct(a.cache_hit_rate));
      expect(await card(page, "quality.pqs")).toBe(String(result.quality.pqs));

      // One row per template: the table's means are the result's template_means (in the page's order).
      const means = await page.locator('table.rpl-templates td[data-field="mean"]').allTextContents();
      const byValue = (x: string, y: string) => Number(x) - Number(y);
      expect(means.sort(byValue)).toEqual(result.diagnostics.template_means.map((m) => m.toFixed(3)).sort(byValue));
      // A plain run has no Auto-RPL section.
      expect(await page.getByRole("heading", { name: "Auto-RPL stages" }).count()).toBe(0);

      await screenshot(page, "rpl-run");
      expect(foreignRequests(requests)).toEqual([]);
      await context.close();
    }
  });

  it("shows a `preset: auto` run's stages, their chart and the decision log, from any stage", async () => {
    // A claim the simulator answers unevenly across templates, so the controller escalates past S1.
    const first = await createRun({ claim: "Coffee is good for you.", model: "sim:rpl", preset: "auto" });
    // Follow the stages as the API links them; the last one holds the whole controller log.
    const ids = [first];
    let last = await finished(first);
    while (last.next_run_id) {
      ids.push(last.next_run_id);
      last = await finished(last.next_run_id);
    }
    const auto = last.auto!;
    expect(auto.stages).toHaveLength(ids.length);
    for (const [name, id] of [
      ["rpl-auto-first-stage", ids[0]],
      ["rpl-auto-last-stage", ids[ids.length - 1]],
    ] as const) {
      for (const width of [1280, 390]) {
        const { page, context, requests } = await openPage(browser, width);
        await signIn(page);
        await page.goto(`${base()}/#/runs/${id}`);
        await page.getByRole("heading", { name: "Auto-RPL stages" }).waitFor();
        await page.locator('canvas[data-chart="auto stages"]').waitFor();
        // From the first stage the page follows next_run_id to the latest controller state.
        await page
          .locator("tr[data-stage]")
          .nth(auto.stages.length - 1)
          .waitFor();
        expect(await page.locator("tr[data-stage]").count()).toBe(auto.stages.length);
        const stages = await page
          .locator("tr[data-stage]")
          .evaluateAll((trs) => trs.map((tr) => tr.getAttribute("data-stage")));
        expect(stages).toEqual(auto.stages.map((s) => s.stage_id));
        const decisions = await page
          .locator(".rpl-log li")
          .evaluateAll((lis) => lis.map((li) => li.getAttribute("data-decision")));
        expect(decisions).toEqual(auto.decision_log.map((d) => d.decision));
        if (auto.final)
          expect(await page.locator("[data-final] .value").first().textContent()).toBe(auto.final.decision);
        await screenshot(page, name);
        expect(foreignRequests(requests)).toEqual([]);
        await context.close();
      }
    }
  });
});
