// `assay judge run|contested`: a cross-judge panel (YAML, inline prompts and versioned prompt files) over
// JSONL items, checked against the runs as the API serves them; simulator critics throughout, and critics
// on the fake OpenAI endpoint for the keys.
import { createHash } from "node:crypto";
import { mkdirSync, mkdtempSync, readFileSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, inject, it } from "vitest";
import { recordedRequests, registerScenario } from "../support/fake-openai.ts";
import { assay } from "./assay.ts";

const server = () => inject("assayUrl");
const fakeUrl = () => inject("fakeOpenAIUrl");
const headers = { Authorization: "Bearer assay_sk_local_dev_key" };

type Verdict = { critic: string; kind: string; confidence: number; error: string | null };
type Item = {
  id: string;
  consensus: string;
  agreement_pct: number;
  krippendorff_alpha: number | null;
  verdicts: Verdict[];
};
type Result = {
  counts: {
    items: number;
    verdicts: number;
    valid: number;
    errors: number;
    parse_failures: number;
    off_vocabulary: number;
    missing: number;
  };
  batch: { alpha: { alpha: number | null; pairable: number; units_used: number } };
  contested: { threshold: number; count: number };
  accuracy: { items: number; correct: number; rate: number } | null;
  items: Item[];
};
type RunJson = {
  id: string;
  status: string;
  config: {
    critics: { name: string; prompt: { name: string; version: number | null; sha256: string } }[];
    voting: unknown;
  };
  result: Result;
};
type SampleJson = { output: { item_id: string; critic: string; verdict: { reasoning: string } } | null };

async function get<T>(path: string): Promise<T> {
  const res = await fetch(`${server()}${path}`, { headers });
  expect(res.status, path).toBe(200);
  return (await res.json()) as T;
}

/** Every page of a cursor-paged list, fetched with its own page size. */
async function allPages<T>(path: string, limit: number): Promise<{ data: T[]; first: Record<string, unknown> }> {
  const data: T[] = [];
  let first: Record<string, unknown> | undefined;
  let after: string | null = null;
  do {
    const sep = path.includes("?") ? "&" : "?";
    const page: { data: T[]; has_more: boolean; next_cursor: string | null } = await get(
      `${path}${sep}limit=${limit}${after ? `&after=${after}` : ""}`,
    );
    first ??= page;
    data.push(...page.data);
    after = page.has_more ? page.next_cursor : null;
  } while (after);
  return { data, first: first! };
}

const startedId = (stderr: string) => /run (run_\w+) started/.exec(stderr)?.[1] ?? "";

/**
 * Python's f"{x:.{d}f}" from its definition: the double's exact value (as a BigInt fraction) rounded
 * half to even.
 */
function py(x: number, d: number): string {
  const view = new DataView(new ArrayBuffer(8));
  view.setFloat64(0, Math.abs(x));
  const bits = view.getBigUint64(0);
  const biased = Number((bits >> 52n) & 0x7ffn);
  const mantissa = (bits & ((1n << 52n) - 1n)) | (biased ? 1n << 52n : 0n);
  const exp = (biased || 1) - 1075;
  const num = mantissa * 10n ** BigInt(d) * (exp > 0 ? 1n << BigInt(exp) : 1n);
  const den = exp < 0 ? 1n << BigInt(-exp) : 1n;
  let q = num / den;
  const r2 = (num % den) * 2n;
  if (r2 > den || (r2 === den && q % 2n === 1n)) q += 1n;
  const digits = q.toString().padStart(d + 1, "0");
  const text = d ? `${digits.slice(0, -d)}.${digits.slice(-d)}` : digits;
  return (x < 0 ? "-" : "") + text;
}

const alpha = (a: number | null) => (a === null ? "n/a" : py(a, 3));
const sha256 = (system: string, template: string) =>
  createHash("sha256")
    .update(JSON.stringify([system, template]))
    .digest("hex");

