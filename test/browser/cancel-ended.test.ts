// Issue 30: a cancel that comes after the run has ended answers 409 naming how it ended (never 200
// `running`). The dashboard shows the run as it ended, not an error, when that happens to a click.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { Browser } from "playwright-core";
import { base, browserMissing, DEV_KEY, launch, openPage, signIn, SKIP_REASON } from "./browser.ts";

const headers = { Authorization: `Bearer ${DEV_KEY}`, "Content-Type": "application/json" };

if (browserMissing) describe("cancel from the dashboard", () => it.skip(SKIP_REASON, () => {}));

describe.skipIf(browserMissing)("cancel from the dashboard", () => {
  let browser: Browser;
  beforeAll(async () => {
    browser = await launch();
  });
  afterAll(async () => {
    await browser?.close();
  });

  it("a click on Cancel for a run that has just ended shows the run as it ended", async () => {
    const created = await fetch(`${base()}/v1/chain-determinism/runs`, {
      method: "POST",
      headers,
      body: JSON.stringify({
        model: "sim:agent",
        n_queries: 5,
        n_replays: 20,
        concurrency: 1,
        simulator: { latency_ms: 2000 },
      }),
    });
    const { id } = (await created.json()) as { id: string };
    const { page, context, expectConsoleErrors } = await openPage(browser);
    // The browser logs the cancel's 409 (the run had ended); that one is expected, nothing else.
    expectConsoleErrors(/status of 409/);
    // The page never hears of the run's end: its event stream is held open with nothing sent.
    await page.route(`**/v1/runs/${id}/events**`, () => {});
    await signIn(page);
    await page.goto(`${base()}/#/runs/${id}`);
    const cancel = page.getByRole("button", { name: "Cancel run" });
    await cancel.waitFor();
    // Ended by someone else while the page still shows it running.
    expect((await fetch(`${base()}/v1/runs/${id}/cancel`, { method: "POST", headers })).status).toBe(200);
    await cancel.click();
    await expect.poll(() => page.locator("article.run").getAttribute("data-status")).toBe("canceled");
    expect(await page.getByRole("alert").count()).toBe(0);
    await context.close();
  });
});
