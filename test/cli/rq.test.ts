// `assay rq run|report` and `assay datasets upload|list`: the original's config.yaml in, its outputs
// folder and console table out, checked against the run as the API itself serves it.
import { describe, expect, inject, it } from "vitest";
import { mkdtempSync, readdirSync, readFileSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { assay } from "./assay.ts";

const server = () => inject("assayUrl");
const auth = { Authorization: "Bearer assay_sk_local_dev_key" };

type Metrics = Record<string, number | null>;
type ModelResult = {
  model: string;
  raw_metrics: Metrics;
  aggregated: Record<string, number>;
  calls: { made: number };
  [k: string]: unknown;
};
type RqRun = {
  id: string;
  status: string;
  config: {
    models: {
      name: string;
      model: string;
      base_url: string | null;
      temperature: number;
      max_tokens: number;
      simulator: { accuracy: number } | null;
    }[];
    metrics: Record<string, number>;
    n_items: number;
  };
  result: {
    models: ModelResult[];
    rankings: Record<string, { model: string; rank: number }[]>;
    strategies: Record<string, Record<string, number>>;
  };
};

async function api<T>(path: string): Promise<T> {
  const res = await fetch(`${server()}${path}`, { headers: auth });
  expect(res.status, path).toBe(200);
  return (await res.json()) as T;
}

async function bytes(path: string): Promise<Buffer> {
  const res = await fetch(`${server()}${path}`, { headers: auth });
  expect(res.status, path).toBe(200);
  return Buffer.from(await res.arrayBuffer());
}

/** A fresh working directory holding the given files. */
function workdir(files: Record<string, string>): string {
  const dir = mkdtempSync(join(tmpdir(), "assay-rq-"));
  for (const [name, text] of Object.entries(files)) writeFileSync(join(dir, name), text);
  return dir;
}

const runIdOf = (stderr: string) => /run (run_[A-Za-z0-9_-]+) started/.exec(stderr)?.[1] ?? "";

/** The items of the JSON dataset below, in the original's layout; q2 has no perturbations. */
const ITEMS = [
  {
    id: "q1",
    question: "What is 2 + 2?",
    answer: "4",
    type: "reasoning",
    perturbations: ["What does 2 plus 2 equal?", "Calculate the sum of 2 and 2."],
  },
  { id: "q2", question: "What is the capital of France?", answer: "Paris", type: "reasoning" },
];

/** A config in the original's layout (its config_test.yaml's shape): two mock models, synthetic + a JSON file. */
const MOCK_CONFIG = (datasetName: string) => `
experiment:
  name: "QuickTest"
  seed: 7
  deterministic: false
  output_dir: "outputs"

models:
  - name: "Mock-Model"
    type: "mock"
    params:
      accuracy_level: 0.9
  - name: "Mock/Weak"
    type: "mock"
    params:
      accuracy_level: 0.2

datasets:
  - name: "synthetic"
    type: "synthetic"
    params: { num_reasoning: 4, num_adversarial: 2, num_robustness: 2, seed: 42 }
  - name: "${datasetName}"
    type: "json"
    params:
      path: "questions.json"

metrics:
  consistency_runs: 3
  robustness_perturbations: 2
  stability_runs: 3
  nli_model: "cross-encoder/nli-deberta-v3-small"

aggregation:
  strategies:
    my_strategy:
      correctness: 0.5
      robustness: 0.3
      logical_coherence: 0.2
`;

/** The one folder under outputs/, and its files. */
function outputsFolder(dir: string): { name: string; path: string; files: string[] } {
  const names = readdirSync(join(dir, "outputs"));
  expect(names).toHaveLength(1);
  const path = join(dir, "outputs", names[0]);
  return { name: names[0], path, files: readdirSync(path).sort() };
}

const readJsonFile = (path: string) => JSON.parse(readFileSync(path, "utf8"));

/** The number cells of a console row that starts with `label` (columns are separated by 2+ spaces). */
function rowCells(stdout: string, label: string): string[] {
  const line = stdout.split("\n").find((l) => l.startsWith(label));
  expect(line, `a row for ${label}`).toBeDefined();
  return line!
    .slice(label.length)
    .trim()
    .split(/\s{2,}/);
}

describe("assay rq run", () => {
  it("runs the original's config on mock models, writes outputs/<name>_<timestamp>/ and prints the table, all as the API has the run", async () => {
    const dsName = `qs-${Date.now()}`;
    const dir = workdir({ "config.yaml": MOCK_CONFIG(dsName), "questions.json": JSON.stringify(ITEMS) });
    const before = Math.floor(Date.now() / 1000);
    const out = await assay(["rq", "run", "--config", "config.yaml", "--min-q", "0"], { cwd: dir });
    const after = Math.ceil(Date.now() / 1000);
    expect(out.stderr).not.toMatch(/\n\s+at /); // never a stack trace
    expect(out.code).toBe(0);
    // Q is never below 0: the gate passes, one line per model.
    expect(
      out.stderr.match(/^gate passed: Q\[balanced\] of (Mock-Model|Mock\/Weak) [\d.]+ >= 0 \(--min-q\)$/gm),
    ).toHaveLength(2);

    // The run as the API serves it.
    const runId = runIdOf(out.stderr);
    const run = await api<RqRun>(`/v1/runs/${runId}`);
    expect(run.status).toBe("succeeded");
    // The config's layout mapped onto the request: mock → the simulator with accuracy_level; K, P; the custom strategy.
    expect(run.config.models.map((m) => [m.name, m.model, m.simulator?.accuracy])).toEqual([
      ["Mock-Model", "sim:mock", 0.9],
      ["Mock/Weak", "sim:mock", 0.2],
    ]);
    expect(run.config.metrics).toMatchObject({ consistency_runs: 3, robustness_perturbations: 2 });
    expect(run.config.n_items).toBe(4 + 2 + 2 + ITEMS.length);
    expect(run.result.strategies.my_strategy).toEqual({ correctness: 0.5, robustness: 0.3, logical_coherence: 0.2 });

    // The JSON file was uploaded as it is, under its config name.
    const page = await api<{ data: { id: string; name: string }[] }>("/v1/reasoning-quality/datasets?limit=100");
    const uploaded = page.data.filter((d) => d.name === dsName);
    expect(uploaded).toHaveLength(1);
    const detail = await api<{ items: Record<string, unknown>[] }>(`/v1/reasoning-quality/datasets/${uploaded[0].id}`);
    expect(detail.items.map((it) => [it.question, it.answer, it.perturbations ?? []])).toEqual(
      ITEMS.map((it) => [it.question, it.answer, it.perturbations ?? []]),
    );

    // The folder: <experiment name>_<unix seconds of the start>, with the original's files (radar as SVG).
    const folder = outputsFolder(dir);
    const m = /^QuickTest_(\d+)$/.exec(folder.name);
    expect(m).not.toBeNull();
    expect(Number(m![1])).toBeGreaterThanOrEqual(before);
    expect(Number(m![1])).toBeLessThanOrEqual(after);
    expect(folder.files).toEqual(
      [
        "Mock-Model_result.json",
        "Mock_Weak_result.json",
        "radar_plot.svg",
        "reasoning_quality_results.xlsx",
        "summary.json",
      ].sort(),
    );

    // The workbook is the API's report, byte for byte (a zip: PK\x03\x04); the chart is the API's SVG.
    const xlsx = readFileSync(join(folder.path, "reasoning_quality_results.xlsx"));
    expect([...xlsx.subarray(0, 4)]).toEqual([0x50, 0x4b, 0x03, 0x04]);
    expect(xlsx.equals(await bytes(`/v1/runs/${runId}/report.xlsx`))).toBe(true);
    const svg = readFileSync(join(folder.path, "radar_plot.svg"), "utf8");
    expect(svg).toBe((await bytes(`/v1/runs/${runId}/radar.svg`)).toString("utf8"));

    // summary.json: the original's keys, each model's result being the run's, with the experiment id.
    const summary = readJsonFile(join(folder.path, "summary.json"));
    expect(Object.keys(summary).slice(0, 5)).toEqual([
      "experiment_id",
      "timestamp",
      "duration_seconds",
      "num_models",
      "results",
    ]);
    expect(summary.experiment_id).toBe(folder.name);
    expect(summary.timestamp).toMatch(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d$/);
    expect(summary.num_models).toBe(2);
    expect(summary.run_id).toBe(runId);
    expect(summary.rankings).toEqual(run.result.rankings);
    expect(summary.results).toEqual(run.result.models.map((r) => ({ ...r, experiment_id: folder.name })));
    expect(Object.keys(summary.results[0]).slice(0, 6)).toEqual([
      "model",
      "experiment_id",
      "raw_metrics",
      "aggregated",
      "per_dataset",
      "metadata",
    ]);
    // One file per model, `/` made `_`, holding that model's entry.
    expect(readJsonFile(join(folder.path, "Mock-Model_result.json"))).toEqual(summary.results[0]);
    expect(readJsonFile(join(folder.path, "Mock_Weak_result.json"))).toEqual(summary.results[1]);

    // Console: the original's closing table (6 metrics and Balanced to 3 decimals) per model ...
    expect(out.stdout).toContain(" Model                        CQ     CS     RS     LS     ES     SS  Balanced");
    const keys = ["correctness", "consistency", "robustness", "logical_coherence", "efficiency", "stability"];
    for (const r of run.result.models) {
      const cells = rowCells(out.stdout, ` ${r.model.padEnd(24)}`)
        .join(" ")
        .split(/\s+/)
        .map(Number);
      const expected = [...keys.map((k) => r.raw_metrics[k] as number), r.aggregated.balanced];
      expect(cells).toHaveLength(7);
      cells.forEach((c, i) => expect(Math.abs(c - expected[i])).toBeLessThanOrEqual(0.0005 + 1e-12));
    }
    // ... and Q per strategy (4 decimals) with the best model of each.
    for (const strategy of Object.keys(run.result.strategies)) {
      const [q1, q2, best] = rowCells(out.stdout, `${strategy} `);
      const qs = run.result.models.map((r) => r.aggregated[strategy]);
      expect(Math.abs(Number(q1) - qs[0])).toBeLessThanOrEqual(0.00005 + 1e-12);
      expect(Math.abs(Number(q2) - qs[1])).toBeLessThanOrEqual(0.00005 + 1e-12);
      const top = Math.max(...qs);
      expect(best).toBe(
        run.result.models
          .filter((r) => r.aggregated[strategy] === top)
          .map((r) => r.model)
          .join(", "),
      );
    }
    expect(out.stdout).toContain(`  Excel   -> ${join("outputs", folder.name, "reasoning_quality_results.xlsx")}\n`);
    expect(out.stdout).toContain(`  Results -> ${join("outputs", folder.name)}\n`);
    // The progress the original logs: the models and datasets registered, the items counted.
    expect(out.stderr).toContain(`  OK Mock-Model                       [mock] -> simulator (accuracy 0.9)\n`);
    expect(out.stderr).toContain(`  OK ${dsName.padEnd(20)} [json] --     2 items (uploaded as ${uploaded[0].id})\n`);
    expect(out.stderr).toContain(`Total items     : ${run.config.n_items}\n`);
  });

  it("--min-q gates every model's Q: exit 3 naming the model that missed it, 0 when all reach it; --detach and rq report", async () => {
    const dir = workdir({ "config.yaml": MOCK_CONFIG(`gate-${Date.now()}`), "questions.json": JSON.stringify(ITEMS) });
    const detached = await assay(["rq", "run", "--config", "config.yaml", "--detach"], { cwd: dir });
    expect(detached.code).toBe(0);
    const runId = runIdOf(detached.stderr);
    expect(detached.stderr).toContain(`assay rq report ${runId} --name QuickTest --out-dir outputs`);
    expect(readdirSync(dir)).not.toContain("outputs"); // nothing to write before the run ends
    expect((await assay(["runs", "watch", runId])).code).toBe(0);

    const run = await api<RqRun>(`/v1/runs/${runId}`);
    const [strong, weak] = [...run.result.models].sort((a, b) => b.aggregated.balanced - a.aggregated.balanced);
    expect(strong.aggregated.balanced).toBeGreaterThan(weak.aggregated.balanced);
    const between = (strong.aggregated.balanced + weak.aggregated.balanced) / 2;

    const failed = await assay(["rq", "report", runId, "--name", "QuickTest", "--min-q", String(between)], {
      cwd: dir,
    });
    expect(failed.code).toBe(3);
    expect(failed.stderr).toContain(
      `gate passed: Q[balanced] of ${strong.model} ${strong.aggregated.balanced} >= ${between} (--min-q)\n`,
    );
    expect(failed.stderr).toContain(
      `gate FAILED: Q[balanced] of ${weak.model} ${weak.aggregated.balanced} not >= ${between} (--min-q)\n`,
    );
    // The folder is written whatever the gate says.
    expect(outputsFolder(dir).files).toContain("summary.json");

    const lowest = Math.min(...run.result.models.map((r) => r.aggregated.my_strategy));
    const passed = await assay([
      "--json",
      "rq",
      "report",
      runId,
      "--out-dir",
      join(dir, "again"),
      "--min-q",
      String(lowest),
      "--strategy",
      "my_strategy",
    ]);
    expect(passed.code).toBe(0);
    expect(passed.stderr.match(/^gate passed: Q\[my_strategy\]/gm)).toHaveLength(2);
    const printed = JSON.parse(passed.stdout);
    expect(printed.results.map((r: ModelResult) => r.raw_metrics)).toEqual(run.result.models.map((r) => r.raw_metrics));
    expect(printed.output_dir).toMatch(new RegExp(`^${join(dir, "again")}/${runId}_\\d+$`));

    const unknown = await assay(["rq", "report", runId, "--min-q", "0.5", "--strategy", "no_such"], { cwd: dir });
    expect(unknown.code).toBe(2);
    expect(unknown.stderr).toMatch(/^assay: --strategy no_such is not a strategy of run .+\n$/);
  });

  it("a model of type openai goes to its base_url with the key named by api_key_env; the outputs never hold the key", async () => {
    const fake = inject("fakeOpenAIUrl");
    const scenario = `rq-cli-openai-${Date.now()}`;
    const reg = await fetch(new URL("/_scenarios", fake), {
      method: "POST",
      body: JSON.stringify({
        id: scenario,
        text: "I do not know.",
        answers: [{ contains: "2 + 2", content: "Two and two make four. The answer is 4." }],
      }),
    });
    expect(reg.status).toBe(201);
    const key = "sk-rq-cli-test-0123456789";
    const dir = workdir({
      "questions.json": JSON.stringify(ITEMS),
      "config.yaml": `
experiment: { name: "fake-endpoint" }
models:
  - name: "Fake/GPT"
    type: "openai"
    params:
      model_id: "${scenario}"
      api_key_env: "RQ_TEST_KEY"
      base_url: "${fake}"
      max_tokens: 64
datasets:
  - { name: "questions", type: "json", params: { path: "questions.json" } }
metrics: { consistency_runs: 2, robustness_perturbations: 2 }
`,
    });
    const out = await assay(["rq", "run", "--config", "config.yaml"], { cwd: dir, env: { RQ_TEST_KEY: key } });
    expect(out.code).toBe(0);
    expect(out.stderr).toContain(`[openai] -> ${fake} (key from RQ_TEST_KEY)`);
    const run = await api<RqRun>(`/v1/runs/${runIdOf(out.stderr)}`);
    expect(run.config.models[0]).toMatchObject({
      name: "Fake/GPT",
      model: scenario,
      base_url: fake,
      max_tokens: 64,
      temperature: 0,
    });

    // K calls per item and one per perturbation (up to P), each with the key and the original's request.
    const { requests } = (await (await fetch(new URL(`/_scenarios/${scenario}/requests`, fake))).json()) as {
      requests: {
        headers: Record<string, string>;
        body: { model: string; max_tokens: number; temperature: number; messages: { role: string; content: string }[] };
      }[];
    };
    const expectedCalls = ITEMS.reduce((n, it) => n + 2 + Math.min(2, it.perturbations?.length ?? 0), 0);
    expect(requests).toHaveLength(expectedCalls);
    expect(run.result.models[0].calls.made).toBe(expectedCalls);
    for (const r of requests) {
      expect(r.headers.authorization).toBe(`***${key.slice(-4)}`);
      expect(r.body).toMatchObject({ model: scenario, max_tokens: 64, temperature: 0 });
      expect(r.body.messages).toHaveLength(1);
      expect(r.body.messages[0].role).toBe("user");
    }
    expect(new Set(requests.map((r) => r.body.messages[0].content))).toEqual(
      new Set(ITEMS.flatMap((it) => [it.question, ...(it.perturbations ?? [])])),
    );

    const folder = outputsFolder(dir);
    expect(folder.files).toContain("Fake_GPT_result.json");
    expect(readJsonFile(join(folder.path, "summary.json")).results[0].raw_metrics).toEqual(
      run.result.models[0].raw_metrics,
    );
    for (const f of folder.files) expect(readFileSync(join(folder.path, f)).includes(key)).toBe(false);
  });
});

describe("assay rq run: what it refuses, before anything is sent", () => {
  /** Whether a dataset of this name was uploaded (the first thing a run sends). */
  async function uploaded(name: string): Promise<boolean> {
    const page = await api<{ data: { name: string }[] }>("/v1/reasoning-quality/datasets?limit=100");
    return page.data.some((d) => d.name === name);
  }

  const withModel = (dsName: string, model: string) => `
models:
${model}
datasets:
  - { name: "${dsName}", type: "json", params: { path: "questions.json" } }
`;

  it("type local: one line saying to point base_url at a local OpenAI-compatible server, exit 1", async () => {
    const ds = `local-${Date.now()}`;
    const dir = workdir({
      "questions.json": JSON.stringify(ITEMS),
      "config.yaml": withModel(ds, `  - { name: "Phi-2", type: "local", params: { model_id: "microsoft/phi-2" } }`),
    });
    const out = await assay(["rq", "run", "--config", "config.yaml"], { cwd: dir });
    expect(out.code).toBe(1);
    expect(out.stderr).toMatch(
      /^assay: config\.yaml: models\[0\] \(Phi-2\): type local .*OpenAI-compatible server.* type: openai with params\.base_url .*\n$/,
    );
    expect(await uploaded(ds)).toBe(false);
  });

  it("a key variable that is not set: one line naming it, exit 1", async () => {
    const ds = `nokey-${Date.now()}`;
    const named = workdir({
      "questions.json": JSON.stringify(ITEMS),
      "config.yaml": withModel(
        ds,
        `  - { name: "GPT", type: "openai", params: { model_id: "gpt-4o-mini", api_key_env: "RQ_UNSET_KEY" } }`,
      ),
    });
    const out = await assay(["rq", "run", "--config", "config.yaml"], {
      cwd: named,
      env: { OPENAI_API_KEY: "sk-should-not-be-used" },
    });
    expect(out.code).toBe(1);
    expect(out.stderr).toBe("assay: RQ_UNSET_KEY is not set (api_key_env of models[0] (GPT) in config.yaml)\n");

    // Without api_key_env, the type's usual variable.
    const usual = workdir({
      "questions.json": JSON.stringify(ITEMS),
      "config.yaml": withModel(
        ds,
        `  - { name: "Claude", type: "anthropic", params: { model_id: "claude-haiku-4-5" } }`,
      ),
    });
    const out2 = await assay(["rq", "run", "--config", "config.yaml"], { cwd: usual });
    expect(out2.code).toBe(1);
    expect(out2.stderr).toMatch(/^assay: ANTHROPIC_API_KEY is not set .*\n$/);
    expect(await uploaded(ds)).toBe(false);
  });

  it("bad YAML, a missing config and a missing dataset file: exit 1, one line; an unknown flag: exit 2", async () => {
    const dir = workdir({ "bad.yaml": "models: [a\n  - b: c\n", "nofile.yaml": MOCK_CONFIG(`nofile-${Date.now()}`) });
    const bad = await assay(["rq", "run", "--config", "bad.yaml"], { cwd: dir });
    expect(bad.code).toBe(1);
    expect(bad.stderr).toMatch(/^assay: bad\.yaml is not valid YAML: [^\n]+\n$/);

    const none = await assay(["rq", "run", "--config", "absent.yaml"], { cwd: dir });
    expect(none.code).toBe(1);
    expect(none.stderr).toBe("assay: cannot read absent.yaml: no such file\n");

    const missing = await assay(["rq", "run", "--config", "nofile.yaml"], { cwd: dir });
    expect(missing.code).toBe(1);
    expect(missing.stderr).toMatch(/assay: cannot read questions\.json: no such file\n$/);
    expect(missing.stderr).not.toContain("run_");

    const flag = await assay(["rq", "run", "--config", "nofile.yaml", "--no-such-flag"], { cwd: dir });
    expect(flag.code).toBe(2);
    expect(flag.stderr).toContain("unknown option '--no-such-flag'");

    const gate = await assay(["rq", "run", "--config", "nofile.yaml", "--min-q", "high"], { cwd: dir });
    expect(gate.code).toBe(2);
    expect(gate.stderr).toContain('--min-q must be a number, got "high"');
  });
});

describe("assay datasets", () => {
  it("upload reads the original's JSON items and CSV; list shows them; the server holds the file's items", async () => {
    const stamp = Date.now();
    const dir = workdir({
      [`mine-${stamp}.json`]: JSON.stringify(ITEMS),
      "web.csv": 'question,answer\nWhat is 3 + 4?,7\n"Is the sky blue, usually?",yes\n',
    });
    const json = await assay(["datasets", "upload", `mine-${stamp}.json`], { cwd: dir });
    expect(json.code).toBe(0);
    const [, id, name] = /^uploaded (ds_\S+): (\S+) \(json, 2 items, datasets: \S+\)\n$/.exec(json.stdout) ?? [];
    expect(name).toBe(`mine-${stamp}`); // the file's name without extension
    const detail = await api<{ format: string; items: Record<string, unknown>[] }>(
      `/v1/reasoning-quality/datasets/${id}`,
    );
    expect(detail.items.map((it) => [it.question, it.answer])).toEqual(ITEMS.map((it) => [it.question, it.answer]));

    const csv = await assay(["--json", "datasets", "upload", "web.csv", "--name", `web-${stamp}`], { cwd: dir });
    expect(csv.code).toBe(0);
    const ds = JSON.parse(csv.stdout);
    expect(ds).toMatchObject({ name: `web-${stamp}`, format: "csv", n_items: 2 });
    const rows = await api<{ items: Record<string, unknown>[] }>(`/v1/reasoning-quality/datasets/${ds.id}`);
    expect(rows.items.map((it) => [it.question, it.answer])).toEqual([
      ["What is 3 + 4?", "7"],
      ["Is the sky blue, usually?", "yes"],
    ]);

    const listed = await assay(["datasets", "list", "--limit", "100"]);
    expect(listed.code).toBe(0);
    const lines = listed.stdout.trim().split("\n");
    expect(lines[0].split(/\s+/)).toEqual(["id", "name", "format", "items", "datasets", "created"]);
    expect(
      lines
        .find((l) => l.startsWith(`${ds.id} `))
        ?.split(/\s+/)
        .slice(0, 4),
    ).toEqual([ds.id, `web-${stamp}`, "csv", "2"]);
    expect(
      lines
        .find((l) => l.startsWith(`${id} `))
        ?.split(/\s+/)
        .slice(0, 4),
    ).toEqual([id, `mine-${stamp}`, "json", "2"]);
    const page = JSON.parse((await assay(["--json", "datasets", "list"])).stdout);
    expect(page.data.some((d: { id: string }) => d.id === ds.id)).toBe(true);
  });

  it("stdin needs --name; a bad row is the API's one line; a missing file is exit 1", async () => {
    const named = await assay(["--json", "datasets", "upload", "-", "--name", `piped-${Date.now()}`], {
      input: JSON.stringify(ITEMS),
    });
    expect(named.code).toBe(0);
    expect(JSON.parse(named.stdout).n_items).toBe(2);

    const unnamed = await assay(["datasets", "upload", "-"], { input: JSON.stringify(ITEMS) });
    expect(unnamed.code).toBe(2);
    expect(unnamed.stderr).toBe("assay: --name is required when the dataset comes from standard input\n");

    const dir = workdir({ "bad.json": JSON.stringify([{ question: "no answer" }]) });
    const bad = await assay(["datasets", "upload", "bad.json"], { cwd: dir });
    expect(bad.code).toBe(1);
    expect(bad.stderr).toMatch(/^assay: 400 .*items\.0\.answer.*\n$/);

    const missing = await assay(["datasets", "upload", "nothere.json"], { cwd: dir });
    expect(missing.code).toBe(1);
    expect(missing.stderr).toBe("assay: cannot read nothere.json: no such file\n");
  });
});
