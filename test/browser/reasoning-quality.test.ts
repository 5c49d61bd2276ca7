// The reasoning-quality run page in a real browser: three simulator reasoners over the synthetic dataset
// and a small uploaded one (so the per-dataset breakdown exists); the radar, metrics, model × strategy
// table with ranks and the per-dataset table are checked against the run's result fetched over HTTP, and
// the CSV, XLSX and SVG downloaded from the page must be the API's bytes.
import { readFileSync } from "node:fs";
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
import { finalRun } from "../support/final-run.ts";

const headers = { Authorization: `Bearer ${DEV_KEY}`, "Content-Type": "application/json" };

type Raw = Record<string, number | null>;
type ModelResult = {
  model: string;
  raw_metrics: Raw;
  aggregated: Record<string, number>;
  per_dataset: Record<string, { raw_metrics: Raw; aggregated: Record<string, number>; num_samples: number }>;
  metadata: { num_samples: number };
};
type Result = {
  models: ModelResult[];
  rankings: Record<string, { model: string; q: number; rank: number }[]>;
  strategies: Record<string, Record<string, number>>;
};
type RunJson = { id: string; status: string; result: Result };

const METRICS = ["correctness", "consistency", "robustness", "logical_coherence", "efficiency", "stability"];
const four = (x: number | null) => (x === null ? "—" : x.toFixed(4));

async function api(path: string, init?: RequestInit): Promise<Response> {
  const res = await fetch(`${base()}${path}`, { headers, ...init });
  expect(res.ok, `${path}: ${res.status}`).toBe(true);
  return res;
}

/** Waits for the run to end and returns it. */
async function ended(id: string): Promise<RunJson> {
  return finalRun<RunJson>(base(), id, headers);
}

const text = (page: Page, selector: string) => page.locator(selector).first().textContent();

if (browserMissing) describe("the reasoning-quality run page", () => it.skip(SKIP_REASON, () => {}));

