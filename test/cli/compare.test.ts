// `assay compare BASE HEAD` (issue 18): the table, verdict and flipped items say what GET /v1/compare
// says; --fail-on-regression exits 3 only on a regression; an incomparable pair is one line, exit 1.
import { assert, beforeAll, describe, expect, inject, it } from "vitest";
import type { Comparison } from "@assay/sdk";
import { assay } from "./assay.ts";
import { apiCompare, createRun, succeeded, swappedReasoners, variant } from "../support/compare-runs.ts";

const server = () => inject("assayUrl");
const headers = { Authorization: "Bearer assay_sk_local_dev_key", "Content-Type": "application/json" };

/** The printed table's rows, cut into cells at runs of two or more spaces (cells hold single spaces). */
function tableRows(stdout: string): string[][] {
  const lines = stdout.split("\n");
  const header = lines.findIndex((l) => l.startsWith("metric "));
  expect(header).toBeGreaterThanOrEqual(0);
  expect(lines[header].split(/\s{2,}/)).toEqual(["metric", "base", "head", "delta", "interval", "p", "verdict"]);
  const rows: string[][] = [];
  for (const line of lines.slice(header + 2)) {
    if (!line.trim() || line.startsWith("(")) break;
    rows.push(line.split(/\s{2,}/));
  }
  return rows;
}

/** A printed figure against the API's: four decimals, "n/a" for null. */
function expectFigure(cell: string, value: number | null) {
  if (value === null) return expect(cell).toBe("n/a");
  expect(Math.abs(Number(cell) - value)).toBeLessThanOrEqual(0.00005 + 1e-12);
}

function expectTableMatches(stdout: string, c: Comparison) {
  const rows = tableRows(stdout);
  expect(rows).toHaveLength(c.metrics.length);
  c.metrics.forEach((m, i) => {
    const [name, base, head, delta, interval, p, verdict] = rows[i];
    const hib = m.higher_is_better as boolean | null;
    expect(name).toBe(hib === true ? m.name : hib === false ? `${m.name} ↓` : `${m.name} ↕`);
    expectFigure(base, m.base);
    expectFigure(head, m.head);
    expectFigure(delta, m.delta);
    if (m.delta !== null && m.delta > 0.00005) expect(delta.startsWith("+")).toBe(true);
    if (m.ci95 === null) expect(interval).toBe("n/a");
    else {
      const parts = /^\[(\S+), (\S+)\]$/.exec(interval);
      expect(parts, interval).not.toBeNull();
      expectFigure(parts![1], m.ci95[0]);
      expectFigure(parts![2], m.ci95[1]);
    }
    if (m.p_value === null) expect(p).toBe("n/a");
    else if (m.p_value < 0.0001) expect(p).toBe("<0.0001");
    else expectFigure(p, m.p_value);
    expect(verdict).toBe(m.verdict);
  });
  const directions = c.metrics.map((m) => m.higher_is_better as boolean | null);
  if (directions.includes(false)) expect(stdout).toContain("↓ lower is better");
  if (directions.includes(null)) expect(stdout).toContain("↕ no better direction, never judged");
  expect(stdout).toContain(`\nverdict: ${c.verdict}\n`);
  if (c.flipped.length) {
    expect(stdout).toContain(`\nflipped (${c.flipped.length}):\n`);
    for (const f of c.flipped.slice(0, 20)) expect(stdout).toContain(`\n  ${f.id}: ${f.base} → ${f.head}\n`);
  } else expect(stdout).toContain("\nflipped: none\n");
}