/** A working directory with the given files (paths relative to it). */
function workdir(files: Record<string, string>): string {
  const dir = mkdtempSync(join(tmpdir(), "assay-judge-"));
  for (const [name, text] of Object.entries(files)) {
    mkdirSync(join(dir, name, ".."), { recursive: true });
    writeFileSync(join(dir, name), text);
  }
  return dir;
}

const jsonl = (rows: object[]) => rows.map((r) => JSON.stringify(r)).join("\n") + "\n";

// The quickstart's critics, as a panel file: one inline prompt, one versioned prompt file, one noisy.
const STRICT_SYSTEM = "You are a strict reviewer. Output JSON only.";
const STRICT_TEMPLATE =
  'Judge: {query}\n\nOutput JSON: {{"kind": "<KEEP|REJECT|SPLIT|MERGE|UNCLEAR>", "confidence": <0-1>, "reasoning": "<short>"}}';
const RIGOR_SYSTEM = "You are a rigorous universality-class critic.";
const RIGOR_TEMPLATE =
  'Judge the following candidate:\n{query}\nOutput JSON: {{"kind": ..., "confidence": ..., "reasoning": ...}}\n';
const LONG_QUERY =
  "Traffic jams on ring roads and the glass transition in supercooled liquids: do they share one universality class?";
const ITEMS = [
  { query_id: "q1", query: "Bank failures and earthquake aftershocks: same class?", expected: "KEEP" },
  { query_id: "q2", query: "Sandpiles and forest fires", expected: "REJECT" },
  { query: LONG_QUERY, expected: "SPLIT" },
  { id: "q4", query: "Neural avalanches and crackling noise", expected: "MERGE", meta: { source: "b3" } },
  { query_id: "q5", query: "Percolation and epidemics", expected: "KEEP", context: { field: "physics" } },
  { query_id: "q6", query: "Citations and city sizes", expected: "REJECT" },
];

function panelFiles(extra = ""): Record<string, string> {
  return {
    "panel/panel.yaml": [
      "# a cross-judge panel",
      "voting: majority",
      "voting_kwargs: {priority: [REJECT, KEEP]}",
      "seed: 11",
      "critics:",
      "  - name: strict",
      '    model: "sim:critic"',
      "    temperature: 0.0",
      `    system_prompt: ${JSON.stringify(STRICT_SYSTEM)}`,
      `    prompt_template: ${JSON.stringify(STRICT_TEMPLATE)}`,
      "  - name: b3-rigor",
      '    model: "sim:critic"',
      "    yaml_path: prompts/rigor.yaml",
      "  - name: noisy",
      '    model: "sim:critic"',
      "    simulator: {noise: 0.5}",
      extra,
    ].join("\n"),
    "panel/prompts/rigor.yaml": [
      `version: "0.1"`,
      `description: rigor`,
      `system_prompt: ${JSON.stringify(RIGOR_SYSTEM)}`,
      `user_prompt_template: ${JSON.stringify(RIGOR_TEMPLATE)}`,
    ].join("\n"),
    "items.jsonl": jsonl(ITEMS),
  };
}

