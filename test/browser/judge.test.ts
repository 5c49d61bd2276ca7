// The judge run page in a real browser: a panel of simulator critics (one noisy) and two critics on the
// fake OpenAI endpoint (one answers without JSON or off the vocabulary on marked items, one always fails),
// over items with `expected`; the page's grid, cards, per-critic agreement, pairwise alphas and contested
// queue are checked against the run's result and contested pages fetched over HTTP.
import { afterAll, beforeAll, describe, expect, inject, it } from "vitest";
import type { Browser, Page } from "playwright-core";
import { registerScenario } from "../support/fake-openai.ts";
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

type Verdict = { critic: string; kind: string; confidence: number; error: string | null };
type Item = {
  id: string;
  expected: string | null;
  consensus: string;
  agreement_pct: number;
  krippendorff_alpha: number | null;
  verdicts: Verdict[];
  contested: string[];
};
type Result = {
  labels: string[];
  counts: {
    items: number;
    verdicts: number;
    valid: number;
    errors: number;
    parse_failures: number;
    off_vocabulary: number;
    missing: number;
  };
  batch: {
    alpha: { alpha: number | null; pairable: number; units_used: number };
    per_critic: { critic: string; items: number; agree: number; rate: number | null }[];
    pairwise: { a: string; b: string; items: number; agree: number; rate: number | null; alpha: number | null }[];
  };
  contested: { threshold: number; count: number };
  accuracy: { items: number; correct: number; rate: number } | null;
  items: Item[];
};
type RunJson = { id: string; status: string; config: { critics: { name: string }[] }; result: Result };
type Contested = {
  id: string;
  consensus: string;
  verdicts: { critic_id: string; kind: string; reasoning: string; error: string | null }[];
};

async function api<T>(path: string, init?: RequestInit): Promise<T> {
  const res = await fetch(`${base()}${path}`, { headers, ...init });
  expect(res.ok, `${path}: ${res.status}`).toBe(true);
  return (await res.json()) as T;
}

/** Waits for the run to end and returns it. */
async function ended(id: string): Promise<RunJson> {
  return finalRun<RunJson>(base(), id, headers);
}

async function contestedAll(id: string, threshold?: number): Promise<Contested[]> {
  const out: Contested[] = [];
  let after: string | null = null;
  do {
    const q = new URLSearchParams({
      limit: "3",
      ...(threshold === undefined ? {} : { threshold: String(threshold) }),
      ...(after ? { after } : {}),
    });
    const page: { data: Contested[]; has_more: boolean; next_cursor: string | null } = await api(
      `/v1/judge/runs/${id}/contested?${q}`,
    );
    out.push(...page.data);
    after = page.has_more ? page.next_cursor : null;
  } while (after);
  return out;
}

/** What a grid cell must say, from the README's definition: no error is a vote; parse_fail; off_vocabulary: …; else ERROR. */
function expectedCell(v: Verdict | undefined): { text: string; kind: string } {
  if (!v) return { text: "—", kind: "missing" };
  if (v.error === null) return { text: v.kind, kind: "valid" };
  if (v.error === "parse_fail") return { text: "PARSE_FAIL", kind: "parse_fail" };
  if (v.error.startsWith("off_vocabulary")) return { text: v.kind, kind: "off_vocabulary" };
  return { text: "ERROR", kind: "error" };
}

const three = (x: number | null) => (x === null ? "n/a" : x.toFixed(3));
const pct = (x: number) => `${(x * 100).toFixed(1)}%`;

type GridCell = { item: string; critic: string; text: string; kind: string; bg: string };

async function readGrid(page: Page): Promise<{ cells: GridCell[]; consensus: Record<string, string> }> {
  return page.locator('table[data-table="verdicts"]').evaluate((table) => {
    // In the page (the tests' type-check has no DOM library).
    const style = (globalThis as unknown as { getComputedStyle(e: Element): { backgroundColor: string } })
      .getComputedStyle;
    const cells: GridCell[] = [];
    const consensus: Record<string, string> = {};
    for (const tr of table.querySelectorAll("tbody tr")) {
      const item = tr.getAttribute("data-item")!;
      consensus[item] = tr.querySelector('td[data-col="consensus"]')!.textContent!;
      for (const td of tr.querySelectorAll("td[data-critic]")) {
        cells.push({
          item,
          critic: td.getAttribute("data-critic")!,
          text: td.textContent!,
          kind: td.getAttribute("data-kind")!,
          bg: style(td).backgroundColor,
        });
      }
    }
    return { cells, consensus };
  });
}

