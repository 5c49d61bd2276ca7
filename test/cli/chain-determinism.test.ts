// `assay chain-determinism eval|report|suite` and `assay suites …`: the harness's flags, console layout
// and files, checked against the run's own result and NDJSON export fetched over HTTP, and the
// harness's user-message layout checked against the spec's template.
import { mkdtempSync, readFileSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, inject, it } from "vitest";
import { cliDisplayKey } from "../../src/engines/chain-determinism/index.ts";
import { parseLossless } from "../../src/engines/python/index.ts";
import { recordedRequests, registerScenario, releaseScenario } from "../support/fake-openai.ts";
import { assay, outputContains } from "./assay.ts";

const server = () => inject("assayUrl");
const auth = { Authorization: "Bearer assay_sk_local_dev_key" };
const EXAMPLE_SUITE = join(import.meta.dirname, "..", "..", "examples", "chain-determinism", "suite.json");

async function getJson<T = any>(path: string): Promise<T> {
  const res = await fetch(`${server()}${path}`, { headers: auth });
  expect(res.status, path).toBe(200);
  return (await res.json()) as T;
}

async function getText(path: string, accept?: string): Promise<string> {
  const res = await fetch(`${server()}${path}`, { headers: { ...auth, ...(accept ? { Accept: accept } : {}) } });
  expect(res.status, path).toBe(200);
  return res.text();
}

const tmp = () => mkdtempSync(join(tmpdir(), "assay-cd-"));

/** The run id the header block names. */
function runIdOf(stdout: string): string {
  const m = /^ {4}run: {9}(run_\w+)$/m.exec(stdout);
  if (!m) throw new Error(`no run line in:\n${stdout}`);
  return m[1];
}

type Row = { query_id: string; run_idx: number; error_category: string | null; tool_call_sequence: unknown };

/** The API's per-replay rows (NDJSON export), read losslessly (a `1.0` in args stays a float). */
async function exportRows(runId: string): Promise<{ text: string; rows: Row[] }> {
  const text = await getText(`/v1/runs/${runId}/samples`, "application/x-ndjson");
  const rows = text
    .split("\n")
    .filter(Boolean)
    .map((l) => parseLossless(l) as unknown as Row);
  return { text, rows };
}

/**
 * The console the harness prints for this run, built from the API's own data: the per-query blocks
 * (ok = replays without error_category, unique_sequences = distinct display keys of those, spec §4),
 * then the summary from the result's numbers.
 */
async function expectedTail(
  runId: string,
  suiteId: string,
  nQueries: number,
): Promise<{ blocks: string; result: any }> {
  const run = await getJson(`/v1/runs/${runId}`);
  const suite = await getJson(`/v1/chain-determinism/suites/${suiteId}`);
  const { rows } = await exportRows(runId);
  const ids: string[] = suite.suite.queries.slice(0, nQueries).map((q: { query_id: string }) => q.query_id);
  let blocks = "";
  ids.forEach((id, i) => {
    const mine = rows.filter((r) => r.query_id === id);
    const ok = mine.filter((r) => !r.error_category);
    const unique = new Set(ok.map((r) => JSON.stringify(cliDisplayKey(r.tool_call_sequence)))).size;
    blocks += `\n  [${i + 1}/${ids.length}] ${id}\n      ok=${ok.length}/${mine.length}  unique_sequences=${unique}\n`;
  });
  return { blocks, result: run.result };
}

/** format_summary's first lines, from the result's numbers (spec §7). */
function rateLines(result: any): string[] {
  const pct = (x: number) => (100 * x).toFixed(1);
  const rate =
    result.divergence_rate === null
      ? "  rate: NOT MEASURABLE (no queries reached min_success)"
      : `  ${pct(result.divergence_rate)}%  [Wilson 95% CI ${pct(result.wilson_ci_95[0])}%, ${pct(result.wilson_ci_95[1])}%]`;
  return [
    "",
    `Chain-divergence rate for ${result.model}:`,
    rate,
    "",
    `  Diverged queries:    ${result.n_diverged} / ${result.n_measurable}`,
    `  Total replays:       ${result.n_total}`,
    `  Error replays:       ${result.n_errors}`,
  ];
}

