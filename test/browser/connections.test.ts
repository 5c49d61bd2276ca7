// Saved provider connections in the dashboard: saved with a key the page never shows again, listed with
// its last four characters at most, rotated, deleted.
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

const KEY = "sk-dashboard-saved-key-0123456789abcd";
const ROTATED = "sk-dashboard-rotated-key-9876543210wxyz";

async function connections(): Promise<{ name: string; base_url: string; api_key_last4: string | null }[]> {
  const res = await fetch(`${base()}/v1/providers?limit=100`, { headers: { Authorization: `Bearer ${DEV_KEY}` } });
  return ((await res.json()) as { data: { name: string; base_url: string; api_key_last4: string | null }[] }).data;
}

if (browserMissing) describe("dashboard connections", () => it.skip(SKIP_REASON, () => {}));

describe.skipIf(browserMissing)("dashboard connections", () => {
  let browser: Browser;
  beforeAll(async () => {
    browser = await launch();
  });
  afterAll(async () => {
    await browser?.close();
  });

  it("saves, lists, rotates and deletes a connection; the key is never shown again", async () => {
    const name = `dash-conn-${Date.now().toString(36)}`;
    for (const width of [1280, 390]) {
      const { page, context, requests, expectConsoleErrors } = await openPage(browser, width);
      // The second save of the name is refused with a 409, which the browser logs; nothing else may be logged.
      expectConsoleErrors(/status of 409 .*\/v1\/providers\)/);
      await signIn(page);
      await page.getByRole("link", { name: "Connections" }).click();
      await page.getByRole("heading", { name: "Provider connections" }).waitFor();
      if (width === 1280) {
        await page.getByLabel("Name", { exact: true }).fill(name);
        await page.getByLabel("Base URL").fill("http://127.0.0.1:9/v1");
        await page.getByLabel("API key").fill(KEY);
        await page.getByRole("button", { name: "Save" }).click();
        const row = page.locator(`tr[data-connection="${name}"]`);
        await row.waitFor();
        expect(await row.textContent()).toContain(`…${KEY.slice(-4)}`);
        expect(await page.getByLabel("API key").inputValue()).toBe("");
        expect(await page.content()).not.toContain(KEY);
        expect((await connections()).find((c) => c.name === name)).toMatchObject({
          base_url: "http://127.0.0.1:9/v1",
          api_key_last4: KEY.slice(-4),
        });

        // A second save of the name is the API's 409, shown as its words; "Replace" rotates the key.
        await page.getByLabel("Name", { exact: true }).fill(name);
        await page.getByLabel("Base URL").fill("http://127.0.0.1:9/v1");
        await page.getByLabel("API key").fill(ROTATED);
        await page.getByRole("button", { name: "Save" }).click();
        await expect.poll(() => page.getByRole("alert").textContent()).toContain("Conflict");
        await page.getByLabel("Replace the connection").check();
        await page.getByRole("button", { name: "Save" }).click();
        await expect
          .poll(async () => (await connections()).find((c) => c.name === name)?.api_key_last4)
          .toBe(ROTATED.slice(-4));
      }
      await page.locator(`tr[data-connection="${name}"]`).waitFor();
      await screenshot(page, "connections");
      expect(foreignRequests(requests)).toEqual([]);
      expect(requests.some((u) => u.includes(KEY) || u.includes(ROTATED))).toBe(false);
      if (width === 390) {
        await page.getByRole("button", { name: `Delete ${name}` }).click();
        await expect.poll(() => page.locator(`tr[data-connection="${name}"]`).count()).toBe(0);
        expect((await connections()).some((c) => c.name === name)).toBe(false);
      }
      await context.close();
    }
  });
});