/** What the console must show for a run, from the run and its samples as the API serves them. */
function expectedConsole(run: RunJson, samples: SampleJson[]): string[] {
  const reasoning = new Map(
    samples
      .filter((s) => s.output)
      .map((s) => [`${s.output!.item_id}/${s.output!.critic}`, s.output!.verdict.reasoning]),
  );
  const r = run.result;
  const blocks = r.items.map((item, i) =>
    [
      `[${i + 1}/${r.items.length}] ${item.id}`,
      `Consensus: ${item.consensus}`,
      `Agreement: ${py(item.agreement_pct * 100, 0)}%`,
      `Krippendorff α: ${alpha(item.krippendorff_alpha)}`,
      ...item.verdicts.map((v) =>
        `  ${v.critic.padEnd(20)} kind=${v.kind.padEnd(8)} conf=${py(v.confidence, 2)}  ${reasoning.get(`${item.id}/${v.critic}`)!.slice(0, 60)}`.trimEnd(),
      ),
    ].join("\n"),
  );
  const c = r.counts;
  const a = r.batch.alpha;
  const batch = [
    `Batch: ${c.items} items, ${c.verdicts} verdicts (valid ${c.valid}, errors ${c.errors}, parse failures ${c.parse_failures}, off vocabulary ${c.off_vocabulary})`,
    a.alpha === null
      ? "Batch Krippendorff α: n/a (undefined: only one label occurs, or no item has two valid verdicts)"
      : `Batch Krippendorff α: ${py(a.alpha, 3)} (pairable values ${a.pairable}, items used ${a.units_used})`,
    `Contested: ${r.contested.count} of ${c.items} items (threshold ${r.contested.threshold})${r.contested.count ? `: assay judge contested ${run.id}` : ""}`,
    ...(r.accuracy
      ? [
          `Accuracy: ${r.accuracy.correct}/${r.accuracy.items} (${py(r.accuracy.rate * 100, 0)}%) against the expected labels`,
        ]
      : []),
  ].join("\n");
  return [...blocks, batch];
}

