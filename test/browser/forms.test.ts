// Issue 17, "New run forms": chain-determinism, rpl and judge started from their forms in a real browser,
// watched on their run page until they succeed, and checked against the run the API stored: its config
// holds what was typed (read back from the inputs, not from the page's own request builder).
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, inject, it } from "vitest";
import type { Browser, Locator, Page } from "playwright-core";
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
  type Watched,
} from "./browser.ts";
import { deleteScenario, recordedRequests, registerScenario } from "../support/fake-openai.ts";

const ROOT = join(import.meta.dirname, "..", "..");
const SUITE_FILE = join(ROOT, "examples/chain-determinism/suite.json");
const ITEMS_FILE = join(ROOT, "examples/judge/items.jsonl");
const headers = { Authorization: `Bearer ${DEV_KEY}`, "Content-Type": "application/json" };

type Json = Record<string, unknown>;

async function api(path: string, init: RequestInit = {}): Promise<{ status: number; body: Json }> {
  const res = await fetch(`${base()}${path}`, { ...init, headers: { ...headers, ...(init.headers ?? {}) } });
  const text = await res.text();
  return { status: res.status, body: text ? (JSON.parse(text) as Json) : {} };
}

let n = 0;
const unique = (prefix: string) => `${prefix}-${Date.now().toString(36)}-${n++}`;

async function openForm(browser: Browser, evaluator: string, width = 1280): Promise<Watched> {
  const watched = await openPage(browser, width);
  await signIn(watched.page);
  await watched.page.goto(`${base()}/#/new/${evaluator}`);
  await watched.page.getByRole("heading", { name: `New ${evaluator} run` }).waitFor();
  return watched;
}

