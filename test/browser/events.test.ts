// Issue 23, item 4: the dashboard follows a run's live progress across the server's reconnects. The
// e2e server closes every event stream after a few polls (test/cli/setup.ts); the page must resume
// each time from the last event's id (Last-Event-ID), so that the events it received over all its
// connections are exactly the run's, and it ends showing the run as the API has it.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { Browser, Request } from "playwright-core";
import { base, browserMissing, DEV_KEY, launch, openPage, SKIP_REASON } from "./browser.ts";
import { expectExactly, parseSse, type SeenEvent } from "../support/run-events.ts";

const headers = { Authorization: `Bearer ${DEV_KEY}`, "Content-Type": "application/json" };

if (browserMissing) describe("the dashboard's live run", () => it.skip(SKIP_REASON, () => {}));

describe.skipIf(browserMissing)("the dashboard's live run", () => {
  let browser: Browser;
  beforeAll(async () => {
    browser = await launch();
  });
  afterAll(async () => {
    await browser?.close();
  });

  it("follows a run over several connections, each resuming after the last event it received", async () => {
    const res = await fetch(`${base()}/v1/chain-determinism/runs`, {
      method: "POST",
      headers,
      body: JSON.stringify({
        model: "sim:agent",
        n_queries: 2,
        n_replays: 10,
        concurrency: 1,
        simulator: { latency_ms: 300 },
      }),
    });
    expect(res.status).toBe(202);
    const runId = ((await res.json()) as { id: string }).id;

    const { page, context } = await openPage(browser);
    // Every connection the page opens to the run's stream, in order: the id it resumed from, and what
    // the server sent on it (read once the server has closed it).
    const streams: { request: Request; body?: string; failure?: string }[] = [];
    page.on("request", (r) => {
      if (r.url().endsWith(`/v1/runs/${runId}/events`)) streams.push({ request: r });
    });
    page.on("requestfinished", async (r) => {
      const s = streams.find((x) => x.request === r);
      if (s) s.body = (await (await r.response())?.text()) ?? "";
    });
    page.on("requestfailed", (r) => {
      const s = streams.find((x) => x.request === r);
      if (s) (s.failure = r.failure()?.errorText ?? "failed"), (s.body = "");
    });
    // Signed in on the run's own page, so that it is the one page following the run.
    await page.goto(`${base()}/#/runs/${runId}`);
    await page.getByLabel("API key").fill(DEV_KEY);
    await page.getByRole("button", { name: "Sign in" }).click();
    const article = page.locator(`article.run`);
    await expect.poll(() => article.getAttribute("data-status")).toBe("succeeded");
    await expect.poll(() => article.getByRole("progressbar").getAttribute("aria-valuenow")).toBe("20");
    await expect.poll(() => streams.every((s) => s.body !== undefined)).toBe(true);

    expect(streams.filter((s) => s.failure)).toEqual([]);
    expect(streams.length).toBeGreaterThanOrEqual(3);
    const seen: SeenEvent[] = [];
    let last: string | undefined;
    for (const [n, s] of streams.entries()) {
      // Each connection resumes from the last id the page had received: no gap, no repeat.
      expect((await s.request.allHeaders())["last-event-id"], `connection ${n + 1}`).toBe(last);
      const events = parseSse(s.body!);
      for (const e of events) {
        if (e.id !== undefined) last = e.id;
        if (e.event === "unit" || e.event === "progress" || e.event === "final")
          seen.push({ event: e.event, id: e.id!, data: JSON.parse(e.data!) });
      }
      const end = events.filter((e) => e.event).at(-1)?.event;
      expect(end, `connection ${n + 1}`).toBe(n === streams.length - 1 ? "final" : "reconnect");
    }
    await expectExactly(base(), DEV_KEY, seen, runId);
    await context.close();
  });
});