describe("assay judge run", () => {
  it("runs a YAML panel (inline prompt, prompt file) over JSONL items; the console and --out match the run", async () => {
    const dir = workdir(panelFiles());
    // From the directory above the panel: the prompt file's path is relative to the panel file.
    const out = await assay(
      ["judge", "run", "--critics", "panel/panel.yaml", "--items", "items.jsonl", "--out", "out/result.json"],
      { cwd: dir },
    );
    expect(out.stderr).toMatch(/^run run_\w+ started: /);
    expect(out.code, out.stderr).toBe(0);
    const id = startedId(out.stderr);
    const run = await get<RunJson>(`/v1/runs/${id}`);
    expect(run.status).toBe("succeeded");

    // What was sent: the inline texts, the prompt file's texts, cross-judge's voting_kwargs, the items' ids.
    const prompts = Object.fromEntries(run.config.critics.map((c) => [c.name, c.prompt]));
    expect(prompts.strict).toEqual({ name: "inline", version: null, sha256: sha256(STRICT_SYSTEM, STRICT_TEMPLATE) });
    expect(prompts["b3-rigor"]).toEqual({
      name: "inline",
      version: null,
      sha256: sha256(RIGOR_SYSTEM, RIGOR_TEMPLATE),
    });
    expect(prompts.noisy).toMatchObject({ name: "panel-general", version: 2 });
    expect(run.config.voting).toEqual({ strategy: "majority", kwargs: { priority: ["REJECT", "KEEP"] } });
    // cross-judge's query_id default: the first 80 characters of the query.
    expect(run.result.items.map((i) => i.id)).toEqual(["q1", "q2", LONG_QUERY.slice(0, 80), "q4", "q5", "q6"]);

    const samples = (await allPages<SampleJson>(`/v1/runs/${id}/samples`, 100)).data;
    expect(samples).toHaveLength(18);
    expect(out.stdout.trimEnd().split("\n\n")).toEqual(expectedConsole(run, samples));
    expect(JSON.parse(readFileSync(join(dir, "out/result.json"), "utf8"))).toEqual(run.result);
    expect(out.stderr).toContain("wrote out/result.json\n");
  });

  it("--min-alpha: exit 0 when the batch alpha reaches it, 3 when it does not, 3 when the alpha is undefined", async () => {
    const agreeing = "critics:\n  - {name: a, model: 'sim:critic'}\n  - {name: b, model: 'sim:critic'}\n";
    const dir = workdir({
      ...panelFiles(),
      "agree.yaml": agreeing,
      "all-keep.jsonl": jsonl([
        { query: "one", expected: "KEEP" },
        { query: "two", expected: "KEEP" },
      ]),
    });

    const pass = await assay(
      ["judge", "run", "--critics", "agree.yaml", "--items", "items.jsonl", "--min-alpha", "0.9"],
      { cwd: dir },
    );
    const passAlpha = (await get<RunJson>(`/v1/runs/${startedId(pass.stderr)}`)).result.batch.alpha.alpha;
    expect(passAlpha).not.toBeNull();
    expect(passAlpha!).toBeGreaterThanOrEqual(0.9);
    expect(pass.code, pass.stderr).toBe(0);
    expect(pass.stderr).toContain(`gate passed: batch alpha ${passAlpha} >= 0.9 (--min-alpha)\n`);

    const fail = await assay(
      ["judge", "run", "--critics", "panel/panel.yaml", "--items", "items.jsonl", "--min-alpha", "0.95"],
      { cwd: dir },
    );
    const failAlpha = (await get<RunJson>(`/v1/runs/${startedId(fail.stderr)}`)).result.batch.alpha.alpha;
    expect(failAlpha).not.toBeNull();
    expect(failAlpha!).toBeLessThan(0.95);
    expect(fail.code).toBe(3);
    expect(fail.stderr).toContain(`gate FAILED: batch alpha ${failAlpha} not >= 0.95 (--min-alpha)\n`);
    expect(fail.stdout).toContain(`Batch Krippendorff α: ${py(failAlpha!, 3)} `);

    // One label only: the textbook alpha is undefined, and an undefined alpha fails the gate, saying so.
    const none = await assay(
      ["judge", "run", "--critics", "agree.yaml", "--items", "all-keep.jsonl", "--min-alpha", "0"],
      { cwd: dir },
    );
    expect((await get<RunJson>(`/v1/runs/${startedId(none.stderr)}`)).result.batch.alpha.alpha).toBeNull();
    expect(none.code).toBe(3);
    expect(none.stderr).toContain("batch alpha is undefined (null)");
    expect(none.stderr).toContain("gate FAILED: batch alpha n/a not >= 0 (--min-alpha)\n");
  });

  it("--json prints the whole run; --detach returns at once with its id", async () => {
    const dir = workdir(panelFiles());
    const out = await assay(["--json", "judge", "run", "--critics", "panel/panel.yaml", "--items", "items.jsonl"], {
      cwd: dir,
    });
    expect(out.code, out.stderr).toBe(0);
    const printed = JSON.parse(out.stdout) as RunJson;
    expect(printed).toEqual(await get<RunJson>(`/v1/runs/${printed.id}`));

    const detached = await assay(
      ["--json", "judge", "run", "--critics", "panel/panel.yaml", "--items", "items.jsonl", "--detach"],
      { cwd: dir },
    );
    expect(detached.code).toBe(0);
    const { id, status } = JSON.parse(detached.stdout) as { id: string; status: string };
    expect(status).toBe("detached");
    // The run goes on without the CLI: follow it to its end.
    expect((await assay(["runs", "watch", id])).code).toBe(0);
    expect((await get<RunJson>(`/v1/runs/${id}`)).result.counts.verdicts).toBe(18);
  });

  it("critics on an endpoint take their keys from the environment: the vendor's variable or api_key_env", async () => {
    const [gpt, local] = ["judge-cli-gpt", "judge-cli-local"];
    await registerScenario(fakeUrl(), {
      id: gpt,
      text: '{"kind": "KEEP", "confidence": 0.75, "reasoning": "gpt keeps it"}',
    });
    await registerScenario(fakeUrl(), {
      id: local,
      text: '{"kind": "REJECT", "confidence": 0.5, "reasoning": "local rejects it"}',
    });
    const dir = workdir({
      "panel.yaml": [
        "critics:",
        `  - {name: gpt, model: ${gpt}, vendor: openai, base_url: "${fakeUrl()}"}`,
        `  - {name: local, model: ${local}, base_url: "${fakeUrl()}", api_key_env: MY_JUDGE_KEY}`,
      ].join("\n"),
      "items.jsonl": jsonl(ITEMS.slice(0, 2)),
    });
    const keys = { OPENAI_API_KEY: "sk-judge-cli-openai-W1x9", MY_JUDGE_KEY: "sk-judge-cli-local-K7q3" };
    const out = await assay(["judge", "run", "--critics", "panel.yaml", "--items", "items.jsonl", "--out", "r.json"], {
      cwd: dir,
      env: keys,
    });
    expect(out.code, out.stderr).toBe(0);
    // The fake records the Authorization header as "***" and its last four characters: those of "Bearer <key>".
    for (const [scenario, key] of [
      [gpt, keys.OPENAI_API_KEY],
      [local, keys.MY_JUDGE_KEY],
    ]) {
      const requests = await recordedRequests(fakeUrl(), scenario);
      expect(requests).toHaveLength(2);
      for (const r of requests) expect(r.headers.authorization).toBe(`***${key.slice(-4)}`);
    }
    expect(out.stdout).toContain(`  gpt                  kind=KEEP     conf=0.75  gpt keeps it\n`);
    expect(out.stdout).toContain(`  local                kind=REJECT   conf=0.50  local rejects it\n`);
    for (const key of Object.values(keys)) {
      expect(out.stdout + out.stderr + readFileSync(join(dir, "r.json"), "utf8")).not.toContain(key);
    }
  });

  it("a missing key is one line naming its variable, exit 1, and nothing is sent", async () => {
    const scenario = "judge-cli-nokey";
    await registerScenario(fakeUrl(), { id: scenario, text: '{"kind": "KEEP", "confidence": 1, "reasoning": "x"}' });
    const dir = workdir({
      "vendor.yaml": `critics:\n  - {name: sim, model: "sim:critic"}\n  - {name: kimi, model: ${scenario}, vendor: openrouter, base_url: "${fakeUrl()}"}\n`,
      "named.yaml": `critics:\n  - {name: mine, model: ${scenario}, base_url: "${fakeUrl()}", api_key_env: JUDGE_CLI_UNSET_KEY}\n`,
      "items.jsonl": jsonl(ITEMS),
    });
    const byVendor = await assay(["judge", "run", "--critics", "vendor.yaml", "--items", "items.jsonl"], {
      cwd: dir,
      env: { OPENROUTER_API_KEY: undefined },
    });
    expect(byVendor.code).toBe(1);
    expect(byVendor.stderr).toBe(
      "assay: OPENROUTER_API_KEY is not set (the key of critic 'kimi', vendor openrouter)\n",
    );
    const byName = await assay(["judge", "run", "--critics", "named.yaml", "--items", "items.jsonl"], {
      cwd: dir,
      env: { JUDGE_CLI_UNSET_KEY: "" },
    });
    expect(byName.code).toBe(1);
    expect(byName.stderr).toBe(
      "assay: JUDGE_CLI_UNSET_KEY is not set (the key of critic 'mine', named by api_key_env)\n",
    );
    expect(await recordedRequests(fakeUrl(), scenario)).toEqual([]);
  });

  it("bad input: bad YAML, an unknown critic key and a missing items file exit 1; usage errors exit 2", async () => {
    const dir = workdir({
      ...panelFiles(),
      "bad.yaml": "critics:\n  - {name: a, model: 'sim:critic'\n",
      "typo.yaml": "critics:\n  - {name: a, model: 'sim:critic', temprature: 0.2}\n",
    });
    const bad = await assay(["judge", "run", "--critics", "bad.yaml", "--items", "items.jsonl"], { cwd: dir });
    expect(bad.code).toBe(1);
    expect(bad.stderr).toMatch(/^assay: bad\.yaml is not valid YAML: [^\n]+\n$/);

    const typo = await assay(["judge", "run", "--critics", "typo.yaml", "--items", "items.jsonl"], { cwd: dir });
    expect(typo.code).toBe(1);
    expect(typo.stderr).toMatch(
      /^assay: typo\.yaml: critics\[0\] \('a'\): unknown key 'temprature' \(known: [^\n]+\)\n$/,
    );

    const missing = await assay(["judge", "run", "--critics", "panel/panel.yaml", "--items", "nope.jsonl"], {
      cwd: dir,
    });
    expect(missing.code).toBe(1);
    expect(missing.stderr).toBe("assay: cannot read nope.jsonl: no such file\n");

    for (const args of [
      ["judge", "run", "--critics", "panel/panel.yaml", "--items", "items.jsonl", "--bogus"],
      ["judge", "run", "--critics", "panel/panel.yaml"],
      ["judge", "run", "--critics", "panel/panel.yaml", "--items", "items.jsonl", "--min-alpha", "high"],
      ["judge", "run", "--critics", "panel/panel.yaml", "--items", "items.jsonl", "--detach", "--min-alpha", "0.5"],
      ["judge", "contested"],
    ]) {
      const out = await assay(args, { cwd: dir });
      expect(out.code, args.join(" ")).toBe(2);
      expect(out.stderr, args.join(" ")).not.toMatch(/\n\s+at /);
    }
  });
});

