// The reasoning-quality "New run" form in a real browser, the original's no-code flow: a CSV written here
// is previewed and uploaded (a bad one shows the API's own validation error), two simulator models are
// ticked, custom weights are normalised to 1 as they are typed, K and P are set, Run leads to the run's
// page, which follows it to `succeeded` and offers the Excel report. The run's config, read from the API,
// holds the uploaded dataset and the normalised weights.
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, inject, it } from "vitest";
import type { Browser } from "playwright-core";
import { recordedRequests, registerScenario } from "../support/fake-openai.ts";
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

const auth = { Authorization: `Bearer ${DEV_KEY}` };

const GOOD_CSV = [
  "question,answer",
  '"What is 2 + 3?",5',
  '"Is ice frozen water, yes or no?",yes',
  "What is 10 minus 4?,6",
  '"Which is larger, 7 or 9?",9',
  "",
].join("\n");
const QUESTIONS = [
  "What is 2 + 3?",
  "Is ice frozen water, yes or no?",
  "What is 10 minus 4?",
  "Which is larger, 7 or 9?",
];
// The second row has no answer: the API refuses the file and names the row.
const BAD_CSV = "question,answer\nWhat is 2 + 3?,5\nWhat is 1 + 1?,\n";

// Typed into the weight fields: 0.9 + 0.3 + 0 + 0.15 + 0.3 + 0 = 1.65 = 11 × 0.15, so the normalised
// weights are 6/11, 2/11, 0, 1/11, 2/11 and 0.
const TYPED = {
  Correctness: "0.9",
  Consistency: "0.3",
  Robustness: "0",
  "Logical coherence": "0.15",
  Efficiency: "0.3",
  Stability: "0",
};
const NORMALISED = {
  correctness: 6 / 11,
  consistency: 2 / 11,
  robustness: 0,
  logical_coherence: 1 / 11,
  efficiency: 2 / 11,
  stability: 0,
};

type RqRun = {
  status: string;
  calls: { requests: number } | null;
  config: {
    datasets: unknown[];
    custom_strategies: Record<string, Record<string, number>>;
    models: {
      name: string;
      model: string;
      base_url: string | null;
      connection?: string;
      simulator: { accuracy: number } | null;
    }[];
    metrics: { consistency_runs: number; robustness_perturbations: number };
    preset: string;
    n_items: number;
  };
  result: { models: { model: string }[]; strategies: Record<string, Record<string, number>> } | null;
};

async function apiUploadError(csv: string): Promise<{ path: string; message: string }> {
  const res = await fetch(`${base()}/v1/reasoning-quality/datasets`, {
    method: "POST",
    headers: { ...auth, "Content-Type": "application/json" },
    body: JSON.stringify({ name: "bad", format: "csv", csv }),
  });
  expect(res.status).toBe(400);
  return ((await res.json()) as { errors: { path: string; message: string }[] }).errors[0];
}

if (browserMissing) describe("the reasoning-quality form", () => it.skip(SKIP_REASON, () => {}));

