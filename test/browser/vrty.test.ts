// The vrty playground in a real browser: a pair typed in is scored as it is typed, and the page shows the
// same composite, dimensions and explanations as POST /v1/vrty/score for that text; a JSONL batch of 1,205
// lines goes out in two requests (the API takes 1,000 pairs at most), and its histogram, count, mean, min
// and max equal what this test computes from the API's own batch scores.
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
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

const headers = { Authorization: `Bearer ${DEV_KEY}`, "Content-Type": "application/json" };
const DIMS = ["relevance", "coherence", "completeness", "conciseness"] as const;

type Result = Record<(typeof DIMS)[number] | "composite", number> & {
  explanations: Record<(typeof DIMS)[number], string>;
};

async function score(prompt: string, response: string): Promise<Result> {
  const res = await fetch(`${base()}/v1/vrty/score`, {
    method: "POST",
    headers,
    body: JSON.stringify({ prompt, response }),
  });
  expect(res.status).toBe(200);
  return (await res.json()) as Result;
}

const PROMPTS = [
  "How do vaccines train the immune system?",
  "What causes the seasons on Earth?",
  "Explain how a bill becomes law in the United States.",
  "Why is the sky blue?",
  "What is the capital of France?",
  "How does compound interest work?",
  "Describe the water cycle.",
];
const RESPONSES = [
  "Vaccines expose the immune system to a harmless antigen, so the body makes antibodies and memory cells.",
  "The tilt of the Earth's axis changes how directly sunlight strikes each hemisphere during the year.",
  "A bill passes both houses of Congress and is then signed by the President.",
  "Sunlight is scattered by the molecules of the air, and blue light is scattered the most.",
  "Paris is the capital of France.",
  "Interest is added to the principal, so later interest is earned on earlier interest as well.",
  "Water evaporates, condenses into clouds, falls as rain and flows back to the sea.",
  "Banana.",
  "I like turtles. Turtles are slow. The weather is nice today and the market closed higher.",
  "Yes yes yes yes yes yes.",
];

/** 1,205 pair lines with ids, one line that is not JSON, one pair without a response. */
function batchFile(): { text: string; pairs: unknown[] } {
  const pairs: unknown[] = [];
  for (let i = 0; i < 1204; i++) {
    const extra = i % 3 === 0 ? " " + RESPONSES[(i + 1) % RESPONSES.length] : "";
    pairs.push({
      id: `p${i}`,
      prompt: PROMPTS[i % PROMPTS.length],
      response: RESPONSES[(i * 7 + Math.floor(i / 70)) % RESPONSES.length] + extra,
    });
  }
  pairs.splice(600, 0, { id: "no-response", prompt: PROMPTS[0] });
  const lines = pairs.map((p) => JSON.stringify(p));
  lines.splice(10, 0, "{this is not json");
  return { text: lines.join("\n") + "\n", pairs };
}

/** Waits (without a time limit of its own) until the page shows this composite, settled. */
async function composite(page: Page, value: number): Promise<void> {
  await page
    .locator(`.vrty-result:not(.stale) .card[data-dim="composite"] .value[data-value="${value}"]`)
    .waitFor({ timeout: 0 });
}

const dimValue = (page: Page, dim: string) =>
  page.locator(`.card[data-dim="${dim}"] .value`).getAttribute("data-value");

if (browserMissing) describe("the vrty playground", () => it.skip(SKIP_REASON, () => {}));