describe("assay chain-determinism eval", () => {
  it("on the simulator prints the harness's layout: header block, one block per query, the rate with its Wilson CI", async () => {
    const out = await assay([
      "chain-determinism",
      "eval",
      "--model",
      "sim:agent",
      "--n-queries",
      "3",
      "--n-replays",
      "6",
      "--concurrency",
      "4",
    ]);
    expect(out.stderr).toContain("Ctrl-C cancels it");
    expect(out.code).toBe(0);
    const id = runIdOf(out.stdout);
    const suite = await getJson("/v1/chain-determinism/suites/default");
    const header = [
      "==> assay chain-determinism eval",
      "    model:       sim:agent",
      `    queries:     3  (out of ${suite.n_queries} in suite default)`,
      "    replays:     6 per query",
      "    total calls: 18",
      "    temperature: 0.0",
      "    concurrency: 4",
      "    endpoint:    simulator (no network)",
      `    suite:       default  ${suite.name}`,
      `    run:         ${id}`,
    ];
    const { blocks, result } = await expectedTail(id, "default", 3);
    expect(out.stdout).toBe(header.join("\n") + "\n" + blocks + result.summary_text);
    // The service's summary text is the harness's format_summary: check it against the numbers too.
    const lines = out.stdout.split("\n");
    const at = lines.indexOf(`Chain-divergence rate for sim:agent:`);
    expect(lines.slice(at - 1, at + 6)).toEqual(rateLines(result));
    expect(lines.filter((l) => /^ {2}\[\d\/3\] /.test(l))).toHaveLength(3);
  });

  it("on an OpenAI-compatible endpoint, with the key from OPENAI_API_KEY (never printed)", async () => {
    const url = inject("fakeOpenAIUrl");
    const model = "cli-cd-eval-openai";
    await registerScenario(url, { id: model, agent: { calls: 2 } });
    const key = "sk-cli-test-0123456789abcdef";
    const out = await assay(
      [
        "chain-determinism",
        "eval",
        "--model",
        model,
        "--base-url",
        url,
        "--n-queries",
        "2",
        "--n-replays",
        "5",
        "--timeout",
        "30",
      ],
      {
        env: { OPENAI_API_KEY: key },
      },
    );
    expect(out.code).toBe(0);
    expect(out.stdout + out.stderr).not.toContain(key);
    expect(out.stdout).toContain(`    endpoint:    ${url}\n`);
    const id = runIdOf(out.stdout);
    const run = await getJson(`/v1/runs/${id}`);
    expect(run.config).toMatchObject({
      model,
      provider: { base_url: url },
      n_queries: 2,
      n_replays: 5,
      temperature: 0,
      timeout_s: 30,
    });
    const { blocks, result } = await expectedTail(id, "default", 2);
    expect(out.stdout.endsWith(blocks + result.summary_text)).toBe(true);

    // The endpoint saw every call of 2 queries × 5 replays (2 tool calls, then final_answer), with that key.
    const requests = await recordedRequests(url, model);
    expect(requests).toHaveLength(2 * 5 * 3);
    for (const r of requests) {
      expect(r.headers.authorization).toBe(`***${key.slice(-4)}`);
      expect(r.body).toMatchObject({ model, temperature: 0, max_tokens: 1024, tool_choice: "auto" });
    }
  });

  it("takes OPENROUTER_API_KEY when it is the only key; an error replay is not ok; NOT MEASURABLE below min_success", async () => {
    const url = inject("fakeOpenAIUrl");
    const model = "cli-cd-eval-openrouter";
    // The first request of the run gets no choices: that replay ends with error_category "empty_choices".
    await registerScenario(url, {
      id: model,
      agent: { calls: 1 },
      faults: [{ on: { nth: 1 }, respond: { empty_choices: true } }],
    });
    const key = "sk-or-cli-test-abcdef0123";
    const out = await assay(
      ["chain-determinism", "eval", "--model", model, "--base-url", url, "--n-queries", "1", "--n-replays", "3"],
      { env: { OPENROUTER_API_KEY: key } },
    );
    expect(out.code).toBe(0);
    const { blocks, result } = await expectedTail(runIdOf(out.stdout), "default", 1);
    expect(out.stdout.endsWith(blocks + result.summary_text)).toBe(true);
    expect(blocks).toContain("      ok=2/3  unique_sequences=1\n");
    expect(out.stdout).toContain("  rate: NOT MEASURABLE (no queries reached min_success)\n");
    expect(out.stdout).toContain("  Error replays:       1\n");
    const requests = await recordedRequests(url, model);
    expect(requests).toHaveLength(1 + 2 * 2);
    expect(requests.every((r) => r.headers.authorization === `***${key.slice(-4)}`)).toBe(true);
  });

  it("--out writes the harness's summary JSON and --runs-out its per-replay rows, from the API's own output", async () => {
    const dir = tmp();
    const outPath = join(dir, "nested", "summary.json");
    const runsPath = join(dir, "runs.jsonl");
    const out = await assay([
      "chain-determinism",
      "eval",
      "--model",
      "sim:agent",
      "--n-queries",
      "2",
      "--n-replays",
      "7",
      "--out",
      outPath,
      "--runs-out",
      runsPath,
    ]);
    expect(out.code).toBe(0);
    const id = runIdOf(out.stdout);
    const runText = await getText(`/v1/runs/${id}`);
    const result = JSON.parse(runText).result;

    // Summary: {model, n_queries, n_replays, temperature, elapsed_s, **stats}, json.dumps(indent=2), floats as Python writes them.
    const written = readFileSync(outPath, "utf8");
    const parsed = JSON.parse(written);
    expect(Object.keys(parsed)).toEqual([
      "model",
      "n_queries",
      "n_replays",
      "temperature",
      "elapsed_s",
      "n_total",
      "n_errors",
      "n_measurable",
      "n_diverged",
      "divergence_rate",
      "wilson_ci_95",
      "per_query",
    ]);
    expect(parsed.elapsed_s).toBeGreaterThanOrEqual(0);
    // The float lexemes come from the API's own JSON (its result writes them as json.dumps does).
    const resultText = runText.slice(runText.indexOf('"result":'));
    const lexeme = (key: string) => new RegExp(`"${key}":(-?[\\d.eE+-]+)`).exec(resultText)![1];
    const wilson = /"wilson_ci_95":\[([^,\]]+),([^\]]+)\]/.exec(resultText)!;
    const harnessKeys = ["query_id", "n_total", "n_success", "diverged", "status", "n_unique_sequences"];
    const expected = {
      model: result.model,
      n_queries: result.n_queries,
      n_replays: result.n_replays,
      temperature: "@temperature",
      elapsed_s: "@elapsed",
      n_total: result.n_total,
      n_errors: result.n_errors,
      n_measurable: result.n_measurable,
      n_diverged: result.n_diverged,
      divergence_rate: "@rate",
      wilson_ci_95: ["@lo", "@hi"],
      per_query: result.per_query.map((q: Record<string, unknown>) =>
        Object.fromEntries(harnessKeys.filter((k) => k in q).map((k) => [k, q[k]])),
      ),
    };
    const elapsedLexeme = /"elapsed_s": ([^,]+),/.exec(written)![1];
    expect(elapsedLexeme).toMatch(/^\d+\.\d+$/);
    const expectedText =
      JSON.stringify(expected, null, 2)
        .replace('"@temperature"', lexeme("temperature"))
        .replace('"@elapsed"', elapsedLexeme)
        .replace('"@rate"', lexeme("divergence_rate"))
        .replace('"@lo"', wilson[1])
        .replace('"@hi"', wilson[2]) + "\n";
    expect(written).toBe(expectedText);
    expect(written).toContain('"temperature": 0.0,');

    // Rows: the API's lines as they are, in the harness's order (queries in suite order, replays by run_idx).
    const { text, rows } = await exportRows(id);
    const apiLines = text.split("\n").filter(Boolean);
    const fileLines = readFileSync(runsPath, "utf8").split("\n");
    expect(fileLines.pop()).toBe("");
    expect([...fileLines].sort()).toEqual([...apiLines].sort());
    const suite = await getJson("/v1/chain-determinism/suites/default");
    const order = suite.suite.queries
      .slice(0, 2)
      .flatMap((q: { query_id: string }) => Array.from({ length: 7 }, (_, r) => `${q.query_id}#${r}`));
    expect(fileLines.map((l) => JSON.parse(l)).map((r: Row) => `${r.query_id}#${r.run_idx}`)).toEqual(order);
    expect(rows).toHaveLength(14);
  });

  it("--runs-out works without --out (the harness would skip it), and --json prints the run", async () => {
    const dir = tmp();
    const runsPath = join(dir, "runs.jsonl");
    const out = await assay([
      "--json",
      "chain-determinism",
      "eval",
      "--model",
      "sim:agent",
      "--n-queries",
      "1",
      "--n-replays",
      "5",
      "--runs-out",
      runsPath,
    ]);
    expect(out.code).toBe(0);
    const run = JSON.parse(out.stdout);
    expect(run).toMatchObject({ evaluator: "chain-determinism", status: "succeeded" });
    expect(run.result).toEqual((await getJson(`/v1/runs/${run.id}`)).result);
    expect(readFileSync(runsPath, "utf8").trim().split("\n")).toHaveLength(5);
  });

  it("--max-divergence gates on divergence_rate: exit 0 when at or below, 3 when above", async () => {
    const codes: number[] = [];
    for (const [divergence, max] of [
      ["0", "0"],
      ["1", "0.1"],
    ]) {
      const out = await assay([
        "chain-determinism",
        "eval",
        "--model",
        "sim:agent",
        "--n-queries",
        "2",
        "--n-replays",
        "5",
        "--sim-divergence",
        divergence,
        "--max-divergence",
        max,
      ]);
      const { result } = await expectedTail(runIdOf(out.stdout), "default", 2);
      const pass = result.divergence_rate !== null && result.divergence_rate <= Number(max);
      expect(out.code).toBe(pass ? 0 : 3);
      expect(out.stderr).toContain(
        `gate ${pass ? "passed" : "FAILED"}: divergence_rate ${result.divergence_rate} ${pass ? "<=" : "not <="} ${Number(max)} (--max-divergence)`,
      );
      codes.push(out.code!);
    }
    // The simulator at 0 never departs from a query's plan, at 1 always: one run passes, the other fails.
    expect(codes).toEqual([0, 3]);
  });

  it("--detach starts the run and returns; report prints the layout and writes the files once it ended", async () => {
    const out = await assay([
      "chain-determinism",
      "eval",
      "--model",
      "sim:agent",
      "--n-queries",
      "2",
      "--n-replays",
      "5",
      "--detach",
    ]);
    expect(out.code).toBe(0);
    const id = runIdOf(out.stdout);
    expect(out.stderr).toContain(`detached: follow it with \`assay runs watch ${id}\``);
    expect(out.stdout).not.toContain("Chain-divergence rate");

    const dir = tmp();
    const reported = await assay(["chain-determinism", "report", id, "--out", join(dir, "s.json")]);
    expect(reported.code).toBe(0);
    expect(reported.stdout.startsWith("==> assay chain-determinism report\n")).toBe(true);
    const { blocks, result } = await expectedTail(id, "default", 2);
    expect(reported.stdout.endsWith(blocks + result.summary_text)).toBe(true);
    expect(JSON.parse(readFileSync(join(dir, "s.json"), "utf8")).n_total).toBe(result.n_total);

    const asJson = await assay([
      "--json",
      "chain-determinism",
      "eval",
      "--model",
      "sim:agent",
      "--n-queries",
      "1",
      "--detach",
    ]);
    expect(asJson.code).toBe(0);
    expect(JSON.parse(asJson.stdout)).toMatchObject({ status: "detached", id: expect.stringMatching(/^run_/) });

    const both = await assay([
      "chain-determinism",
      "eval",
      "--model",
      "sim:agent",
      "--detach",
      "--out",
      join(dir, "x.json"),
    ]);
    expect(both.code).toBe(2);
    expect(both.stderr).toContain("--out, --runs-out and --max-divergence need the result");
  });

  it("Ctrl-C cancels the run, says so, and exits 130", async () => {
    // The endpoint holds every request, so the run cannot end before the interrupt.
    const url = inject("fakeOpenAIUrl");
    const model = "cli-cd-ctrl-c";
    await registerScenario(url, { id: model, hold_after: 0 });
    try {
      const result = await assay(
        ["chain-determinism", "eval", "--model", model, "--base-url", url, "--n-queries", "1", "--n-replays", "5"],
        {
          env: { OPENAI_API_KEY: "sk-cli-test-ctrl-c-0123456789" },
          onSpawn: (child) =>
            void outputContains(child, "stderr", "Ctrl-C cancels it").then(() => child.kill("SIGINT")),
        },
      );
      expect(result.code).toBe(130);
      const id = runIdOf(result.stdout);
      expect(result.stderr).toContain(`interrupted: canceling run ${id}`);
      expect((await getJson(`/v1/runs/${id}`)).status).toBe("canceled");
    } finally {
      await releaseScenario(url, model);
    }
  });
});