describe("assay compare", () => {
  // The same suite and settings; only the simulator's divergence differs: 0 never departs from a
  // query's usual plan, 0.9 departs on nine replays in ten, so nearly every query diverges.
  let stable = "";
  let diverging = "";
  beforeAll(async () => {
    const body = { model: "sim:agent", n_queries: 10, n_replays: 5, seed: 3 };
    [stable, diverging] = await Promise.all([
      createRun("chain-determinism", { ...body, simulator: { divergence: 0 } }),
      createRun("chain-determinism", { ...body, simulator: { divergence: 0.9 } }),
    ]);
    await Promise.all([succeeded(stable), succeeded(diverging)]);
  });

  it("prints the API's metrics, verdict and flipped queries; a rise in divergence is a regression", async () => {
    const api = await apiCompare(stable, diverging);
    // Known by construction, not from our output: paired by query, no query diverged in base.
    expect(api).toMatchObject({ evaluator: "chain-determinism", paired: true, verdict: "regressed" });
    const rate = api.metrics.find((m) => m.name === "divergence_rate")!;
    expect(rate).toMatchObject({ base: 0, verdict: "regressed", higher_is_better: false });
    expect(api.flipped.length).toBeGreaterThan(0);
    expect(api.flipped.every((f) => f.base === "stable" && f.head === "diverged")).toBe(true);

    const out = await assay(["compare", stable, diverging]);
    expect(out.stderr).toBe("");
    expect(out.code).toBe(0);
    expect(out.stdout.split("\n")[0]).toBe(
      `chain-determinism: base ${stable} → head ${diverging} (paired, 95% intervals, min effect 0)`,
    );
    expectTableMatches(out.stdout, api);
    const p = variant(api, "chain-determinism").details.pairing;
    assert(p.paired);
    expect(out.stdout).toContain(
      `paired by query: ${p.measurable_in_both} of ${p.queries} measurable in both runs; ${p.discordant.stable_to_diverged} stable → diverged, ${p.discordant.diverged_to_stable} diverged → stable`,
    );
  });

  it("--fail-on-regression exits 3 on a regression and 0 the other way round (improved)", async () => {
    const regressed = (await apiCompare(stable, diverging)).metrics
      .filter((m) => m.verdict === "regressed")
      .map((m) => m.name);
    expect(regressed).toContain("divergence_rate");
    const worse = await assay(["compare", stable, diverging, "--fail-on-regression"]);
    expect(worse.code).toBe(3);
    expect(worse.stderr).toBe(`gate FAILED: verdict regressed (${regressed.join(", ")}) (--fail-on-regression)\n`);
    expect(worse.stdout).toContain("\nverdict: regressed\n");

    const api = await apiCompare(diverging, stable);
    expect(api.verdict).toBe("improved");
    const better = await assay(["compare", diverging, stable, "--fail-on-regression"]);
    expect(better.code).toBe(0);
    expect(better.stderr).toBe("gate passed: verdict improved (--fail-on-regression)\n");
    expectTableMatches(better.stdout, api);
  });

  it("--json prints the API's comparison as it is, with the options passed on; the gate still applies", async () => {
    const res = await fetch(`${server()}/v1/compare?base=${stable}&head=${diverging}&confidence=0.9&min_effect=0.05`, {
      headers,
    });
    const api = await res.json();
    const out = await assay([
      "--json",
      "compare",
      stable,
      diverging,
      "--confidence",
      "0.9",
      "--min-effect",
      "0.05",
      "--fail-on-regression",
    ]);
    expect(JSON.parse(out.stdout)).toEqual(api);
    expect(api).toMatchObject({ confidence: 0.9, min_effect: 0.05 });
    expect(out.code).toBe(3);
  });

  it("runs that cannot be compared are the API's 422 in one line, exit 1 (not the gate's 3)", async () => {
    const rpl = await succeeded(
      await createRun("rpl", { claim: "Compare refuses two evaluators (cli).", model: "sim:rpl", K: 4, R: 1 }),
    );
    const out = await assay(["compare", stable, rpl, "--fail-on-regression"]);
    expect(out.code).toBe(1);
    expect(out.stdout).toBe("");
    expect(out.stderr.split("\n")).toHaveLength(2);
    expect(out.stderr).toMatch(/^assay: 422 .*evaluator: base is a chain-determinism run, head a rpl run/);
  });

  it("an unknown run is a 404 line, and bad options are usage errors (exit 2)", async () => {
    const missing = await assay(["compare", stable, "run_doesnotexist"]);
    expect(missing.code).toBe(1);
    expect(missing.stderr).toMatch(/^assay: 404 .*run_doesnotexist.*\n$/);
    for (const args of [
      ["--confidence", "1.5"],
      ["--confidence", "0.5"],
      ["--min-effect", "-1"],
      ["--min-effect", "x"],
    ]) {
      const out = await assay(["compare", stable, diverging, ...args]);
      expect(out.code, args.join(" ")).toBe(2);
      expect(out.stderr).toMatch(new RegExp(`^assay: ${args[0]} must be`));
    }
    expect((await assay(["compare", stable])).code).toBe(2);
  });
});

