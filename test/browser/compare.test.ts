// The compare page (issue 18) in a real browser: a link to two runs shows the API's verdict, every
// metric and every flipped item, with the forest plot; the pickers and options ask the API again; runs
// that cannot be compared show the API's 422 in its own words.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { Browser, Page } from "playwright-core";
import type { Comparison } from "@assay/sdk";
import { base, browserMissing, foreignRequests, launch, openPage, screenshot, signIn, SKIP_REASON } from "./browser.ts";
import { apiCompare, createRun, succeeded, swappedReasoners, variant } from "../support/compare-runs.ts";

/** A shown figure against the API's: four decimals (so within 0.00005), "–" for none. */
function expectFigure(text: string, value: number | null, what: string) {
  if (value === null) return expect(text, what).toBe("–");
  expect(Math.abs(Number(text) - value), `${what}: ${text} vs ${value}`).toBeLessThanOrEqual(0.00005 + 1e-12);
}

/** The verdict, every metric's row and every flipped item on the page, against the API's comparison. */
async function expectShows(page: Page, c: Comparison) {
  await expect.poll(() => page.locator(".cmp-verdict").getAttribute("data-value")).toBe(c.verdict);
  expect(await page.locator(".cmp-metrics tbody tr").count()).toBe(c.metrics.length);
  for (const m of c.metrics) {
    const row = page.locator(`tr[data-metric="${m.name}"]`);
    const cell = (field: string) => row.locator(`[data-field="${field}"]`).innerText();
    const hib = m.higher_is_better as boolean | null;
    expect(await row.locator("th").innerText()).toBe(
      hib === true ? m.name : hib === false ? `${m.name} ↓` : `${m.name} ↕`,
    );
    expectFigure(await cell("base"), m.base, `${m.name} base`);
    expectFigure(await cell("head"), m.head, `${m.name} head`);
    expectFigure(await cell("delta"), m.delta, `${m.name} delta`);
    const interval = await cell("ci95");
    if (m.ci95 === null) expect(interval).toBe("–");
    else {
      const [lo, hi] = /^\[(\S+), (\S+)\]$/.exec(interval)!.slice(1);
      expectFigure(lo, m.ci95[0], `${m.name} lo`);
      expectFigure(hi, m.ci95[1], `${m.name} hi`);
    }
    const p = await cell("p_value");
    if (m.p_value !== null && m.p_value < 0.0001) expect(p).toBe("<0.0001");
    else expectFigure(p, m.p_value, `${m.name} p`);
    expect(await cell("verdict")).toBe(m.verdict);
    expect(await cell("method")).toBe(m.method);
  }
  await expect.poll(() => page.getByRole("heading", { name: `Flipped items (${c.flipped.length})` }).count()).toBe(1);
  expect(await page.locator("tr[data-item]").count()).toBe(c.flipped.length);
  for (const f of c.flipped) {
    expect(await page.locator(`tr[data-item="${f.id}"] td`).allInnerTexts()).toEqual([f.base, f.head]);
  }
}

if (browserMissing) describe("the compare page", () => it.skip(SKIP_REASON, () => {}));

