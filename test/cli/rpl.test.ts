// `assay rpl run|compare`: Heretix's `run --config run.yaml` and its compact A/B rows, checked against
// the runs as the API serves them, on the simulator (and once on the fake OpenAI endpoint).
import { mkdtempSync, readFileSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, inject, it } from "vitest";
import { recordedRequests, registerScenario } from "../support/fake-openai.ts";
import { assay, outputContains } from "./assay.ts";

const server = () => inject("assayUrl");
const headers = { Authorization: "Bearer assay_sk_local_dev_key" };

type Aggregates = {
  prob_true_rpl: number;
  ci95: [number, number];
  ci_width: number;
  stability_score: number;
  rpl_compliance_rate: number;
  cache_hit_rate: number;
};
type Stage = { stage_id: string; T: number; K: number; R: number; decision: string; reason: string };
type Result = {
  prompt_version: string;
  aggregates: Aggregates;
  aggregation: { bootstrap_seed: string };
  next_run_id?: string;
  auto?: { stages: Stage[]; final?: Stage };
};
type RunJson = { id: string; status: string; config: Record<string, unknown>; result: Result };

async function getRun(id: string): Promise<RunJson> {
  const res = await fetch(`${server()}/v1/runs/${id}`, { headers });
  expect(res.status).toBe(200);
  return (await res.json()) as RunJson;
}

/**
 * Python's f"{x:.{digits}f}", from its definition: the double's exact value (mantissa × 2^exponent,
 * in BigInt) rounded half to even at `digits` decimals.
 */
function py(x: number, digits: number): string {
  const view = new DataView(new ArrayBuffer(8));
  view.setFloat64(0, x);
  const bits = view.getBigUint64(0);
  const negative = bits >> 63n === 1n;
  const biased = Number((bits >> 52n) & 0x7ffn);
  const fraction = bits & ((1n << 52n) - 1n);
  const mantissa = biased === 0 ? fraction : fraction | (1n << 52n);
  const exponent = (biased === 0 ? 1 : biased) - 1075;
  let num = mantissa * 10n ** BigInt(digits);
  let den = 1n;
  if (exponent >= 0) num <<= BigInt(exponent);
  else den <<= BigInt(-exponent);
  let q = num / den;
  const twice = 2n * (num % den);
  if (twice > den || (twice === den && q % 2n === 1n)) q += 1n;
  const s = q.toString().padStart(digits + 1, "0");
  const text = digits ? `${s.slice(0, s.length - digits)}.${s.slice(s.length - digits)}` : s;
  return (negative ? "-" : "") + text;
}

/** Heretix's row for one version (its CLI's format string, applied to the API's result). */
function heretixRow(r: Result): string {
  const a = r.aggregates;
  return `v=${r.prompt_version}  p=${py(a.prob_true_rpl, 3)}  CI95=[${py(a.ci95[0], 3)},${py(a.ci95[1], 3)}]  width=${py(a.ci_width, 3)}  stab=${py(a.stability_score, 3)}  compl=${py(a.rpl_compliance_rate, 2)}  cache=${py(a.cache_hit_rate, 2)}`;
}

function workdir(): string {
  return mkdtempSync(join(tmpdir(), "assay-rpl-"));
}

/** A run.yaml in a fresh directory; each test has its own claim, so no test's cache serves another. */
function config(yaml: string): { dir: string; path: string } {
  const dir = workdir();
  const path = join(dir, "run.yaml");
  writeFileSync(path, yaml);
  return { dir, path };
}

/** The run ids the CLI announced on stderr, in order. */
const started = (stderr: string) => [...stderr.matchAll(/^run (run_\w+) started: /gm)].map((m) => m[1]);

const lines = (text: string) => text.split("\n").filter(Boolean);

const escapeRegExp = (text: string) => text.replace(/[.*+?^${}()|[\]\\]/g, "\\$&");