describe("assay compare, the other evaluators", () => {
  it("rpl: two models on one claim; the table, and the winner the API names", async () => {
    const body = { claim: "Compare two rpl models (cli).", K: 4, R: 1 };
    const [a, b] = await Promise.all([
      createRun("rpl", { ...body, model: "sim:rpl" }),
      createRun("rpl", { ...body, model: "sim:rpl-other" }),
    ]);
    await Promise.all([succeeded(a), succeeded(b)]);
    const api = await apiCompare(a, b);
    expect(api.evaluator).toBe("rpl");
    const out = await assay(["compare", a, b]);
    expect(out.code).toBe(0);
    expectTableMatches(out.stdout, api);
    const d = variant(api, "rpl").details;
    expect(d.dimension).toBe("model");
    // The prior moving is reported, never judged (the API gives it no better direction).
    expect(api.metrics.find((m) => m.name === "prob_true_rpl")).toMatchObject({
      higher_is_better: null,
      verdict: "no_change",
    });
    expect(out.stdout).toContain("\nvaries: model\n");
    expect(out.stdout).toContain(`\nwinner: ${d.winner.run_id ?? "none"} (rule: ${d.winner.rule})\n`);
  });

  it("judge: an honest panel against one with a critic always answering REJECT; consensus changes counted", async () => {
    const labels = ["KEEP", "REJECT", "SPLIT", "KEEP", "MERGE", "KEEP", "SPLIT", "REJECT"];
    const items = labels.map((expected, i) => ({ id: `cli-${i}`, query: `Compare question ${i}?`, expected }));
    const honest = (name: string) => ({ name, model: "sim:critic" });
    const rejecter = (name: string) => ({
      name,
      model: "sim:critic",
      simulator: { bias: { label: "REJECT", rate: 1 } },
    });
    const [a, b] = await Promise.all([
      createRun("judge", { items, critics: [honest("a"), honest("b"), honest("c")] }),
      createRun("judge", { items, critics: [honest("a"), rejecter("b"), rejecter("c")] }),
    ]);
    await Promise.all([succeeded(a), succeeded(b)]);
    const api = await apiCompare(a, b);
    // Two of three critics always answer REJECT: the consensus moves on every item not labelled REJECT (6 of 8).
    expect(api.flipped.map((f) => f.id)).toEqual(items.filter((it) => it.expected !== "REJECT").map((it) => it.id));
    const out = await assay(["compare", a, b, "--fail-on-regression"]);
    expectTableMatches(out.stdout, api);
    expect(out.stdout).toContain(`\nconsensus changed on ${api.flipped.length} of ${items.length} items\n`);
    expect(api.verdict).toBe("regressed");
    expect(out.code).toBe(3);
  });

  it("reasoning-quality: the same two models with their accuracies swapped; their ranks change", async () => {
    const [a, b] = await swappedReasoners();
    const api = await apiCompare(a, b);
    expect(api).toMatchObject({ evaluator: "reasoning-quality", paired: true, verdict: "regressed" });
    const out = await assay(["compare", a, b]);
    expect(out.code).toBe(0);
    expectTableMatches(out.stdout, api);
    const changes = Object.entries(variant(api, "reasoning-quality").details.rank_changes).flatMap(([s, list]) =>
      list.map((r) => `  ${s}: ${r.model} ${r.base_rank} → ${r.head_rank}`),
    );
    expect(changes.length).toBeGreaterThan(0);
    expect(out.stdout).toContain(`\nrank changes:\n${changes.join("\n")}\n`);
  });
});