describe.skipIf(browserMissing)("the reasoning-quality run page", () => {
  let browser: Browser;
  let run: RunJson;

  beforeAll(async () => {
    browser = await launch();
    const dataset = (await (
      await api("/v1/reasoning-quality/datasets", {
        method: "POST",
        body: JSON.stringify({
          name: "arith",
          format: "json",
          items: [
            { question: "What is 2 + 3?", answer: "5", perturbations: ["Compute 3 + 2."] },
            { question: "What is 4 * 5?", answer: "20", perturbations: ["Compute 5 times 4."] },
            { question: "Is 7 prime? Answer yes or no.", answer: "yes", perturbations: ["Yes or no: is 7 a prime?"] },
          ],
        }),
      })
    ).json()) as { id: string };
    const created = (await (
      await api("/v1/reasoning-quality/runs", {
        method: "POST",
        body: JSON.stringify({
          models: [
            { name: "careful", model: "sim:reasoner", simulator: { accuracy: 0.9, verbosity: 6 } },
            { name: "quick", model: "sim:reasoner", simulator: { accuracy: 0.6, verbosity: 1, variation: 0.5 } },
            { name: "middling", model: "sim:reasoner", simulator: { accuracy: 0.75, verbosity: 3 } },
          ],
          datasets: [{ synthetic: { num_reasoning: 6, num_adversarial: 3, num_robustness: 3 } }, { id: dataset.id }],
          K: 3,
          P: 3,
          strategies: { my_mix: { correctness: 2, efficiency: 1 } },
        }),
      })
    ).json()) as { id: string };
    run = await ended(created.id);
    expect(run.status).toBe("succeeded");
  });

  afterAll(async () => {
    await browser?.close();
  });

  for (const width of [1280, 390]) {
    it(`shows the radar, the metrics, Q and rank per strategy and the per-dataset breakdown as the API has them (${width} px)`, async () => {
      const { page, context, requests } = await openPage(browser, width);
      await signIn(page);
      await page.goto(`${base()}/#/runs/${run.id}`);
      await page.locator('table[data-table="strategies"]').waitFor();
      const { result } = run;
      const strategies = Object.keys(result.strategies);
      expect(strategies).toContain("my_mix");

      // The radar (Chart.js) and the six metrics it is drawn from.
      await page.locator(`canvas[data-chart="Radar of each model's six metrics"]`).waitFor();
      for (const m of result.models) {
        for (const k of METRICS) {
          expect(
            await text(page, `table[data-table="metrics"] tr[data-model="${m.model}"] td[data-metric="${k}"]`),
            `${m.model} ${k}`,
          ).toBe(four(m.raw_metrics[k]));
        }
        expect(await text(page, `table[data-table="metrics"] tr[data-model="${m.model}"] td[data-col="n"]`)).toBe(
          String(m.metadata.num_samples),
        );
      }

      // Model × strategy: Q and the rank from `rankings`.
      for (const s of strategies) {
        for (const r of result.rankings[s]) {
          const cell = `table[data-table="strategies"] tr[data-strategy="${s}"] td[data-model="${r.model}"]`;
          expect(await text(page, `${cell} [data-col="q"]`), `${s} ${r.model}`).toBe(
            four(result.models.find((m) => m.model === r.model)!.aggregated[s]),
          );
          expect(await text(page, `${cell} [data-col="rank"]`)).toBe(`#${r.rank}`);
        }
      }

      // Score cards, best first under the first strategy.
      const cards = await page
        .locator(".score-card")
        .evaluateAll((els) => els.map((e) => e.getAttribute("data-model")));
      expect(cards).toEqual(result.rankings[strategies[0]].map((r) => r.model));

      // The per-dataset breakdown: a row per dataset × model, under the chosen strategy, and its chart.
      const datasets = Object.keys(result.models[0].per_dataset).sort();
      expect(datasets).toEqual(["arith", "synthetic"]);
      const checkDatasets = async (strategy: string) => {
        for (const d of datasets) {
          for (const m of result.models) {
            const row = `table[data-table="per-dataset"] tr[data-dataset="${d}"][data-model="${m.model}"]`;
            const per = m.per_dataset[d];
            expect(await text(page, `${row} [data-col="q"]`), `${d} ${m.model} ${strategy}`).toBe(
              four(per.aggregated[strategy]),
            );
            expect(await text(page, `${row} [data-col="n"]`)).toBe(String(per.num_samples));
            for (const k of METRICS)
              expect(await text(page, `${row} td[data-metric="${k}"]`)).toBe(four(per.raw_metrics[k]));
          }
        }
      };
      await checkDatasets(strategies[0]);
      await page.locator(`canvas[data-chart="Q per dataset under ${strategies[0]}"]`).waitFor();
      await screenshot(page, "reasoning-quality-run");

      // Another strategy: the cards and the per-dataset Q follow it.
      await page.getByLabel("Strategy", { exact: true }).selectOption("edge_device");
      await page.locator('canvas[data-chart="Q per dataset under edge_device"]').waitFor();
      expect(
        await page.locator(".score-card").evaluateAll((els) => els.map((e) => e.getAttribute("data-model"))),
      ).toEqual(result.rankings.edge_device.map((r) => r.model));
      await checkDatasets("edge_device");

      expect(foreignRequests(requests)).toEqual([]);
      await context.close();
    });
  }

  it("downloads the CSV, XLSX and SVG reports from the page, byte for byte the API's", async () => {
    const { page, context, requests } = await openPage(browser);
    await signIn(page);
    await page.goto(`${base()}/#/runs/${run.id}`);
    await page.locator('a[data-report="csv"]').waitFor();
    for (const [key, path, name] of [
      ["csv", "report.csv", `${run.id}.csv`],
      ["xlsx", "report.xlsx", `${run.id}.xlsx`],
      ["svg", "radar.svg", `${run.id}-radar.svg`],
    ]) {
      const [download] = await Promise.all([
        page.waitForEvent("download"),
        page.locator(`a[data-report="${key}"]`).click(),
      ]);
      expect(download.suggestedFilename()).toBe(name);
      const saved = readFileSync((await download.path())!);
      const fromApi = Buffer.from(await (await api(`/v1/runs/${run.id}/${path}`)).arrayBuffer());
      expect(saved.length, key).toBeGreaterThan(0);
      expect(saved.equals(fromApi), key).toBe(true);
      if (key === "csv")
        expect(saved.toString("utf8").split(/\r?\n/)[0]).toBe(
          "model,strategy,q,rank,correctness,consistency,robustness,logical_coherence,efficiency,stability",
        );
      if (key === "xlsx") expect(saved.subarray(0, 2).toString("latin1")).toBe("PK");
      if (key === "svg") expect(saved.toString("utf8")).toMatch(/^<svg[\s\S]*<\/svg>\s*$/);
    }
    expect(foreignRequests(requests)).toEqual([]);
    await context.close();
  });
});
