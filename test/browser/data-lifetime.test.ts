// Issue 23, item 6, in the dashboard: a run page deletes its ended run after a confirmation, and the
// Storage page shows the tenant's usage and sets its retention.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { Browser } from "playwright-core";
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

const headers = { Authorization: `Bearer ${DEV_KEY}`, "Content-Type": "application/json" };
const api = (path: string, init: RequestInit = {}) => fetch(`${base()}${path}`, { headers, ...init });

async function finishedRun(): Promise<string> {
  const res = await api("/v1/chain-determinism/runs", {
    method: "POST",
    body: JSON.stringify({ model: "sim:agent", n_queries: 1, n_replays: 2, min_success: 2 }),
  });
  expect(res.status).toBe(202);
  const id = ((await res.json()) as { id: string }).id;
  await expect
    .poll(async () => ((await (await api(`/v1/runs/${id}`)).json()) as { status: string }).status)
    .toBe("succeeded");
  return id;
}

if (browserMissing) describe("the dashboard's data lifetime", () => it.skip(SKIP_REASON, () => {}));

describe.skipIf(browserMissing)("the dashboard's data lifetime", () => {
  let browser: Browser;
  beforeAll(async () => {
    browser = await launch();
  });
  afterAll(async () => {
    await browser?.close();
  });

  it("deletes an ended run from its page only once the confirmation is accepted", async () => {
    const id = await finishedRun();
    const { page, requests } = await openPage(browser);
    await signIn(page);
    await page.goto(`${base()}/#/runs/${id}`);
    await page.getByRole("button", { name: "Delete run" }).click();
    const dialog = page.getByRole("alertdialog");
    await expect.poll(() => dialog.textContent()).toContain("cannot be undone");
    await screenshot(page, "delete-run-confirm");
    // "Keep it" deletes nothing.
    await page.getByRole("button", { name: "Keep it" }).click();
    await page.getByRole("button", { name: "Delete run" }).waitFor();
    expect((await api(`/v1/runs/${id}`)).status).toBe(200);

    await page.getByRole("button", { name: "Delete run" }).click();
    await page.getByRole("button", { name: "Delete for good" }).click();
    await page.getByRole("heading", { name: "Runs" }).waitFor();
    expect(page.url()).toMatch(/#\/runs$/);
    expect((await api(`/v1/runs/${id}`)).status).toBe(404);
    await expect.poll(() => page.locator(`tr[data-run="${id}"]`).count()).toBe(0);
    expect(foreignRequests(requests)).toEqual([]);
  });

  it("offers no delete for a run that has not ended", async () => {
    const res = await api("/v1/chain-determinism/runs", {
      method: "POST",
      body: JSON.stringify({
        model: "sim:agent",
        n_queries: 5,
        n_replays: 20,
        concurrency: 1,
        simulator: { latency_ms: 2000 },
      }),
    });
    const id = ((await res.json()) as { id: string }).id;
    const { page } = await openPage(browser);
    await signIn(page);
    await page.goto(`${base()}/#/runs/${id}`);
    await page.getByRole("button", { name: "Cancel run" }).waitFor();
    expect(await page.getByRole("button", { name: "Delete run" }).count()).toBe(0);
    // Once canceled, it can be deleted.
    await page.getByRole("button", { name: "Cancel run" }).click();
    await page.getByRole("button", { name: "Delete run" }).waitFor();
  });

  it("shows the tenant's usage and sets its retention on the Storage page", async () => {
    await finishedRun();
    const usage = (await (await api("/v1/usage")).json()) as {
      runs: number;
      samples: number;
      quotas: Record<string, { limit: number; used: number }>;
    };
    const { page } = await openPage(browser);
    await signIn(page);
    await page.getByRole("link", { name: "Storage" }).click();
    await page.getByRole("heading", { name: "Storage" }).waitFor();
    await expect.poll(() => page.locator('[data-usage="runs"]').textContent()).toBe(String(usage.runs));
    expect(await page.locator('[data-usage="samples"]').textContent()).toBe(String(usage.samples));
    // Issue 30: the tenant sees its quotas, each with its limit.
    expect(await page.locator('[data-quota="concurrent_runs"] [data-limit]').textContent()).toBe(
      String(usage.quotas.concurrent_runs.limit),
    );
    expect(await page.locator('[data-quota="runs_per_minute"] [data-limit]').textContent()).toBe(
      String(usage.quotas.runs_per_minute.limit),
    );
    expect(await page.locator("[data-retention]").textContent()).toContain("30 days");

    await page.getByLabel("Days to keep an ended run").fill("45");
    await page.getByRole("button", { name: "Save" }).click();
    await page.getByRole("status").waitFor();
    expect(await (await api("/v1/settings")).json()).toEqual({ retention_days: 45 });
    expect(await page.locator("[data-retention]").textContent()).toContain("45 days");
    await page.getByLabel("Keep runs for ever").check();
    await page.getByRole("button", { name: "Save" }).click();
    await expect.poll(() => page.locator("[data-retention]").textContent()).toContain("for ever");
    expect(await (await api("/v1/settings")).json()).toEqual({ retention_days: null });
    await screenshot(page, "storage");

    // On a phone: the cards and the form fit the screen (nothing overflows sideways).
    const phone = await openPage(browser, 390);
    await signIn(phone.page);
    await phone.page.goto(`${base()}/#/storage`);
    await phone.page.locator('[data-usage="runs"]').waitFor();
    const overflow = await phone.page.evaluate(() => {
      const root = (
        globalThis as unknown as { document: { documentElement: { scrollWidth: number; clientWidth: number } } }
      ).document.documentElement;
      return root.scrollWidth - root.clientWidth;
    });
    expect(overflow).toBe(0);
    await screenshot(phone.page, "storage");
    await phone.context.close();
    // Back to the default, for the other files on this server.
    await api("/v1/settings", { method: "PUT", body: JSON.stringify({ retention_days: 30 }) });
  });
});
