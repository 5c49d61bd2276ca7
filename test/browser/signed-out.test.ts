// Issue 30: the signed-out dashboard's first load logged a console error (its session check answered
// 401), and /app/ (served by the assets, not the Worker) could be framed by any site. openPage fails a
// test on any console error it did not expect, and every page here is loaded signed out.
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { Browser } from "playwright-core";
import { base, browserMissing, launch, openPage, signIn, SKIP_REASON } from "./browser.ts";

describe.skipIf(browserMissing)("pages loaded signed out", () => {
  if (browserMissing) it.skip(SKIP_REASON, () => {});
  let browser: Browser;
  let framer: string;
  let framerServer: Server;
  beforeAll(async () => {
    browser = await launch();
    framerServer = createServer((req, res) => {
      const path = new URL(req.url!, "http://x").searchParams.get("path") ?? "/";
      res.setHeader("Content-Type", "text/html");
      res.end(
        `<!doctype html><title>another site</title><iframe src="${base()}${path}" width="800" height="600"></iframe>`,
      );
    });
    await new Promise<void>((resolve) => framerServer.listen(0, "127.0.0.1", resolve));
    framer = `http://127.0.0.1:${(framerServer.address() as AddressInfo).port}/`;
  });
  afterAll(async () => {
    await browser?.close();
    framerServer?.close();
  });

  it.each(["/", "/app/"])("%s shows the sign-in form without a console error or a session check", async (path) => {
    const { page, context, requests } = await openPage(browser);
    await page.goto(base() + path);
    await page.getByLabel("API key").waitFor();
    await page.waitForLoadState("networkidle");
    expect(requests.filter((u) => new URL(u).pathname.startsWith("/v1/"))).toEqual([]);
    await context.close();
  });

  it("after signing out, a reload asks nobody and logs nothing", async () => {
    const { page, context, requests } = await openPage(browser);
    await signIn(page);
    await page.getByRole("button", { name: "Sign out" }).click();
    await page.getByLabel("API key").waitFor();
    requests.length = 0;
    await page.reload();
    await page.getByLabel("API key").waitFor();
    await page.waitForLoadState("networkidle");
    expect(requests.filter((u) => new URL(u).pathname === "/v1/session")).toEqual([]);
    await context.close();
  });

  it("a session that ended elsewhere shows the sign-in form once, then the hint is gone", async () => {
    const { page, context, expectConsoleErrors } = await openPage(browser);
    // The one check that finds the session gone is answered 401, which the browser logs.
    expectConsoleErrors(/status of 401 .*\/v1\/session\)/);
    await signIn(page);
    await context.clearCookies({ name: "assay_session" });
    await page.reload();
    await page.getByLabel("API key").waitFor();
    expect((await context.cookies()).map((c) => c.name)).not.toContain("assay_signed_in");
    await context.close();
  });

  it("/docs renders the API reference under the pages' policy, with nothing from another origin", async () => {
    const { page, context, requests } = await openPage(browser);
    await page.goto(base() + "/docs");
    // Scalar lists the operations of /openapi.json once its script ran (inline scripts would be refused).
    await expect.poll(() => page.innerText("body")).toContain("Liveness check (no authentication)");
    expect(requests.filter((u) => new URL(u).origin !== new URL(base()).origin && !/^(data|blob):/.test(u))).toEqual(
      [],
    );
    await context.close();
  });

  /** Another origin's page (a loopback server of its own port, so Chromium treats it as a site like ours) framing `path`. */
  async function framed(path: string) {
    const watched = await openPage(browser);
    await watched.page.goto(`${framer}?path=${encodeURIComponent(path)}`);
    const frame = () => watched.page.frames().find((f) => f !== watched.page.mainFrame());
    await expect.poll(() => frame()?.url() ?? "").toMatch(/^(chrome-error:|http)/);
    return { ...watched, frame: frame()! };
  }

  it("the framing page can frame this origin where no policy forbids it (/healthz, JSON)", async () => {
    const { context, frame } = await framed("/healthz");
    expect(frame.url()).toBe(`${base()}/healthz`);
    await context.close();
  });

  it.each(["/", "/app/", "/docs"])("%s refuses to be framed by another site", async (path) => {
    const { context, frame, expectConsoleErrors } = await framed(path);
    // Chromium logs its refusal and shows its error page in place of ours.
    expectConsoleErrors(/violates the following Content Security Policy directive: "frame-ancestors 'none'"/);
    expect(frame.url()).toBe("chrome-error://chromewebdata/");
    expect(await frame.locator("input, #app, #api-reference").count()).toBe(0);
    await context.close();
  });
});