describe("assay rpl run", () => {
  it("runs a Heretix config and prints its row, as the API's result gives it", async () => {
    const { path } = config(`# a Heretix run config
claim: "Tariffs raise consumer prices (cli row)."
model: sim:rpl
prompt_version: rpl-assay-v1
K: 8
R: 2
T: 8
B: 2000
seed: 42
max_output_tokens: 512
`);
    const out = await assay(["rpl", "run", "--config", path]);
    expect(out.code, out.stderr).toBe(0);
    const [id] = started(out.stderr);
    const run = await getRun(id);
    expect(run.status).toBe("succeeded");
    // Every key of the config reached the run.
    expect(run.config).toMatchObject({
      claim: "Tariffs raise consumer prices (cli row).",
      model: "sim:rpl",
      prompt_version: "rpl-assay-v1",
      K: 8,
      R: 2,
      T: 8,
      B: 2000,
      bootstrap_seed: "42",
      max_output_tokens: 512,
    });
    expect(run.result.aggregation.bootstrap_seed).toBe("42");
    expect(lines(out.stdout)).toEqual(["Running sim:rpl  K=8 R=2  version=rpl-assay-v1", heretixRow(run.result)]);
  });

  it("takes HERETIX_RPL_SEED when the config has no seed, and flags over the config", async () => {
    const { path } = config(`claim: "Config claim, overridden."
model: sim:rpl
prompt_version: no-such-version
K: 4
R: 1
`);
    const out = await assay(
      [
        "rpl",
        "run",
        "--config",
        path,
        "--claim",
        "Flag claim (cli overrides).",
        "--model",
        "sim:rpl-flag",
        "--prompt-version",
        "rpl-assay-v1",
      ],
      {
        env: { HERETIX_RPL_SEED: "7" },
      },
    );
    expect(out.code, out.stderr).toBe(0);
    const run = await getRun(started(out.stderr)[0]);
    expect(run.config).toMatchObject({
      claim: "Flag claim (cli overrides).",
      model: "sim:rpl-flag",
      prompt_version: "rpl-assay-v1",
      K: 4,
      R: 1,
      bootstrap_seed: "7",
    });
    expect(lines(out.stdout)[1]).toBe(heretixRow(run.result));
  });

  it("a list of prompt versions is an A/B group, one row per version; the API has one built-in version", async () => {
    // prompts/rpl holds one bank (rpl-assay-v1) and the API refuses a version listed twice, so a
    // two-version group cannot run here: a list of one makes a group of one, and a list naming an
    // unknown second version is refused naming it.
    const { path } = config(`claim: "Group of one (cli)."
model: sim:rpl
prompt_version: [rpl-assay-v1]
K: 4
R: 2
`);
    const out = await assay(["rpl", "run", "--config", path]);
    expect(out.code, out.stderr).toBe(0);
    const ids = started(out.stderr);
    expect(ids).toHaveLength(1);
    const run = await getRun(ids[0]);
    expect(run.config.group_id).toMatch(/^grp_/);
    expect(lines(out.stdout)).toEqual(["Running sim:rpl  K=4 R=2  version=rpl-assay-v1", heretixRow(run.result)]);

    const two = await assay([
      "rpl",
      "run",
      "--config",
      path,
      "--prompt-version",
      "rpl-assay-v1",
      "--prompt-version",
      "rpl-assay-v2",
    ]);
    expect(two.code).toBe(1);
    expect(two.stderr).toMatch(/^assay: 400 .*prompt_version\.1: unknown prompt version 'rpl-assay-v2'[^\n]*\n$/);
    const twice = await assay(["rpl", "run", "--config", path, "--prompt-version", "rpl-assay-v1", "rpl-assay-v1"]);
    expect(twice.code).toBe(1);
    expect(twice.stderr).toMatch(/^assay: 400 .*prompt_version: lists a version twice[^\n]*\n$/);
  });

  it("--preset auto follows every stage and prints each decision, then the final row", async () => {
    const { path } = config(`claim: "Auto preset (cli)."
model: sim:rpl
`);
    const out = await assay(["rpl", "run", "--config", path, "--preset", "auto"]);
    expect(out.code, out.stderr).toBe(0);
    // The stages as the API chains them: each stage's result names the next stage's run.
    const chain: RunJson[] = [await getRun(started(out.stderr)[0])];
    while (chain.at(-1)!.result.next_run_id) chain.push(await getRun(chain.at(-1)!.result.next_run_id!));
    expect(chain.map((r) => r.config.stage)).toEqual(chain.map((_, i) => i + 1));
    expect(chain.every((r) => r.config.preset === "auto" && r.status === "succeeded")).toBe(true);
    const last = chain.at(-1)!.result;
    expect(last.auto?.final).toBeDefined();
    const stages = last.auto!.stages;
    expect(stages).toHaveLength(chain.length);

    const printed = lines(out.stdout);
    expect(printed[0]).toBe(
      `Running sim:rpl  K=${chain[0].config.K} R=${chain[0].config.R}  version=rpl-assay-v1  preset=auto`,
    );
    expect(printed).toHaveLength(1 + stages.length + 1);
    stages.forEach((s, i) => {
      expect(printed[1 + i]).toMatch(
        new RegExp(`^  ${s.stage_id}  T=${s.T} K=${s.K} R=${s.R}  p=.* -> ${s.decision} \\(${escapeRegExp(s.reason)}`),
      );
    });
    expect(printed.at(-1)).toBe(heretixRow(last));
  });

  it('--out writes {"runs": [result]} as Heretix does, with the run id as execution_id; --json prints the runs', async () => {
    const { dir, path } = config(`claim: "Out file (cli)."
model: sim:rpl
K: 4
R: 2
`);
    const file = join(dir, "results", "rpl.json");
    const out = await assay(["rpl", "run", "--config", path, "--out", file]);
    expect(out.code, out.stderr).toBe(0);
    const run = await getRun(started(out.stderr)[0]);
    expect(JSON.parse(readFileSync(file, "utf8"))).toEqual({ runs: [{ execution_id: run.id, ...run.result }] });
    expect(lines(out.stdout)).toEqual([
      "Running sim:rpl  K=4 R=2  version=rpl-assay-v1",
      heretixRow(run.result),
      `Wrote ${file}`,
    ]);

    const asJson = await assay(["--json", "rpl", "run", "--config", path]);
    expect(asJson.code, asJson.stderr).toBe(0);
    const printed = JSON.parse(asJson.stdout) as { runs: RunJson[] };
    expect(printed.runs).toHaveLength(1);
    expect(printed.runs[0]).toEqual(await getRun(printed.runs[0].id));
    expect(printed.runs[0].status).toBe("succeeded");

    // --detach returns once the run is made (and so cannot write its result).
    const detached = await assay(["rpl", "run", "--config", path, "--detach"]);
    expect(detached.code, detached.stderr).toBe(0);
    expect(detached.stdout).toBe("");
    const [id] = started(detached.stderr);
    expect(detached.stderr).toContain(`detached: follow it with \`assay runs watch ${id}\``);
    expect((await assay(["runs", "watch", id])).code).toBe(0);
    const both = await assay(["rpl", "run", "--config", path, "--detach", "--out", file]);
    expect(both.code).toBe(2);
    expect(both.stderr).toBe("assay: --out needs the run's result: leave out --detach\n");
  });

  it("a live model takes its endpoint and key from the environment (api_key_env)", async () => {
    const fake = inject("fakeOpenAIUrl");
    const model = `rpl-cli-live-${Date.now()}`;
    const answer = JSON.stringify({
      prob_true: 0.7,
      confidence_self: 0.6,
      assumptions: [],
      reasoning_bullets: ["a", "b", "c"],
      contrary_considerations: ["x", "y"],
      ambiguity_flags: [],
    });
    await registerScenario(fake, { id: model, text: answer });
    const { path } = config(`claim: "Live key (cli)."
model: ${model}
K: 2
R: 2
T: 2
api_key_env: RPL_TEST_KEY
base_url: ${fake}
`);
    const out = await assay(["rpl", "run", "--config", path], { env: { RPL_TEST_KEY: "sk-rpl-cli-test-5678" } });
    expect(out.code, out.stderr).toBe(0);
    const run = await getRun(started(out.stderr)[0]);
    expect(run.result.aggregates.prob_true_rpl).toBeCloseTo(0.7, 12);
    expect(lines(out.stdout)[1]).toBe(heretixRow(run.result));
    const requests = await recordedRequests(fake, model);
    expect(requests).toHaveLength(4);
    expect(requests.every((r) => r.headers.authorization === "***5678")).toBe(true);

    // Without a key, as Heretix: a live run refuses to start.
    const { path: keyless } = config(`claim: "No key (cli)."\nmodel: gpt-5\n`);
    const refused = await assay(["rpl", "run", "--config", keyless], {
      env: { OPENAI_API_KEY: undefined, OPENROUTER_API_KEY: undefined },
    });
    expect(refused.code).toBe(1);
    expect(refused.stderr).toBe(
      "assay: OPENAI_API_KEY not set (required for live runs with model gpt-5; a sim:* model or --mock needs none)\n",
    );
  });

  it("Ctrl-C cancels the run, says so, and exits 130", async () => {
    const { path } = config(`claim: "Interrupted (cli)."
model: sim:rpl
K: 8
R: 2
concurrency: 1
simulator: {latency_ms: 2000}
`);
    const out = await assay(["rpl", "run", "--config", path], {
      onSpawn: (child) => void outputContains(child, "stderr", "Ctrl-C cancels it").then(() => child.kill("SIGINT")),
    });
    expect(out.code).toBe(130);
    const [id] = started(out.stderr);
    expect(out.stderr).toContain(`interrupted: canceling run ${id}`);
    expect((await getRun(id)).status).toBe("canceled");
  });

  it("bad input: bad YAML, a missing config, an unknown key or flag, a value the API refuses", async () => {
    const dir = workdir();
    const bad = join(dir, "bad.yaml");
    writeFileSync(bad, 'claim: "unclosed\nK: [1,\n');
    const badYaml = await assay(["rpl", "run", "--config", bad]);
    expect(badYaml.code).toBe(1);
    expect(badYaml.stderr).toMatch(new RegExp(`^assay: ${escapeRegExp(bad)} is not valid YAML: [^\\n]+\\n$`));

    const missing = await assay(["rpl", "run", "--config", join(dir, "nope.yaml")]);
    expect(missing.code).toBe(1);
    expect(missing.stderr).toBe(`assay: cannot read ${join(dir, "nope.yaml")}: no such file\n`);

    const noConfig = await assay(["rpl", "run"]);
    expect(noConfig.code).toBe(2);
    expect(noConfig.stderr).toMatch(/error: required option '--config <path>' not specified/);

    const { path } = config(`claim: "Bad input (cli)."\nmodel: sim:rpl\n`);
    const flag = await assay(["rpl", "run", "--config", path, "--bogus"]);
    expect(flag.code).toBe(2);
    expect(flag.stderr).toMatch(/error: unknown option '--bogus'/);
    const preset = await assay(["rpl", "run", "--config", path, "--preset", "manual"]);
    expect(preset.code).toBe(2);

    // Heretix reads its config into a dataclass: an unknown key stops the run.
    const { path: unknown } = config(`claim: "Unknown key (cli)."\nmodel: sim:rpl\ntemperature: 0.2\n`);
    const unknownKey = await assay(["rpl", "run", "--config", unknown]);
    expect(unknownKey.code).toBe(1);
    expect(unknownKey.stderr).toMatch(
      new RegExp(`^assay: ${escapeRegExp(unknown)}: unknown key 'temperature' \\(known: claim, [^\\n]+\\)\\n$`),
    );

    // A value is checked by the API, whose 400 names the field.
    const { path: zeroK } = config(`claim: "Invalid K (cli)."\nmodel: sim:rpl\nK: 0\n`);
    const invalid = await assay(["rpl", "run", "--config", zeroK]);
    expect(invalid.code).toBe(1);
    expect(invalid.stderr).toMatch(/^assay: 400 Validation failed: [^\n]*\(K: [^\n]+\)\n$/);
    expect(invalid.stdout).toBe("");
  });
});

