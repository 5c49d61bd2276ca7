// The dashboard's tests drive Debian's Chromium (never a browser download) with playwright-core, against
// the Worker that test/cli/setup.ts starts (wrangler dev, same origin for the page and the API).
import { existsSync, mkdirSync } from "node:fs";
import { join } from "node:path";
import { chromium, type Browser, type BrowserContext, type Page } from "playwright-core";
import { inject, onTestFinished } from "vitest";

export const CHROMIUM = process.env.CHROMIUM_PATH ?? "/usr/bin/chromium";
/** CI installs Chromium and sets BROWSER_REQUIRED=1: there the tests never skip. */
export const browserMissing = !existsSync(CHROMIUM) && process.env.BROWSER_REQUIRED !== "1";
export const SKIP_REASON = `skipped: no Chromium at ${CHROMIUM} (apt-get install chromium; CI installs it)`;

export const ARTIFACTS = join(import.meta.dirname, "..", "..", "test-artifacts", "screenshots");

export const DEV_KEY = "assay_sk_local_dev_key";

/**
 * Headers that give a request a client address of its own, for a test that fails a credential check
 * on purpose. Every e2e file talks to one wrangler dev from 127.0.0.1, and the Worker throttles failed
 * checks per address (20 a minute, docs/security.md): deliberate failures sent from there would eat the
 * other files' margin. wrangler dev passes a client-set `CF-Connecting-IP` through (Miniflare sets it
 * only when the client did not), as Cloudflare's edge would not: a test-only liberty, not a production path.
 *
 * Failures still counted against 127.0.0.1 in one e2e run, where the CLI sends the request and cannot
 * add the header: a wrong ADMIN_TOKEN (test/cli/admin.test.ts) and a wrong key (test/cli/runs.test.ts).
 * Two of the 20: a new deliberate failure from the CLI goes on this list, and the list stays short.
 */
export function ownAddress(): Record<string, string> {
  const [a, b, c] = crypto.getRandomValues(new Uint8Array(3));
  return { "CF-Connecting-IP": `10.${a}.${b}.${c}` };
}

export async function launch(): Promise<Browser> {
  return chromium.launch({
    executablePath: CHROMIUM,
    headless: true,
    // Root in a container needs --no-sandbox; the rest keeps Chromium from calling Google's hosts, which
    // this machine's closed network refuses (and which would break "nothing leaves the machine").
    args: [
      "--no-sandbox",
      "--disable-gpu",
      "--disable-quic",
      "--no-first-run",
      "--disable-background-networking",
      "--disable-component-update",
      "--disable-sync",
      "--disable-default-apps",
      "--disable-domain-reliability",
    ],
  });
}

export type Watched = {
  page: Page;
  context: BrowserContext;
  requests: string[];
  consoleErrors: string[];
  /** Console errors this test causes on purpose (a wrong key's 401, a refused form's 400); all others fail it. */
  expectConsoleErrors: (pattern: RegExp) => void;
};

/**
 * A fresh context and page that records every request it makes and every console error. Issue 30: any
 * console error or uncaught page error fails the test that opened the page, at its end, unless the test
 * said it expects that one: Chromium logs every failed load and every policy violation there.
 */
export async function openPage(browser: Browser, width = 1280): Promise<Watched> {
  const context = await browser.newContext({
    viewport: { width, height: width < 600 ? 844 : 900 },
    acceptDownloads: true,
  });
  // Not Playwright's 30 s per action: on a busy 2-core machine a page can take longer than that to
  // settle, and that is not what any test here checks. Still shorter than the test's own timeout, so
  // a wait that never ends fails naming what it waited for.
  context.setDefaultTimeout(200_000);
  context.setDefaultNavigationTimeout(200_000);
  const page = await context.newPage();
  const requests: string[] = [];
  const consoleErrors: string[] = [];
  const expected: RegExp[] = [];
  page.on("request", (r) => requests.push(r.url()));
  page.on("console", (m) => m.type() === "error" && consoleErrors.push(`${m.text()} (${m.location().url})`));
  page.on("pageerror", (e) => consoleErrors.push(String(e)));
  onTestFinished(() => {
    const unexpected = consoleErrors.filter((e) => !expected.some((p) => p.test(e)));
    if (unexpected.length)
      throw new Error(`the page logged ${unexpected.length} console error(s):\n${unexpected.join("\n")}`);
  });
  return { page, context, requests, consoleErrors, expectConsoleErrors: (p) => void expected.push(p) };
}

export const base = () => inject("assayUrl");

/** Signs in through the form, as a user does. */
export async function signIn(page: Page, key = DEV_KEY): Promise<void> {
  await page.goto(base() + "/");
  await page.getByLabel("API key").fill(key);
  await page.getByRole("button", { name: "Sign in" }).click();
  await page.getByRole("button", { name: "Sign out" }).waitFor();
}

/** Saves a screenshot of the page at its width as a test artifact (test-artifacts/screenshots/). */
export async function screenshot(page: Page, name: string): Promise<string> {
  mkdirSync(ARTIFACTS, { recursive: true });
  const width = page.viewportSize()?.width ?? 0;
  const path = join(ARTIFACTS, `${name}-${width}.png`);
  await page.screenshot({ path, fullPage: true });
  return path;
}

/** Every request went to the page's own origin (or was a data:/blob: URL the page made itself). */
export function foreignRequests(requests: string[]): string[] {
  const origin = new URL(base()).origin;
  return requests.filter((u) => !u.startsWith("data:") && !u.startsWith("blob:") && new URL(u).origin !== origin);
}