describe.skipIf(browserMissing)("the vrty playground", () => {
  let browser: Browser;
  let dir: string;
  let file: { text: string; pairs: unknown[] };
  beforeAll(async () => {
    browser = await launch();
    dir = mkdtempSync(join(tmpdir(), "assay-vrty-"));
    file = batchFile();
    writeFileSync(join(dir, "pairs.jsonl"), file.text);
  });
  afterAll(async () => {
    await browser?.close();
    rmSync(dir, { recursive: true, force: true });
  });

  it.each([1280, 390])("scores a pair as it is typed, equal to POST /v1/vrty/score (%i px)", async (width) => {
    const { page, context, requests } = await openPage(browser, width);
    await signIn(page);
    await page.goto(`${base()}/#/vrty`);
    await page.getByRole("heading", { name: "vrty playground" }).waitFor();

    const prompt = "How do vaccines train the immune system?";
    const first = "Vaccines expose the immune system to a harmless antigen.";
    await page.getByLabel("Prompt").fill(prompt);
    await page.getByLabel("Response").fill(first);
    const api = await score(prompt, first);
    await composite(page, api.composite);
    expect(await page.locator('.card[data-dim="composite"] .value').textContent()).toBe(api.composite.toFixed(4));
    for (const d of DIMS) expect(await dimValue(page, d)).toBe(String(api[d]));
    expect(await page.locator(".vrty-explanations li").allTextContents()).toEqual(DIMS.map((d) => api.explanations[d]));
    expect(await page.locator('canvas[data-chart="vrty dimensions and composite"]').count()).toBe(1);

    // Typing on, key by key: the page follows to the score of the whole new text.
    const more = " The body then makes antibodies and memory cells, so later infections are fought off faster.";
    await page.getByLabel("Response").pressSequentially(more);
    const after = await score(prompt, first + more);
    expect(after.composite).not.toBe(api.composite);
    await composite(page, after.composite);
    expect(await page.locator(".vrty-explanations li").allTextContents()).toEqual(
      DIMS.map((d) => after.explanations[d]),
    );
    await screenshot(page, "vrty");

    expect(foreignRequests(requests)).toEqual([]);
    await context.close();
  });

  it.each([1280, 390])(
    "scores a JSONL batch in requests of at most 1,000 pairs and shows the distribution of the API's composites (%i px)",
    async (width) => {
      // The API's scores for the same pairs, in two requests of this test's own making.
      const composites: number[] = [];
      let failed = 0;
      for (let start = 0; start < file.pairs.length; start += 1000) {
        const res = await fetch(`${base()}/v1/vrty/score/batch`, {
          method: "POST",
          headers,
          body: JSON.stringify({ pairs: file.pairs.slice(start, start + 1000) }),
        });
        expect(res.status).toBe(200);
        const body = (await res.json()) as { results: { result?: { composite: number } }[]; failed: number };
        for (const r of body.results) if (r.result) composites.push(r.result.composite);
        failed += body.failed;
      }
      expect(failed).toBe(1);
      const counts = Array<number>(10).fill(0);
      for (const c of composites) counts[c >= 1 ? 9 : Math.floor(c * 10)]++;
      expect(counts.filter((n) => n > 0).length).toBeGreaterThan(2); // a spread worth a histogram
      const mean = composites.reduce((a, b) => a + b, 0) / composites.length;

      const { page, context, requests } = await openPage(browser, width);
      await signIn(page);
      await page.goto(`${base()}/#/vrty`);
      await page.getByLabel("Batch file (JSONL)").setInputFiles(join(dir, "pairs.jsonl"));
      await page.locator('.vrty-batch-result[data-phase="done"]').waitFor({ timeout: 0 });

      const batchCalls = requests.filter((u) => new URL(u).pathname === "/v1/vrty/score/batch");
      expect(batchCalls).toHaveLength(2);
      const stat = (name: string) => page.locator(`.card[data-stat="${name}"] .value`).getAttribute("data-value");
      expect(await stat("count")).toBe(String(composites.length));
      expect(await stat("refused")).toBe("2"); // the pair without a response, and the line that is not JSON
      expect(Number(await stat("mean"))).toBeCloseTo(mean, 12);
      expect(Number(await stat("min"))).toBe(Math.min(...composites));
      expect(Number(await stat("max"))).toBe(Math.max(...composites));
      const shown = await page.locator("table[data-histogram] td.count").allTextContents();
      expect(shown.map(Number)).toEqual(counts);
      expect(await page.locator('canvas[data-chart="histogram of vrty composites"]').count()).toBe(1);
      expect(
        Number(await page.locator(".vrty-lowest tbody tr").first().locator("td.composite").getAttribute("data-value")),
      ).toBe(Math.min(...composites));
      expect(
        await page
          .locator(".vrty-refused tbody tr")
          .evaluateAll((rows) => rows.map((r) => r.getAttribute("data-line"))),
      ).toEqual(["11", "602"]);
      await screenshot(page, "vrty-batch");

      expect(foreignRequests(requests)).toEqual([]);
      await context.close();
    },
  );
});