describe("assay judge contested", () => {
  type Contested = {
    id: string;
    query: string | null;
    consensus: string;
    agreement_pct: number;
    krippendorff_alpha: number | null;
    reasons: string[];
    verdicts: { critic_id: string; kind: string; confidence: number; reasoning: string; error: string | null }[];
  };

  it("prints the whole queue (every page) with each verdict's reasoning; --json is the API's items", async () => {
    // A contrarian critic splits every item: more contested items than one page of the CLI holds.
    const items = Array.from({ length: 110 }, (_, i) => ({
      id: `c${String(i).padStart(3, "0")}`,
      query: `candidate ${i}\nsecond line`,
      expected: ["KEEP", "REJECT", "SPLIT", "MERGE"][i % 4],
    }));
    const dir = workdir({
      "panel.yaml":
        "concurrency: 10\ncritics:\n  - {name: a, model: 'sim:critic'}\n  - {name: b, model: 'sim:critic'}\n  - {name: contrarian, model: 'sim:critic', simulator: {bias: {label: UNCLEAR, rate: 1}}}\n",
      "items.jsonl": jsonl(items),
    });
    const ran = await assay(["judge", "run", "--critics", "panel.yaml", "--items", "items.jsonl"], { cwd: dir });
    expect(ran.code, ran.stderr).toBe(0);
    const id = startedId(ran.stderr);

    const { data, first } = await allPages<Contested>(`/v1/judge/runs/${id}/contested`, 30);
    expect(data).toHaveLength(110);
    const asJson = await assay(["--json", "judge", "contested", id]);
    expect(asJson.code).toBe(0);
    expect(JSON.parse(asJson.stdout)).toEqual({ run_id: id, threshold: first.threshold, data });

    const printed = await assay(["judge", "contested", id]);
    expect(printed.code).toBe(0);
    const blocks = data.map((item) =>
      [
        `${item.id}: ${item.reasons.join(", ")}`,
        `Query: ${item.query!.replace(/\s+/g, " ")}`,
        `Consensus: ${item.consensus}`,
        `Agreement: ${py(item.agreement_pct * 100, 0)}%`,
        `Krippendorff α: ${alpha(item.krippendorff_alpha)}`,
        ...item.verdicts.map(
          (v) => `  ${v.critic_id.padEnd(20)} kind=${v.kind.padEnd(8)} conf=${py(v.confidence, 2)}  ${v.reasoning}`,
        ),
      ].join("\n"),
    );
    expect(printed.stdout.trimEnd().split("\n\n")).toEqual([
      `110 contested items in run ${id} (threshold ${first.threshold})`,
      ...blocks,
    ]);

    // Another threshold is the API's to apply: at 0 nothing is below it.
    const none = await assay(["judge", "contested", id, "--threshold", "0"]);
    expect(none.stdout).toBe(`0 contested items in run ${id} (threshold 0)\n`);
  });

  it("a run that is not a judge run is the API's 404 in one line", async () => {
    const out = await assay(["judge", "contested", "run_doesnotexist"]);
    expect(out.code).toBe(1);
    expect(out.stderr).toMatch(/^assay: 404 Not found: [^\n]+\n$/);
  });
});