describe("suites: ours and the harness's query layout", () => {
  it("uploads our suite JSON (suites upload and chain-determinism suite upload), lists it, gets it back", async () => {
    const file = JSON.parse(readFileSync(EXAMPLE_SUITE, "utf8"));
    const up = await assay(["suites", "upload", EXAMPLE_SUITE]);
    expect(up.code).toBe(0);
    const m = /^suite (ste_\w+) "library-desk": 3 queries, 5 tools, sha256 ([0-9a-f]{64})\n$/.exec(up.stdout);
    expect(m, up.stdout).not.toBeNull();
    const stored = await getJson(`/v1/chain-determinism/suites/${m![1]}`);
    expect(stored.suite).toEqual(file.suite);
    expect(stored.sha256).toBe(m![2]);

    const again = await assay([
      "--json",
      "chain-determinism",
      "suite",
      "upload",
      EXAMPLE_SUITE,
      "--name",
      "library-desk-2",
    ]);
    expect(again.code).toBe(0);
    const second = JSON.parse(again.stdout);
    expect(second).toMatchObject({ name: "library-desk-2", sha256: m![2], n_queries: 3 });

    const listed = JSON.parse((await assay(["--json", "suites", "list"])).stdout);
    expect(listed.map((x: { id: string }) => x.id)).toEqual(expect.arrayContaining([m![1], second.id]));
    const table = await assay(["suites", "list"]);
    expect(table.stdout.split("\n")[0].split(/\s+/)).toEqual(["id", "name", "queries", "tools", "created"]);

    // `get --json` is what upload takes back as it is (same sha256).
    const got = await assay(["--json", "suites", "get", m![1]]);
    const dir = tmp();
    writeFileSync(join(dir, "back.json"), got.stdout);
    const back = JSON.parse((await assay(["--json", "suites", "upload", join(dir, "back.json")])).stdout);
    expect(back.sha256).toBe(m![2]);
    const described = await assay(["suites", "get", "default"]);
    expect(described.stdout).toMatch(/^suite default ".+": 10 queries, \d+ tools, sha256 [0-9a-f]{64}\n/);

    // eval --suite takes the id, or the file itself (uploaded first).
    const byFile = await assay([
      "chain-determinism",
      "eval",
      "--model",
      "sim:agent",
      "--suite",
      EXAMPLE_SUITE,
      "--n-queries",
      "3",
      "--n-replays",
      "5",
    ]);
    expect(byFile.code).toBe(0);
    expect(byFile.stderr).toMatch(/uploaded suite ste_\w+ "library-desk" \(3 queries\)/);
    expect(byFile.stdout).toContain("    queries:     3  (out of 3 in suite ste_");
    expect(byFile.stdout).toMatch(
      /\n {2}\[1\/3\] lib-01\n {6}ok=5\/5 {2}unique_sequences=\d+\n\n {2}\[2\/3\] lib-02\n/,
    );

    const deleted = await assay(["suites", "delete", second.id]);
    expect(deleted.stdout).toBe(`suite ${second.id} deleted\n`);
  });

  // The harness's user-message layout (spec §2), written here from its template lines.
  const TEMPLATE = [
    "# Knowledge base id: {kb_id}",
    "(Use tool calls like `all_beliefs()` or `filter_beliefs(term=...)` to inspect contents.)",
    "Target term mentioned in the question: '{target_term}'",
    "",
    "Question: {question}",
    "",
    "Use the primitive tools to compute the answer; then call final_answer with just the value.",
  ];
  type HQ = { query_id: string; kb_id: string; target_term?: string | null; query_type?: string; question: string };
  const expectedUser = (q: HQ) =>
    TEMPLATE.filter((line) => !line.startsWith("Target term") || q.target_term)
      .map((line) => line.replace(/\{(\w+)\}/g, (_, k: string) => String(q[k as keyof HQ])))
      .join("\n");

  const QUERIES: HQ[] = [
    {
      query_id: "heldout::kb_lighthouse_01::author_productivity::lamp_rotation",
      kb_id: "kb_lighthouse_01",
      target_term: "lamp_rotation",
      query_type: "author_productivity",
      question: "Which keeper logged the most 'lamp_rotation' entries? Answer with a name.",
    },
    {
      query_id: "heldout::kb_lighthouse_01::count::none",
      kb_id: "kb_lighthouse_01",
      target_term: "",
      query_type: "count",
      question: "How many entries cost $& or more? Répondez en chiffres.",
    },
    {
      query_id: "heldout::kb_lighthouse_02::deepest_chain::fog_signal",
      kb_id: "kb_lighthouse_02",
      target_term: null,
      question: "What is the longest revision chain?",
    },
  ];
  const TOOLS = [
    {
      type: "function",
      function: {
        name: "all_entries",
        description: "Every entry.",
        parameters: { type: "object", additionalProperties: false, properties: {} },
      },
    },
    {
      type: "function",
      function: {
        name: "count",
        description: "How many.",
        parameters: {
          type: "object",
          additionalProperties: false,
          properties: { in: { type: "string" } },
          required: ["in"],
        },
      },
    },
    {
      type: "function",
      function: {
        name: "final_answer",
        description: "Answer.",
        parameters: {
          type: "object",
          additionalProperties: false,
          properties: { answer: { type: "string" } },
          required: ["answer"],
        },
      },
    },
  ];

  function harnessFiles() {
    const dir = tmp();
    writeFileSync(join(dir, "queries.json"), JSON.stringify(QUERIES, null, 2));
    writeFileSync(join(dir, "queries.jsonl"), QUERIES.map((q) => JSON.stringify(q)).join("\n") + "\n");
    writeFileSync(join(dir, "tools.json"), JSON.stringify(TOOLS));
    // One stub as text, one as JSON: the JSON one must be written as the harness writes stubs.
    writeFileSync(
      join(dir, "stubs.json"),
      '{"all_entries": "{\\"kind\\": \\"beliefs\\", \\"len\\": 5}", "count": {"value": 5, "kind": "int", "ratio": 1.0, "who": "é"}}',
    );
    writeFileSync(join(dir, "system.txt"), "You answer questions about a lighthouse log.\nUse the tools.\n");
    return dir;
  }

  it("uploads the harness's queries, rendering each user message as the harness does", async () => {
    const dir = harnessFiles();
    const registry = [
      "--tools",
      join(dir, "tools.json"),
      "--stubs",
      join(dir, "stubs.json"),
      "--system-prompt",
      join(dir, "system.txt"),
    ];
    const up = await assay([
      "--json",
      "chain-determinism",
      "suite",
      "upload",
      join(dir, "queries.json"),
      ...registry,
      "--name",
      "lighthouse",
    ]);
    expect(up.code, up.stderr).toBe(0);
    const suite = JSON.parse(up.stdout);
    expect(suite).toMatchObject({ name: "lighthouse", n_queries: 3, n_tools: 3 });
    const stored = (await getJson(`/v1/chain-determinism/suites/${suite.id}`)).suite;
    expect(stored.queries).toEqual([
      { query_id: QUERIES[0].query_id, query_type: "author_productivity", user: expectedUser(QUERIES[0]) },
      { query_id: QUERIES[1].query_id, query_type: "count", user: expectedUser(QUERIES[1]) },
      { query_id: QUERIES[2].query_id, user: expectedUser(QUERIES[2]) },
    ]);
    expect(stored.queries[1].user).not.toContain("Target term");
    expect(stored.tools).toEqual(TOOLS);
    // json.dumps(sort_keys=True): keys sorted, ", " and ": ", 1.0 kept, non-ASCII escaped.
    expect(stored.stubs).toEqual({
      all_entries: '{"kind": "beliefs", "len": 5}',
      count: '{"kind": "int", "ratio": 1.0, "value": 5, "who": "\\u00e9"}',
    });
    expect(stored.system_prompt).toBe("You answer questions about a lighthouse log.\nUse the tools.");

    // The same queries as JSON Lines, the registry taken from the first upload: the same suite.
    const lines = await assay([
      "--json",
      "suites",
      "upload",
      join(dir, "queries.jsonl"),
      "--from",
      suite.id,
      "--name",
      "lighthouse",
    ]);
    expect(lines.code, lines.stderr).toBe(0);
    expect(JSON.parse(lines.stdout).sha256).toBe(suite.sha256);

    // A dry run prints the request and needs no server.
    const dry = await assay(["suites", "upload", join(dir, "queries.json"), ...registry, "--dry-run"], {
      env: { ASSAY_URL: "http://127.0.0.1:9" },
    });
    expect(dry.code).toBe(0);
    expect(JSON.parse(dry.stdout).suite.queries[0].user).toBe(expectedUser(QUERIES[0]));

    // And it runs: the per-query blocks name its queries in order.
    const run = await assay([
      "chain-determinism",
      "eval",
      "--model",
      "sim:agent",
      "--suite",
      suite.id,
      "--n-queries",
      "3",
      "--n-replays",
      "5",
    ]);
    expect(run.code).toBe(0);
    const { blocks, result } = await expectedTail(runIdOf(run.stdout), suite.id, 3);
    expect(run.stdout.endsWith(blocks + result.summary_text)).toBe(true);
    expect(blocks).toContain(`  [3/3] ${QUERIES[2].query_id}\n`);
  });

  it("the harness's queries without the registry are a usage error (exit 2), naming the flags", async () => {
    const dir = harnessFiles();
    const up = await assay(["suites", "upload", join(dir, "queries.json")]);
    expect(up.code).toBe(2);
    expect(up.stderr).toContain("--tools FILE, --stubs FILE and --system-prompt FILE");
    const viaEval = await assay([
      "chain-determinism",
      "eval",
      "--model",
      "sim:agent",
      "--suite",
      join(dir, "queries.json"),
    ]);
    expect(viaEval.code).toBe(2);
    expect(viaEval.stderr).toContain("assay chain-determinism suite upload");
  });
});