describe.skipIf(browserMissing)("the reasoning-quality form", () => {
  let browser: Browser;
  let dir: string;
  beforeAll(async () => {
    browser = await launch();
    dir = mkdtempSync(join(tmpdir(), "assay-rq-form-"));
    writeFileSync(join(dir, "arith-questions.csv"), GOOD_CSV);
    writeFileSync(join(dir, "broken.csv"), BAD_CSV);
  });
  afterAll(async () => {
    await browser?.close();
    rmSync(dir, { recursive: true, force: true });
  });

  it.each([1280, 390])(
    "uploads a CSV with a preview, runs two simulator models with custom weights to succeeded, and downloads the Excel report (%i px)",
    async (width) => {
      const expectedError = await apiUploadError(BAD_CSV);
      const { page, context, requests, expectConsoleErrors } = await openPage(browser, width);
      // The refused upload: the browser logs its 400; nothing else may be logged.
      expectConsoleErrors(/status of 400 .*\/v1\/reasoning-quality\/datasets\)/);
      await signIn(page);
      await page.goto(`${base()}/#/new/reasoning-quality`);
      await page.getByRole("heading", { name: "New reasoning-quality run" }).waitFor();

      // A file the API refuses: the preview shows its rows, the alert the API's own words.
      await page.getByLabel("Dataset file").setInputFiles(join(dir, "broken.csv"));
      await page.locator('.rq-count[data-count="2"]').waitFor({ timeout: 0 });
      await page
        .getByRole("alert")
        .filter({ hasText: `${expectedError.path}: ${expectedError.message}` })
        .waitFor({ timeout: 0 });

      // The good file: its four rows previewed, uploaded, and stored as four items.
      await page.getByLabel("Dataset file").setInputFiles(join(dir, "arith-questions.csv"));
      await page.locator('.rq-count[data-count="4"]').waitFor({ timeout: 0 });
      const previewed = await page.locator(".rq-preview-table tbody tr td:first-child").allTextContents();
      expect(previewed).toEqual(QUESTIONS);
      const status = page.locator('.rq-upload-status[data-state="done"]');
      await status.waitFor({ timeout: 0 });
      const datasetId = (await status.getAttribute("data-dataset"))!;
      expect(datasetId).toMatch(/^ds_/);
      expect(await page.getByRole("alert").count()).toBe(0);
      const stored = (await (
        await fetch(`${base()}/v1/reasoning-quality/datasets/${datasetId}`, { headers: auth })
      ).json()) as { n_items: number; name: string; items: { question: string }[] };
      expect(stored).toMatchObject({ n_items: 4, name: "arith-questions" });
      expect(stored.items.map((i) => i.question)).toEqual(QUESTIONS);

      // Two simulator reasoners ticked, the third not.
      await page.getByRole("checkbox", { name: "Use careful" }).setChecked(true);
      await page.getByRole("checkbox", { name: "Use steady" }).setChecked(false);
      await page.getByRole("checkbox", { name: "Use quick" }).setChecked(true);

      // Custom weights, normalised as they are typed.
      await page.getByRole("radio", { name: /Custom weights/ }).check();
      await page.getByLabel("Strategy name").fill("clinical");
      for (const [label, value] of Object.entries(TYPED))
        await page.getByLabel(`${label} weight`, { exact: true }).fill(value);
      for (const [key, w] of Object.entries(NORMALISED)) {
        await expect.poll(() => page.locator(`output[data-metric="${key}"]`).textContent()).toBe(w.toFixed(3));
      }

      await page.getByLabel("K: runs per item (CS, SS)").fill("2");
      await page.getByLabel("P: perturbations per item (RS)").fill("1");
      // 2 models × 4 items × (K 2 + P 1)
      await expect.poll(() => page.locator(".rq-plan").getAttribute("data-calls")).toBe(String(2 * 4 * 3));
      await screenshot(page, "reasoning-quality-form");

      await page.getByRole("button", { name: "Run evaluation" }).click();
      await page.waitForURL(/#\/runs\/run_/);
      const runId = decodeURIComponent(page.url().split("#/runs/")[1]);
      const article = page.locator("article.run");
      await page
        .locator('article.run:is([data-status="succeeded"], [data-status="failed"], [data-status="canceled"])')
        .waitFor({ timeout: 0 });
      expect(await article.getAttribute("data-status")).toBe("succeeded");

      // What the API holds for the run: the uploaded dataset, the two models, K and P, the normalised weights.
      const run = (await (await fetch(`${base()}/v1/runs/${runId}`, { headers: auth })).json()) as RqRun;
      expect(run.status).toBe("succeeded");
      expect(run.config.datasets).toEqual([{ id: datasetId }]);
      expect(run.config.n_items).toBe(4);
      expect(run.config.models.map((m) => [m.name, m.simulator?.accuracy])).toEqual([
        ["careful", 0.9],
        ["quick", 0.6],
      ]);
      expect(run.config.metrics).toMatchObject({ consistency_runs: 2, robustness_perturbations: 1 });
      expect(run.config.preset).toBe("paper-v8");
      expect(Object.keys(run.config.custom_strategies)).toEqual(["clinical"]);
      const sent = run.config.custom_strategies.clinical;
      for (const [key, w] of Object.entries(NORMALISED)) expect(sent[key]).toBeCloseTo(w, 12);
      expect(Object.values(sent).reduce((a, b) => a + b, 0)).toBeCloseTo(1, 12);
      expect(run.result!.models.map((m) => m.model)).toEqual(["careful", "quick"]);
      expect(Object.keys(run.result!.strategies)).toContain("clinical");

      // The Excel report, downloaded from the run's page with the session cookie.
      const link = page.locator('a[data-report="xlsx"]');
      await link.waitFor();
      const [download] = await Promise.all([page.waitForEvent("download"), link.click()]);
      expect(download.suggestedFilename()).toBe(`${runId}.xlsx`);
      const bytes = readFileSync((await download.path())!);
      expect(bytes.subarray(0, 2).toString("latin1")).toBe("PK"); // an XLSX is a zip
      expect(bytes.includes(Buffer.from("xl/workbook.xml"))).toBe(true);
      await screenshot(page, "rq-run");

      expect(foreignRequests(requests)).toEqual([]);
      await context.close();
    },
  );

  it("runs a model of a saved connection on the synthetic generator; the key stays with the connection", async () => {
    const url = inject("fakeOpenAIUrl");
    const model = "dashboard-rq-connection";
    await registerScenario(url, { id: model, text: "Let me think. The answer is 42." });
    const name = `rq-form-${Date.now().toString(36)}`;
    const key = "sk-rq-form-connection-0123456789";
    const saved = await fetch(`${base()}/v1/providers`, {
      method: "POST",
      headers: { ...auth, "Content-Type": "application/json" },
      body: JSON.stringify({ name, base_url: url, api_key: key }),
    });
    expect(saved.status).toBe(201);

    const { page, context, requests } = await openPage(browser);
    await signIn(page);
    await page.goto(`${base()}/#/new/reasoning-quality`);
    await page.getByRole("radio", { name: "Synthetic generator" }).check();
    await page.getByLabel("Seed", { exact: true }).fill("7");
    await page.getByLabel("Reasoning items").fill("2");
    await page.getByLabel("Adversarial items").fill("0");
    await page.getByLabel("Robustness items").fill("1");
    await page.getByRole("checkbox", { name: "Use careful" }).setChecked(false);
    await page.getByRole("button", { name: "Add a model from a saved connection" }).click();
    await page.getByRole("combobox", { name: /^Connection/ }).selectOption(name);
    await page.getByLabel("Model at that endpoint").fill(model);
    await page.getByLabel("K: runs per item (CS, SS)").fill("1");
    await page.getByLabel("P: perturbations per item (RS)").fill("1");
    // 1 model × 3 items × (K 1 + P 1)
    await expect.poll(() => page.locator(".rq-plan").getAttribute("data-calls")).toBe("6");
    await screenshot(page, "reasoning-quality-form-connection");
    await page.getByRole("button", { name: "Run evaluation" }).click();
    await page.waitForURL(/#\/runs\/run_/);
    const runId = decodeURIComponent(page.url().split("#/runs/")[1]);
    await page
      .locator('article.run:is([data-status="succeeded"], [data-status="failed"], [data-status="canceled"])')
      .waitFor({ timeout: 0 });
    expect(await page.locator("article.run").getAttribute("data-status")).toBe("succeeded");

    const run = (await (await fetch(`${base()}/v1/runs/${runId}`, { headers: auth })).json()) as RqRun;
    expect(run.config.models).toEqual([
      expect.objectContaining({ name: "model-1", model, base_url: url, connection: name, simulator: null }),
    ]);
    expect(run.config.datasets).toEqual([
      { synthetic: { seed: 7, num_reasoning: 2, num_adversarial: 0, num_robustness: 1 } },
    ]);
    expect(run.config.n_items).toBe(3);
    // The endpoint got every call of the run, with the saved key (the fake records its last four).
    const seen = await recordedRequests(url, model);
    expect(seen.length).toBe(run.calls!.requests);
    expect(seen.length).toBeGreaterThan(0);
    for (const r of seen) {
      expect(r.headers.authorization).toBe(`***${key.slice(-4)}`);
      expect(r.body).toMatchObject({ model });
    }
    expect(requests.some((u) => u.includes(key))).toBe(false);
    expect(await page.content()).not.toContain(key);
    expect(foreignRequests(requests)).toEqual([]);
    await context.close();
  });
});