/** Submits, lands on the new run's page, waits for it to end there; returns its id and final status text. */
async function submitAndWatch(page: Page): Promise<{ id: string; status: string | null }> {
  await page.getByRole("button", { name: "Start run" }).click();
  await page.waitForURL(/#\/runs\/run_/);
  const id = decodeURIComponent(page.url().split("#/runs/")[1]);
  // The run page follows the event stream; wait for any final state, then say which.
  await page
    .locator('article.run:is([data-status="succeeded"], [data-status="failed"], [data-status="canceled"])')
    .waitFor();
  return { id, status: await page.locator(".run-head .status").textContent() };
}

/** A number input's value as the form shows it (the fields left at their defaults included). */
async function numberIn(scope: Page | Locator, label: string): Promise<number> {
  return Number(await scope.getByLabel(label, { exact: true }).inputValue());
}

/** The page is no wider than the screen: nothing overflows sideways at 390 px. */
async function overflow(page: Page): Promise<number> {
  // Runs in the page; the tests' type library has no DOM, so the page's globals are reached untyped.
  return page.evaluate(() => {
    const root = (
      globalThis as unknown as { document: { documentElement: { scrollWidth: number; clientWidth: number } } }
    ).document.documentElement;
    return root.scrollWidth - root.clientWidth;
  });
}

if (browserMissing) describe("new run forms", () => it.skip(SKIP_REASON, () => {}));

describe.skipIf(browserMissing)("new run forms", () => {
  let browser: Browser;
  beforeAll(async () => {
    browser = await launch();
  });
  afterAll(async () => {
    await browser?.close();
  });

  it("chain-determinism: uploads a suite file, runs it on the simulator, and the run's config holds what was entered", async () => {
    const { page, context, requests } = await openForm(browser, "chain-determinism");
    await page.getByLabel("Upload a suite file (JSON)").setInputFiles(SUITE_FILE);
    await page.getByRole("status").filter({ hasText: "Uploaded" }).waitFor();
    // The suite the page uploaded is the tenant's newest, and it is the one selected.
    const suites = (await api("/v1/chain-determinism/suites")).body.data as {
      id: string;
      name: string;
      n_queries: number;
    }[];
    const suite = suites.find((s) => s.name === "library-desk")!;
    expect(suite).toBeDefined();
    expect(await page.getByLabel("Suite to run").inputValue()).toBe(suite.id);

    await page.getByLabel("Queries", { exact: true }).fill("2");
    await page.getByLabel("Replays per query").fill("3");
    await page.getByLabel("Temperature").fill("0.5");
    await page.getByLabel("Concurrency").fill("2");
    await page.getByLabel("Seed").fill("7");
    await page.getByLabel("Simulator divergence").fill("0.1");
    await page.getByText("More settings").click();
    await page.getByLabel("Min successful replays").fill("3");
    const untouched = {
      max_turns: await numberIn(page, "Max turns"),
      max_tokens: await numberIn(page, "Max tokens"),
      timeout_s: await numberIn(page, "Timeout per call (s)"),
      latency_ms: await numberIn(page, "Simulator latency (ms)"),
    };
    await screenshot(page, "new-chain-determinism");

    const { id, status } = await submitAndWatch(page);
    expect(status).toBe("succeeded");
    const run = (await api(`/v1/runs/${id}`)).body;
    expect(run.config).toEqual({
      model: "sim:agent",
      provider: null,
      timeout_s: untouched.timeout_s,
      seed: 7,
      simulator: { divergence: 0.1, latency_ms: untouched.latency_ms },
      suite: { id: suite.id, name: "library-desk", sha256: expect.any(String) },
      n_queries: 2,
      n_replays: 3,
      temperature: 0.5,
      concurrency: 2,
      max_turns: untouched.max_turns,
      max_tokens: untouched.max_tokens,
      min_success: 3,
    });
    expect(run.progress).toMatchObject({ total: 6 });
    expect(foreignRequests(requests)).toEqual([]);
    await context.close();
  });

  it("rpl: a claim on the simulator, and the run's config holds what was entered", async () => {
    const { page, context, requests } = await openForm(browser, "rpl");
    const claim = `Tariffs raise consumer prices (${unique("form")}).`;
    await page.getByLabel("Claim").fill(claim);
    await page.getByLabel("K (paraphrase slots)").fill("4");
    await page.getByLabel("R (replicates per slot)").fill("1");
    await page.getByLabel("B (bootstrap resamples)").fill("200");
    await page.getByLabel("Seed").fill("18446744073709551615");
    const version = await page.getByLabel("Prompt version(s)").inputValue();
    await page.getByText("More settings").click();
    const untouched = {
      max_output_tokens: await numberIn(page, "Max output tokens"),
      timeout_s: await numberIn(page, "Timeout per call (s)"),
    };
    // Left empty, the run adapts to its endpoint: its config shows the bound, the API's maximum.
    expect(await page.getByLabel("Concurrency", { exact: true }).inputValue()).toBe("");
    await screenshot(page, "new-rpl");

    const { id, status } = await submitAndWatch(page);
    expect(status).toBe("succeeded");
    const config = (await api(`/v1/runs/${id}`)).body.config as Json;
    expect(config.concurrency).toBe(100);
    expect(config).toMatchObject({
      claim,
      model: "sim:rpl",
      provider: null,
      prompt_version: version,
      K: 4,
      R: 1,
      T: null,
      B: 200,
      bootstrap_seed: "18446744073709551615",
      no_cache: false,
      ...untouched,
    });
    expect(config).not.toHaveProperty("preset");
    expect(foreignRequests(requests)).toEqual([]);
    await context.close();
  });

  it("judge: edits the panel, adds items, votes weighted; the run's config holds the panel and settings", async () => {
    const { page, context, requests } = await openForm(browser, "judge");
    const critic = (i: number) => page.locator(`fieldset[data-critic="${i}"]`);
    // The README's panel: strict, general, noisy. Drop "general", add one with its own prompt.
    expect(await critic(1).getByLabel("Name", { exact: true }).inputValue()).toBe("general");
    await page.getByRole("button", { name: "Remove critic general" }).click();
    await page.getByRole("button", { name: "Add critic" }).click();
    const added = critic(2);
    expect(await added.getByLabel("Name", { exact: true }).inputValue()).toBe("critic-3");
    await added.getByLabel("Name", { exact: true }).fill("own-words");
    await added.getByLabel("Prompt", { exact: true }).selectOption("own");
    await added.getByLabel("System prompt").fill("You are a careful reviewer. Output JSON only.");
    await added
      .getByLabel("Prompt template")
      .fill('Judge: {query}\nLabels: {labels}\nAnswer {{"kind": "<label>", "confidence": 0.9, "reasoning": "…"}}');
    await added.getByText("Weight, temperature, tokens, timeout").click();
    await added.getByLabel("Weight").fill("2");
    const noise = Number(await critic(1).getByLabel("Simulator noise").inputValue());

    await page.getByLabel("Item 1 query").fill("Bank failures and earthquake aftershocks: same universality class?");
    await page.getByLabel("Item 1 expected label").fill("KEEP");
    await page.getByRole("button", { name: "Add item" }).click();
    await page.getByLabel("Item 2 query").fill("Sandpiles and forest fires");
    await page.getByLabel("Item 2 expected label").fill("REJECT");
    const itemIds = [await page.getByLabel("Item 1 id").inputValue(), await page.getByLabel("Item 2 id").inputValue()];

    await page.getByLabel("Voting").selectOption("weighted");
    await page.getByLabel("Use confidence").uncheck();
    await page.getByLabel("Contested threshold").fill("0.5");
    await page.getByLabel("Seed").fill("3");
    const labels = (await page.getByLabel("Labels").inputValue()).split(",").map((s) => s.trim());
    await screenshot(page, "new-judge");

    const { id, status } = await submitAndWatch(page);
    expect(status).toBe("succeeded");
    const config = (await api(`/v1/runs/${id}`)).body.config as Json;
    const sim = (n: number) => ({ bias: null, noise: n, latency_ms: 0 });
    expect(config).toMatchObject({
      n_items: 2,
      labels,
      voting: {
        strategy: "weighted",
        kwargs: { use_confidence: false, weights: { strict: 1, noisy: 1, "own-words": 2 } },
      },
      contested_threshold: 0.5,
      seed: 3,
    });
    const critics = config.critics as Json[];
    expect(critics.map((c) => c.name)).toEqual(["strict", "noisy", "own-words"]);
    expect(critics[0]).toMatchObject({
      model: "sim:critic",
      prompt: { name: "strict-reviewer", version: 1 },
      simulator: sim(0),
    });
    expect(critics[1]).toMatchObject({ model: "sim:critic", simulator: sim(noise) });
    expect(critics[2]).toMatchObject({
      model: "sim:critic",
      weight: 2,
      prompt: { name: "inline", version: null },
      simulator: sim(0),
    });
    // The items typed in the rows are the ones judged, with their expected labels.
    const result = (await api(`/v1/runs/${id}`)).body.result as { items: { id: string; expected: string | null }[] };
    expect(result.items.map((it) => [it.id, it.expected])).toEqual([
      [itemIds[0], "KEEP"],
      [itemIds[1], "REJECT"],
    ]);
    expect(foreignRequests(requests)).toEqual([]);
    await context.close();
  });

  it("judge: items from an uploaded .jsonl file", async () => {
    const { page, context, requests } = await openForm(browser, "judge");
    await page.getByRole("radio", { name: "JSONL (paste or upload)" }).check();
    await page.getByLabel("Upload a .jsonl file").setInputFiles(ITEMS_FILE);
    await expect.poll(() => page.getByLabel("Items (JSONL)").inputValue()).toContain('"query_id": "q1"');
    const lines = (await page.getByLabel("Items (JSONL)").inputValue()).split("\n").filter((l) => l.trim());
    const { id, status } = await submitAndWatch(page);
    expect(status).toBe("succeeded");
    const config = (await api(`/v1/runs/${id}`)).body.config as Json;
    expect(config.n_items).toBe(lines.length);
    expect(foreignRequests(requests)).toEqual([]);
    await context.close();
  });

  it("a bad value shows the API's own error naming the field, and starts nothing", async () => {
    // What the API says about that value, asked directly.
    const direct = await api("/v1/chain-determinism/runs", {
      method: "POST",
      body: JSON.stringify({ model: "sim:agent", n_replays: 0 }),
    });
    expect(direct.status).toBe(400);
    const said = (direct.body.errors as { path: string; message: string }[]).find((e) => e.path === "n_replays")!;
    expect(said).toBeDefined();

    const { page, context, requests, expectConsoleErrors } = await openForm(browser, "chain-determinism");
    // Each refused start is the API's 400, which the browser logs; nothing else may be logged.
    expectConsoleErrors(/status of 400 .*\/v1\/(chain-determinism|judge|rpl)\/runs/);
    await page.getByLabel("Replays per query").fill("0");
    await page.getByRole("button", { name: "Start run" }).click();
    const alert = page.locator(".submit-bar [role=alert]");
    await alert.waitFor();
    expect(await alert.textContent()).toContain(`n_replays: ${said.message}`);
    expect(page.url()).toContain("#/new/chain-determinism");
    await screenshot(page, "new-run-error");

    // judge: a field the API checks beyond its schema (an expected label outside the vocabulary), by its path.
    await page.goto(`${base()}/#/new/judge`);
    await page.getByLabel("Item 1 query").fill("Sandpiles and forest fires");
    await page.getByLabel("Item 1 expected label").fill("MAYBE");
    await page.getByRole("button", { name: "Start run" }).click();
    await expect.poll(() => alert.textContent()).toContain("items.0.expected: 'MAYBE' is not in labels");
    // A pasted line that is not JSON is named by its line before anything is sent.
    await page.getByRole("radio", { name: "JSONL (paste or upload)" }).check();
    await page.getByLabel("Items (JSONL)").fill('{"id": "a", "query": "fine"}\n{not json');
    await page.getByRole("button", { name: "Start run" }).click();
    await expect.poll(() => alert.textContent()).toContain("items line 2: not JSON");
    expect(page.url()).toContain("#/new/judge");

    // rpl: an unknown prompt version among several is named by its place in the list.
    await page.goto(`${base()}/#/new/rpl`);
    await page.getByLabel("Claim").fill("Tariffs raise consumer prices.");
    await page.getByLabel("Prompt version(s)").fill("rpl-assay-v1, no-such-bank");
    await page.getByRole("button", { name: "Start run" }).click();
    await expect.poll(() => alert.textContent()).toContain("prompt_version.1: unknown prompt version 'no-such-bank'");
    expect(page.url()).toContain("#/new/rpl");
    expect(foreignRequests(requests)).toEqual([]);
    await context.close();
  });

  it("runs through a saved connection: the endpoint gets the saved key, the config names the connection", async () => {
    const fake = inject("fakeOpenAIUrl");
    const name = unique("forms-conn");
    const key = "sk-forms-saved-0123456789-wxyz";
    const scenario = unique("forms-agent");
    await registerScenario(fake, { id: scenario, agent: { calls: 2 } });
    const created = await api("/v1/providers", {
      method: "POST",
      body: JSON.stringify({ name, base_url: fake, api_key: key }),
    });
    expect(created.status).toBe(201);
    try {
      const { page, context, requests } = await openForm(browser, "chain-determinism");
      await page.getByLabel("Model from").selectOption(name);
      await page.getByLabel("Model name").fill(scenario);
      // No simulator knobs for a real endpoint.
      expect(await page.getByLabel("Simulator divergence").count()).toBe(0);
      await page.getByLabel("Queries", { exact: true }).fill("1");
      await page.getByLabel("Replays per query").fill("2");
      await page.getByText("More settings").click();
      await page.getByLabel("Min successful replays").fill("2");
      await screenshot(page, "new-chain-determinism-connection");

      const { id, status } = await submitAndWatch(page);
      expect(status).toBe("succeeded");
      const run = (await api(`/v1/runs/${id}`)).body as { config: Json; result: { endpoint: { requests: number } } };
      expect(run.config).toMatchObject({
        model: scenario,
        provider: { base_url: fake, connection: name },
        simulator: null,
        n_queries: 1,
        n_replays: 2,
      });
      const seen = await recordedRequests(fake, scenario);
      expect(seen.length).toBeGreaterThan(0);
      expect(seen.length).toBe(run.result.endpoint.requests);
      // The recorder keeps the bearer token's last four characters: the saved key's.
      expect(new Set(seen.map((r) => r.headers.authorization))).toEqual(new Set([`***${key.slice(-4)}`]));
      expect(foreignRequests(requests)).toEqual([]);
      await context.close();
    } finally {
      await api(`/v1/providers/${name}`, { method: "DELETE" });
      await deleteScenario(fake, scenario);
    }
  });

  it.each(["chain-determinism", "rpl", "judge"])("the %s form fits a 390 px screen", async (evaluator) => {
    const { page, context, requests } = await openForm(browser, evaluator, 390);
    if (evaluator === "judge") {
      await page.getByLabel("Item 1 query").fill("Bank failures and earthquake aftershocks: same universality class?");
      await page.getByRole("button", { name: "Add item" }).click();
    }
    if (evaluator === "rpl") await page.getByLabel("Claim").fill("Tariffs raise consumer prices.");
    await page
      .getByText(evaluator === "judge" ? "Weight, temperature, tokens, timeout" : "More settings")
      .first()
      .click();
    expect(await overflow(page)).toBeLessThanOrEqual(0);
    await screenshot(page, `new-${evaluator}`);
    expect(foreignRequests(requests)).toEqual([]);
    await context.close();
  });
});