describe("bad input", () => {
  it("a missing or malformed suite file is one line, exit 1", async () => {
    const dir = tmp();
    const missing = await assay([
      "chain-determinism",
      "eval",
      "--model",
      "sim:agent",
      "--suite",
      join(dir, "nope.json"),
    ]);
    expect(missing.code).toBe(1);
    expect(missing.stderr).toBe(`assay: cannot read ${join(dir, "nope.json")}: no such file\n`);
    writeFileSync(join(dir, "bad.json"), '{"name": "x", "suite": ');
    const bad = await assay(["suites", "upload", join(dir, "bad.json")]);
    expect(bad.code).toBe(1);
    expect(bad.stderr).toMatch(/^assay: .*bad\.json is not valid JSON: .+\n$/);
    writeFileSync(join(dir, "other.json"), '{"hello": "world"}');
    const other = await assay(["suites", "upload", join(dir, "other.json")]);
    expect(other.code).toBe(1);
    expect(other.stderr).toContain("is not a suite");
    const unknown = await assay(["chain-determinism", "eval", "--model", "sim:agent", "--suite", "ste_doesnotexist"]);
    expect(unknown.code).toBe(1);
    expect(unknown.stderr).toMatch(/^assay: no suite "ste_doesnotexist"/);
  });

  it("usage errors exit 2: unknown flag, missing --model, bad numbers, too many queries, no model key", async () => {
    const cases: [string[], RegExp][] = [
      [["chain-determinism", "eval", "--model", "sim:agent", "--bogus"], /unknown option '--bogus'/],
      [["chain-determinism", "eval"], /required option '--model <model>' not specified/],
      [
        ["chain-determinism", "eval", "--model", "sim:agent", "--n-replays", "0"],
        /--n-replays must be an integer of at least 1/,
      ],
      [
        ["chain-determinism", "eval", "--model", "sim:agent", "--temperature", "warm"],
        /--temperature must be a number/,
      ],
      [
        ["chain-determinism", "eval", "--model", "sim:agent", "--n-queries", "11"],
        /--n-queries 11: the suite default has 10 queries/,
      ],
      [
        ["chain-determinism", "eval", "--model", "sim:agent", "--max-divergence", "low"],
        /--max-divergence must be a number/,
      ],
      [["chain-determinism", "eval", "--model", "gpt-4.1"], /no model key: set OPENAI_API_KEY or OPENROUTER_API_KEY/],
      [["suites", "upload"], /missing required argument 'file'/],
    ];
    for (const [args, message] of cases) {
      const out = await assay(args);
      expect(out.code, args.join(" ")).toBe(2);
      expect(out.stderr, args.join(" ")).toMatch(message);
    }
  });
});