describe("assay rpl compare", () => {
  it("prints the API's comparison: what differs, what is held equal, deltas and the winner", async () => {
    const { path } = config(`claim: "Compare models (cli)."
K: 8
R: 2
`);
    const ids: string[] = [];
    for (const model of ["sim:rpl", "sim:rpl-other"]) {
      const out = await assay(["--json", "rpl", "run", "--config", path, "--model", model]);
      expect(out.code, out.stderr).toBe(0);
      ids.push((JSON.parse(out.stdout) as { runs: RunJson[] }).runs[0].id);
    }
    const res = await fetch(`${server()}/v1/rpl/compare?runs=${ids.join(",")}`, { headers });
    expect(res.status).toBe(200);
    type Row = {
      run_id: string;
      value: string;
      prob_true_rpl: number;
      ci95: [number, number];
      ci_width: number;
      stability_score: number;
      pqs: number;
      delta_p: number;
      delta_ci_width: number;
      delta_stability: number;
      delta_pqs: number;
    };
    const api = (await res.json()) as {
      dimension: string;
      parity: Record<string, unknown>;
      runs: Row[];
      winner: { run_id: string | null; rule: string };
    };
    expect(api.dimension).toBe("model");

    const out = await assay(["rpl", "compare", ...ids]);
    expect(out.code, out.stderr).toBe(0);
    const printed = lines(out.stdout);
    expect(printed[0]).toBe("compared: model");
    for (const [k, v] of Object.entries(api.parity))
      expect(printed[1]).toContain(`${k}=${typeof v === "string" ? JSON.stringify(v) : String(v)}`);
    expect(printed[2].split(/\s+/)).toEqual([
      "model",
      "run",
      "p",
      "CI95",
      "width",
      "stab",
      "PQS",
      "Δp",
      "Δwidth",
      "Δstab",
      "ΔPQS",
    ]);
    const sign = (x: number, d: number) => (x < 0 ? "" : "+") + py(x, d);
    api.runs.forEach((r, i) => {
      expect(printed[4 + i].split(/\s+/)).toEqual([
        r.value,
        r.run_id,
        py(r.prob_true_rpl, 3),
        `[${py(r.ci95[0], 3)},${py(r.ci95[1], 3)}]`,
        py(r.ci_width, 3),
        py(r.stability_score, 3),
        String(r.pqs),
        sign(r.delta_p, 3),
        sign(r.delta_ci_width, 3),
        sign(r.delta_stability, 3),
        sign(r.delta_pqs, 0),
      ]);
    });
    const winner = api.runs.find((r) => r.run_id === api.winner.run_id);
    expect(printed.at(-1)).toBe(
      winner
        ? `Winner: ${winner.run_id} (${winner.value}) by ${{ ci_width: "narrower CI", pqs: "higher PQS", stability: "higher stability" }[api.winner.rule]}`
        : "Result: tie",
    );

    const asJson = await assay(["--json", "rpl", "compare", ...ids]);
    expect(asJson.code).toBe(0);
    expect(JSON.parse(asJson.stdout)).toEqual(api);

    // An unknown run is the API's 400 naming it; one run is a usage error.
    const unknown = await assay(["rpl", "compare", ids[0], "run_doesnotexist"]);
    expect(unknown.code).toBe(1);
    expect(unknown.stderr).toMatch(/^assay: 400 [^\n]*runs\.1: no run 'run_doesnotexist'[^\n]*\n$/);
    const one = await assay(["rpl", "compare", ids[0]]);
    expect(one.code).toBe(2);
  });
});