if (browserMissing) describe("the judge run page", () => it.skip(SKIP_REASON, () => {}));

describe.skipIf(browserMissing)("the judge run page", () => {
  let browser: Browser;
  let run: RunJson;
  let contested: Contested[];

  beforeAll(async () => {
    browser = await launch();
    const fake = inject("fakeOpenAIUrl");
    const remote = `dash-judge-remote-${Date.now()}`;
    const broken = `dash-judge-broken-${Date.now()}`;
    await registerScenario(fake, {
      id: remote,
      text: '{"kind": "REJECT", "confidence": 0.55, "reasoning": "The remote critic rejects it."}',
      answers: [
        { contains: "[ramble]", content: "I would rather not answer in JSON today." },
        { contains: "[odd]", content: '{"kind": "MAYBE", "confidence": 0.5, "reasoning": "Neither, really."}' },
      ],
    });
    await registerScenario(fake, { id: broken, faults: [{ respond: { status: 400 } }] });
    const labels = ["KEEP", "REJECT", "SPLIT", "MERGE", "UNCLEAR"];
    const items = Array.from({ length: 8 }, (_, i) => ({
      id: `q${i + 1}`,
      query: `Candidate pair ${i + 1}${i === 2 ? " [ramble]" : i === 4 ? " [odd]" : ""}: do they share a universality class?`,
      expected: labels[i % labels.length],
    }));
    const created = await api<{ id: string }>("/v1/judge/runs", {
      method: "POST",
      body: JSON.stringify({
        items,
        seed: 7,
        critics: [
          { name: "strict", model: "sim:critic", prompt: "strict-reviewer@1" },
          { name: "general", model: "sim:critic" },
          { name: "noisy", model: "sim:critic", simulator: { noise: 0.6 } },
          { name: "remote", model: remote, provider: { base_url: fake } },
          { name: "broken", model: broken, provider: { base_url: fake } },
        ],
      }),
    });
    run = await ended(created.id);
    expect(run.status).toBe("succeeded");
    contested = await contestedAll(run.id);
  });

  afterAll(async () => {
    await browser?.close();
  });

  it("the run has votes, ERROR, PARSE_FAIL and off-vocabulary verdicts, and contested items (the page has something to show)", () => {
    const { counts } = run.result;
    expect(counts.errors).toBe(8);
    expect(counts.parse_failures).toBe(1);
    expect(counts.off_vocabulary).toBe(1);
    expect(counts.valid).toBe(30);
    expect(run.result.contested.count).toBeGreaterThan(0);
    expect(contested.length).toBe(run.result.contested.count);
  });

  for (const width of [1280, 390]) {
    it(`shows the verdict grid, batch cards, agreement, pairwise alphas and the contested queue as the API has them (${width} px)`, async () => {
      const { page, context, requests } = await openPage(browser, width);
      await signIn(page);
      await page.goto(`${base()}/#/runs/${run.id}`);
      await page.locator('table[data-table="verdicts"]').waitFor();
      const { result } = run;
      const critics = run.config.critics.map((c) => c.name);

      // The grid: a cell per item × critic saying what the verdict is; the consensus per item.
      const grid = await readGrid(page);
      const want = result.items.flatMap((item) =>
        critics.map((critic) => ({
          item: item.id,
          critic,
          ...expectedCell(item.verdicts.find((v) => v.critic === critic)),
        })),
      );
      expect(grid.cells.map(({ item, critic, text, kind }) => ({ item, critic, text, kind }))).toEqual(want);
      expect(grid.consensus).toEqual(Object.fromEntries(result.items.map((i) => [i.id, i.consensus])));

      // Coloured by label: one colour per label, and ERROR and PARSE_FAIL each their own, unlike any label's.
      const colorOf = new Map<string, Set<string>>();
      for (const c of grid.cells) {
        const key = c.kind === "valid" ? c.text : c.kind;
        colorOf.set(key, (colorOf.get(key) ?? new Set()).add(c.bg));
      }
      for (const colors of colorOf.values()) expect(colors.size).toBe(1);
      const firstColor = (k: string) => [...colorOf.get(k)!][0];
      const labelColors = result.labels.filter((l) => colorOf.has(l)).map(firstColor);
      expect(new Set(labelColors).size).toBe(labelColors.length);
      expect(labelColors).not.toContain(firstColor("error"));
      expect(labelColors).not.toContain(firstColor("parse_fail"));
      expect(firstColor("error")).not.toBe(firstColor("parse_fail"));

      // The legend counts the cells of each label and of ERROR and PARSE_FAIL.
      const legend = async (key: string) => (await page.locator(`[data-legend="${key}"] .count`).textContent())?.trim();
      expect(await legend("error")).toBe(String(result.counts.errors));
      expect(await legend("parse_fail")).toBe(String(result.counts.parse_failures));
      expect(await legend("off_vocabulary")).toBe(String(result.counts.off_vocabulary));
      for (const label of result.labels) {
        const n = result.items.reduce(
          (s, i) => s + i.verdicts.filter((v) => v.error === null && v.kind === label).length,
          0,
        );
        expect(await legend(label), label).toBe(String(n));
      }

      // Batch cards.
      const card = async (key: string) => (await page.locator(`[data-card="${key}"] .value`).textContent())?.trim();
      expect(await card("alpha")).toBe(three(result.batch.alpha.alpha));
      expect(await card("errors")).toBe(String(result.counts.errors));
      expect(await card("parse_failures")).toBe(String(result.counts.parse_failures));
      expect(await card("contested")).toBe(String(result.contested.count));
      expect(await card("accuracy")).toBe(pct(result.accuracy!.rate));

      // Per-critic agreement: a bar chart, and its numbers in a table.
      await page.locator('canvas[data-chart="Per-critic agreement with the consensus"]').waitFor();
      for (const c of result.batch.per_critic) {
        const row = page.locator(`table[data-table="per-critic"] tr[data-critic="${c.critic}"]`);
        expect(await row.locator('[data-col="rate"]').textContent()).toBe(three(c.rate));
        expect(await row.locator('[data-col="agree"]').textContent()).toBe(String(c.agree));
        expect(await row.locator('[data-col="items"]').textContent()).toBe(String(c.items));
      }

      // The pairwise alpha matrix, both halves.
      expect(result.batch.pairwise.length).toBe((critics.length * (critics.length - 1)) / 2);
      for (const p of result.batch.pairwise) {
        for (const [a, b] of [
          [p.a, p.b],
          [p.b, p.a],
        ]) {
          const cell = page.locator(`table[data-table="pairwise"] tr[data-critic="${a}"] td[data-critic="${b}"]`);
          expect(await cell.locator(".alpha").textContent(), `${a} × ${b}`).toBe(three(p.alpha));
          expect(await cell.locator(".agree").textContent()).toBe(`${p.agree}/${p.items}`);
        }
      }

      // The contested queue: every page of it, each verdict with its reasoning.
      const queue = page.locator(".contested-item");
      await page.locator("#judge-contested [data-count]").waitFor();
      expect(await queue.count()).toBe(contested.length);
      expect(await queue.evaluateAll((els) => els.map((e) => e.getAttribute("data-item")))).toEqual(
        contested.map((c) => c.id),
      );
      for (const item of contested) {
        const shown = await page.locator(`.contested-item[data-item="${item.id}"] li[data-critic]`).evaluateAll((lis) =>
          lis.map((li) => ({
            critic: li.getAttribute("data-critic"),
            reasoning: li.querySelector('[data-col="reasoning"]')?.textContent ?? "",
          })),
        );
        expect(shown).toEqual(item.verdicts.map((v) => ({ critic: v.critic_id, reasoning: v.reasoning })));
      }

      await screenshot(page, "judge-run");
      expect(foreignRequests(requests)).toEqual([]);
      await context.close();
    });
  }

  it("asks the contested queue again at another threshold", async () => {
    const { page, context } = await openPage(browser);
    await signIn(page);
    await page.goto(`${base()}/#/runs/${run.id}`);
    const queue = page.locator(".contested-item");
    await page.locator(`#judge-contested [data-count="${contested.length}"]`).waitFor();
    expect(await queue.count()).toBe(contested.length);
    // At 0 only items with fewer than two valid verdicts would be contested: every item here has three.
    const none = await contestedAll(run.id, 0);
    expect(none).toEqual([]);
    await page.getByLabel("Review threshold").fill("0");
    await page.getByRole("button", { name: "Apply" }).click();
    await page.getByText("No item is contested at this threshold.").waitFor();
    expect(await queue.count()).toBe(0);
    await page.getByLabel("Review threshold").fill("0.4");
    await page.getByRole("button", { name: "Apply" }).click();
    await page.locator(`#judge-contested [data-count="${contested.length}"]`).waitFor();
    expect(await queue.evaluateAll((els) => els.map((e) => e.getAttribute("data-item")))).toEqual(
      contested.map((c) => c.id),
    );
    await context.close();
  });
});
