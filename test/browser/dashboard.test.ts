// The dashboard in a real browser: served by the Worker at `/`, signed in with an API key that never
// lands in a URL, the page or storage, runs listed with live progress and canceled, signed out for good.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { Browser } from "playwright-core";
import {
  base,
  browserMissing,
  DEV_KEY,
  foreignRequests,
  launch,
  openPage,
  ownAddress,
  screenshot,
  signIn,
  SKIP_REASON,
} from "./browser.ts";

const headers = { Authorization: `Bearer ${DEV_KEY}`, "Content-Type": "application/json" };

async function createRun(body: Record<string, unknown>): Promise<string> {
  const res = await fetch(`${base()}/v1/chain-determinism/runs`, {
    method: "POST",
    headers,
    body: JSON.stringify(body),
  });
  expect(res.status).toBe(202);
  return ((await res.json()) as { id: string }).id;
}

async function runStatus(id: string): Promise<string> {
  return ((await (await fetch(`${base()}/v1/runs/${id}`, { headers })).json()) as { status: string }).status;
}

if (browserMissing) describe("the dashboard", () => it.skip(SKIP_REASON, () => {}));

describe.skipIf(browserMissing)("the dashboard", () => {
  let browser: Browser;
  beforeAll(async () => {
    browser = await launch();
  });
  afterAll(async () => {
    await browser?.close();
  });

  it("is served at / to browsers with a policy that allows only its own origin; API clients still get links", async () => {
    const page = await fetch(`${base()}/`, { headers: { Accept: "text/html" } });
    expect(page.status).toBe(200);
    expect(page.headers.get("content-type")).toMatch(/^text\/html/);
    expect(page.headers.get("content-security-policy")).toContain("default-src 'self'");
    expect(page.headers.get("content-security-policy")).toContain("connect-src 'self'");
    expect(await page.text()).toContain('<div id="app">');
    const api = await fetch(`${base()}/`);
    expect(await api.json()).toMatchObject({ name: "assay", docs: "/docs" });
  });

  it("signs in with a key that never reaches a URL, the page or storage, and signing out ends access", async () => {
    const { page, context, requests, expectConsoleErrors } = await openPage(browser);
    // The wrong key's sign-in is a counted failure: sent from an address of its own (browser.ts).
    await context.setExtraHTTPHeaders(ownAddress());
    // The wrong key's sign-in is refused with a 401, which the browser logs; nothing else may be logged.
    expectConsoleErrors(/status of 401 .*\/v1\/session\)/);
    await page.goto(base() + "/");
    await page.getByLabel("API key").fill("assay_sk_wrong_key");
    await page.getByRole("button", { name: "Sign in" }).click();
    await expect.poll(() => page.getByRole("alert").textContent()).toContain("unknown or has been revoked");
    await screenshot(page, "sign-in");

    await signIn(page);
    await page.getByRole("heading", { name: "Runs" }).waitFor();
    expect(page.url()).not.toContain(DEV_KEY);
    expect(requests.some((u) => u.includes(DEV_KEY))).toBe(false);
    expect(await page.content()).not.toContain(DEV_KEY);
    // Evaluated in the page (a string, since the tests' own types have no DOM).
    const storage = await page.evaluate<string>(
      "JSON.stringify({ ...localStorage }) + JSON.stringify({ ...sessionStorage }) + document.cookie",
    );
    expect(storage).not.toContain(DEV_KEY);
    // The session cookie is HttpOnly (the page cannot read it) and sent only to the API's paths.
    const cookie = (await context.cookies()).find((c) => c.name === "assay_session")!;
    expect(cookie).toMatchObject({ name: "assay_session", httpOnly: true, sameSite: "Strict", path: "/v1" });
    expect(cookie.value).not.toContain(DEV_KEY);

    // A reload keeps the session; signing out ends it on the server: the old cookie no longer works.
    await page.reload();
    await page.getByRole("button", { name: "Sign out" }).waitFor();
    await page.getByRole("button", { name: "Sign out" }).click();
    await page.getByLabel("API key").waitFor();
    const replay = await fetch(`${base()}/v1/runs`, { headers: { Cookie: `assay_session=${cookie.value}` } });
    expect(replay.status).toBe(401);
    expect(foreignRequests(requests)).toEqual([]);
    await context.close();
  });

  it("lists runs with live progress, filters them, and cancels one", async () => {
    const done = await createRun({ model: "sim:agent", n_queries: 2, n_replays: 3 });
    const slow = await createRun({
      model: "sim:agent",
      n_queries: 5,
      n_replays: 20,
      concurrency: 1,
      simulator: { latency_ms: 2000 },
    });
    for (const width of [1280, 390]) {
      const { page, context, requests } = await openPage(browser, width);
      await signIn(page);
      const row = page.locator(`tr[data-run="${done}"]`);
      await expect.poll(() => row.locator(".status").textContent()).toBe("succeeded");
      await expect.poll(() => row.getByRole("progressbar").getAttribute("aria-valuenow")).toBe("6");
      await screenshot(page, "runs");
      await page.getByLabel("Status").selectOption("succeeded");
      await expect.poll(() => page.locator(`tr[data-run="${slow}"]`).count()).toBe(0);
      await expect.poll(() => page.locator(`tr[data-run="${done}"]`).count()).toBe(1);
      expect(foreignRequests(requests)).toEqual([]);
      await context.close();
    }
    const { page, context } = await openPage(browser);
    await signIn(page);
    const row = page.locator(`tr[data-run="${slow}"]`);
    await row.getByRole("button", { name: "Cancel" }).click();
    await expect.poll(() => row.locator(".status").textContent()).toBe("canceled");
    expect(await runStatus(slow)).toBe("canceled");
    await context.close();
  });
});