describe.skipIf(browserMissing)("the compare page", () => {
  let browser: Browser;
  // Same suite and settings; the simulator's divergence 0 never departs from a query's plan, 0.9 nearly always.
  let stable = "";
  let diverging = "";
  beforeAll(async () => {
    browser = await launch();
    const body = { model: "sim:agent", n_queries: 8, n_replays: 5, seed: 11 };
    [stable, diverging] = await Promise.all([
      createRun("chain-determinism", { ...body, simulator: { divergence: 0 } }),
      createRun("chain-determinism", { ...body, simulator: { divergence: 0.9 } }),
    ]);
    await Promise.all([succeeded(stable), succeeded(diverging)]);
  });
  afterAll(async () => {
    await browser?.close();
  });

  it("a link to two runs shows the API's verdict, every metric, the flipped queries and the forest plot", async () => {
    const c = await apiCompare(stable, diverging);
    // Known by construction: more divergence is a regression, and queries flipped from stable to diverged.
    expect(c.verdict).toBe("regressed");
    expect(c.flipped.length).toBeGreaterThan(0);
    for (const width of [1280, 390]) {
      const { page, context, requests } = await openPage(browser, width);
      await signIn(page);
      await page.goto(`${base()}/#/compare/${stable}/${diverging}`);
      await expectShows(page, c);
      const forest = page.locator('canvas[data-chart^="forest plot"]');
      expect(await forest.count()).toBeGreaterThan(0);
      expect(await forest.first().getAttribute("aria-label")).toBe("forest plot: changes on a 0–1 scale");
      // The pickers show the linked runs.
      expect(await page.getByLabel("Base run (before)").inputValue()).toBe(stable);
      expect(await page.getByLabel("Head run (after)").inputValue()).toBe(diverging);
      await screenshot(page, "compare");
      expect(foreignRequests(requests)).toEqual([]);
      await context.close();
    }
  });

  it("picking two runs and another confidence asks the API again and links to the pair", async () => {
    const c = await apiCompare(diverging, stable, "&confidence=0.8&min_effect=0.01");
    expect(c.verdict).toBe("improved");
    const { page, context, requests } = await openPage(browser);
    await signIn(page);
    await page.getByRole("link", { name: "Compare" }).click();
    await page.getByRole("heading", { name: "Compare runs" }).waitFor();
    await page.getByLabel("Evaluator").selectOption("chain-determinism");
    await expect.poll(() => page.locator(`select >> option[value="${stable}"]`).count()).toBe(2);
    await page.getByLabel("Base run (before)").selectOption(diverging);
    await page.getByLabel("Head run (after)").selectOption(stable);
    await page.getByLabel("Confidence").fill("0.8");
    await page.getByLabel("Min effect").fill("0.01");
    await page.getByRole("button", { name: "Compare" }).click();
    await expect.poll(() => new URL(page.url()).hash).toBe(`#/compare/${diverging}/${stable}`);
    await expect.poll(() => page.locator(".cmp-result .card").last().innerText()).toContain("0.8 · 0.01");
    await expectShows(page, c);
    expect(foreignRequests(requests)).toEqual([]);
    await context.close();
  });

  it("rpl: the winner named, the prior's move not judged, and PQS points in a plot of their own", async () => {
    const body = { claim: "Compare two rpl models (dashboard).", K: 4, R: 1 };
    const [a, b] = await Promise.all([
      createRun("rpl", { ...body, model: "sim:rpl" }),
      createRun("rpl", { ...body, model: "sim:rpl-other" }),
    ]);
    await Promise.all([succeeded(a), succeeded(b)]);
    const c = await apiCompare(a, b);
    const winner = variant(c, "rpl").details.winner;
    for (const width of [1280, 390]) {
      const { page, context, requests } = await openPage(browser, width);
      await signIn(page);
      await page.goto(`${base()}/#/compare/${a}/${b}`);
      await expectShows(page, c);
      const named = winner.run_id === a ? `base (${a})` : winner.run_id === b ? `head (${b})` : null;
      await expect
        .poll(() => page.locator(".cmp-details").innerText())
        .toContain(named ? `Winner: ${named}, by ${winner.rule}.` : `No winner (${winner.rule}).`);
      // PQS is on a 0–100 scale, the rest within [-1, 1]: two plots, each with its own axis.
      const plots = await page
        .locator('canvas[data-chart^="forest plot"]')
        .evaluateAll((els) => els.map((e) => e.getAttribute("aria-label")));
      expect(plots).toEqual(["forest plot: changes on a 0–1 scale", "forest plot: changes of figures up to 100"]);
      await screenshot(page, "compare-rpl");
      expect(foreignRequests(requests)).toEqual([]);
      await context.close();
    }
  });

  it("reasoning-quality: every model's metrics and the rank changes per strategy", async () => {
    const [a, b] = await swappedReasoners();
    const c = await apiCompare(a, b);
    const changes = Object.entries(variant(c, "reasoning-quality").details.rank_changes).flatMap(([s, list]) =>
      list.map((r) => [s, r.model, String(r.base_rank), String(r.head_rank)]),
    );
    expect(changes.length).toBeGreaterThan(0);
    for (const width of [1280, 390]) {
      const { page, context, requests } = await openPage(browser, width);
      await signIn(page);
      await page.goto(`${base()}/#/compare/${a}/${b}`);
      await expectShows(page, c);
      // One forest plot per model.
      const plots = await page
        .locator('canvas[data-chart^="forest plot"]')
        .evaluateAll((els) => els.map((e) => e.getAttribute("aria-label")));
      expect(plots).toEqual(["forest plot: careful", "forest plot: quick"]);
      const rows = await page
        .locator(".cmp-ranks tbody tr")
        .evaluateAll((trs) =>
          trs.map((tr) => Array.from(tr.children, (td) => (td as { textContent: string | null }).textContent)),
        );
      expect(rows).toEqual(changes);
      await screenshot(page, "compare-rq");
      expect(foreignRequests(requests)).toEqual([]);
      await context.close();
    }
  });

  it("runs that cannot be compared show the API's 422 in its words", async () => {
    const rpl = await succeeded(
      await createRun("rpl", { claim: "Compare refuses two evaluators (dashboard).", model: "sim:rpl", K: 4, R: 1 }),
    );
    const { page, context, requests, expectConsoleErrors } = await openPage(browser, 390);
    // The refused comparison is a 422, which the browser logs; nothing else may be logged.
    expectConsoleErrors(/status of 422 .*\/v1\/compare\?/);
    await signIn(page);
    await page.goto(`${base()}/#/compare/${stable}/${rpl}`);
    await expect
      .poll(() => page.getByRole("alert").innerText())
      .toContain("base is a chain-determinism run, head a rpl run");
    expect(await page.locator(".cmp-result").count()).toBe(0);
    await screenshot(page, "compare-422");
    expect(foreignRequests(requests)).toEqual([]);
    await context.close();
  });
});
