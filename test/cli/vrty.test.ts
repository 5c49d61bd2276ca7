// `assay vrty` and `assay vrty batch`, against the real server. Expected values come from the API itself
// (POST /v1/vrty/score and /score/batch called here over plain HTTP) or from its contract
// (/openapi.json), never from the CLI's own output.
import { afterAll, describe, expect, inject, it } from "vitest";
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { createServer } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { assay } from "./assay.ts";

const server = () => inject("assayUrl");
const headers = { Authorization: "Bearer assay_sk_local_dev_key", "Content-Type": "application/json" };
const dir = mkdtempSync(join(tmpdir(), "assay-vrty-"));
afterAll(() => rmSync(dir, { recursive: true, force: true }));
const file = (name: string, content: string) => {
  const path = join(dir, name);
  writeFileSync(path, content);
  return path;
};

/** The API's answer for one pair, as the exact bytes it sends. */
async function apiScore(prompt: string, response: string, extra: Record<string, unknown> = {}): Promise<string> {
  const res = await fetch(`${server()}/v1/vrty/score`, {
    method: "POST",
    headers,
    body: JSON.stringify({ prompt, response, ...extra }),
  });
  expect(res.status).toBe(200);
  return res.text();
}

async function apiBatch(body: string): Promise<{ status: number; json: any }> {
  const res = await fetch(`${server()}/v1/vrty/score/batch`, { method: "POST", headers, body });
  return { status: res.status, json: await res.json() };
}

/** The API's single-score answers for many pairs, a few requests at a time. */
async function apiScores(pairs: { prompt: string; response: string }[]): Promise<string[]> {
  const out: string[] = [];
  for (let i = 0; i < pairs.length; i += 50) {
    out.push(...(await Promise.all(pairs.slice(i, i + 50).map((p) => apiScore(p.prompt, p.response)))));
  }
  return out;
}

async function closedPort(): Promise<number> {
  return new Promise((resolve) => {
    const s = createServer().listen(0, "127.0.0.1", () => {
      const p = (s.address() as { port: number }).port;
      s.close(() => resolve(p));
    });
  });
}

const lines = (text: string) => text.split("\n").slice(0, -1);

const FRANCE = { prompt: "What is the capital of France?", response: "Paris is the capital of France." };

// Inputs whose scores exercise the engine's edges: unicode folding, empty and stopword-only texts,
// several sentences, and more than the 2,048 tokens that are scored.
const CASES: { name: string; prompt: string; response: string }[] = [
  { name: "the README example", ...FRANCE },
  {
    name: "unicode",
    prompt: "Où se trouve la Tour Eiffel? 東京は？",
    response: "La Tour Eiffel se trouve à Paris — naïve café ﬁne Ⅻ. 東京です。",
  },
  { name: "empty response", prompt: "What is the capital of France?", response: "" },
  { name: "empty prompt", prompt: "", response: "Paris is the capital of France. It is on the Seine." },
  { name: "stopwords only", prompt: "What is it?", response: "It is what it is." },
  {
    name: "several sentences",
    prompt: "Explain how a hash map handles collisions.",
    response:
      "A hash map stores keys in buckets.\nWhen two keys collide, chaining keeps a list per bucket! Open addressing probes the next slot? Resizing keeps chains short.",
  },
  {
    name: "over 2,048 tokens",
    prompt: "Summarise the history of the printing press.",
    response: Array.from(
      { length: 3000 },
      (_, i) => ["press", "the", "printing", "Gutenberg", `w${i % 97}`, "type."][i % 6],
    ).join(" "),
  },
];

describe("assay vrty", () => {
  it("prints the score JSON the API returns for the pair, on one line", async () => {
    const out = await assay(["vrty", "--prompt", FRANCE.prompt, "--response", FRANCE.response]);
    expect(out.stderr).toBe("");
    expect(out.code).toBe(0);
    expect(out.stdout).toBe((await apiScore(FRANCE.prompt, FRANCE.response)) + "\n");
  });

  it("--pretty indents the JSON; --json keeps it on one line even with --pretty", async () => {
    const api = JSON.parse(await apiScore(FRANCE.prompt, FRANCE.response));
    const pretty = await assay(["vrty", "--prompt", FRANCE.prompt, "--response", FRANCE.response, "--pretty"]);
    expect(pretty.code).toBe(0);
    expect(pretty.stdout).toBe(JSON.stringify(api, null, 2) + "\n");
    expect(pretty.stdout.split("\n").length).toBeGreaterThan(10);
    const json = await assay(["--json", "vrty", "--prompt", FRANCE.prompt, "--response", FRANCE.response, "--pretty"]);
    expect(json.code).toBe(0);
    expect(json.stdout).toBe(JSON.stringify(api) + "\n");
  });

  it("reads the prompt and the response from files, and standard input from - and /dev/stdin", async () => {
    // File contents are taken as they are, trailing newline included.
    const prompt = "What does a compiler do?\n";
    const response = "A compiler translates source code into machine code.\nIt also reports errors.\n";
    const expected = (await apiScore(prompt, response)) + "\n";
    const p = file("prompt.txt", prompt);
    const r = file("response.txt", response);
    const fromFiles = await assay(["vrty", "--prompt-file", p, "--response-file", r]);
    expect(fromFiles.code).toBe(0);
    expect(fromFiles.stdout).toBe(expected);
    const dash = await assay(["vrty", "--prompt-file", p, "--response-file", "-"], { input: response });
    expect(dash.stdout).toBe(expected);
    const devStdin = await assay(["vrty", "--prompt-file", "/dev/stdin", "--response", response], { input: prompt });
    expect(devStdin.stdout).toBe(expected);
    const local = await assay(["vrty", "--local", "--prompt-file", "-", "--response-file", r], { input: prompt });
    expect(local.stdout).toBe(expected);
  });

  it("--local prints the server's bytes for the same input, without a server, a key or a session", async () => {
    // A server URL that is not a URL: any command that made a session would stop with a usage error.
    const noServer = { ASSAY_URL: "not a url", ASSAY_API_KEY: undefined };
    const refused = await assay(["vrty", "--prompt", "a", "--response", "b"], { env: noServer });
    expect(refused.code).toBe(2);
    for (const c of CASES) {
      const api = (await apiScore(c.prompt, c.response)) + "\n";
      const viaServer = await assay(["vrty", "--prompt", c.prompt, "--response", c.response]);
      const local = await assay(["vrty", "--local", "--prompt", c.prompt, "--response", c.response], { env: noServer });
      expect(local.stderr, c.name).toBe("");
      expect(local.code, c.name).toBe(0);
      expect(viaServer.stdout, c.name).toBe(api);
      expect(local.stdout, c.name).toBe(api);
      const pretty = await assay(["vrty", "--local", "--pretty", "--prompt", c.prompt, "--response", c.response], {
        env: noServer,
      });
      expect(pretty.stdout, c.name).toBe(JSON.stringify(JSON.parse(api), null, 2) + "\n");
    }
  });

  it("--idf-table scores with one of the server's custom tables; --local has only the built-in one", async () => {
    const created = await fetch(`${server()}/v1/vrty/idf-tables`, {
      method: "POST",
      headers,
      body: JSON.stringify({
        name: "k8s",
        documents: ["Kubernetes schedules pods onto nodes.", "Helm charts template manifests for pods."],
      }),
    });
    expect(created.status).toBe(201);
    const table = ((await created.json()) as { id: string; sha256: string }).id;
    const pair = { prompt: "How are pods scheduled?", response: "Kubernetes schedules pods onto nodes." };
    const api = await apiScore(pair.prompt, pair.response, { idf_table: table });
    expect(api).not.toBe(await apiScore(pair.prompt, pair.response));
    const out = await assay(["vrty", "--prompt", pair.prompt, "--response", pair.response, "--idf-table", table]);
    expect(out.code).toBe(0);
    expect(out.stdout).toBe(api + "\n");

    const unknown = await assay(["vrty", "--prompt", "a", "--response", "b", "--idf-table", "idf_doesnotexist"]);
    expect(unknown.code).toBe(1);
    expect(unknown.stderr).toBe(
      "assay: 400 Validation failed: The request has invalid fields: idf_table. (idf_table: No IDF table 'idf_doesnotexist' for this tenant.)\n",
    );

    const local = await assay(["vrty", "--local", "--prompt", "a", "--response", "b", "--idf-table", table]);
    expect(local.code).toBe(2);
    expect(local.stderr).toMatch(/^assay: --local has only the built-in IDF table/);
  });

  it("a missing file is one line naming it, exit 1", async () => {
    const missing = join(dir, "no-such-prompt.txt");
    for (const args of [
      ["vrty", "--prompt-file", missing, "--response", "b"],
      ["vrty", "--local", "--prompt", "a", "--response-file", missing],
      ["vrty", "batch", "--in", missing],
      ["vrty", "batch", "--local", "--in", missing, "--out", join(dir, "never.jsonl")],
    ]) {
      const out = await assay(args);
      expect(out.code, args.join(" ")).toBe(1);
      expect(out.stderr, args.join(" ")).toBe(`assay: cannot read ${missing}: no such file\n`);
      expect(out.stdout).toBe("");
    }
  });

  it("an API error and an unreachable server are one line, exit 1; --local refuses what the server refuses", async () => {
    // One character past the API's limit on a text (its contract's maxLength), from a file: too long for argv.
    const doc = (await (await fetch(`${server()}/openapi.json`)).json()) as any;
    const maxLength: number = doc.components.schemas.VrtyScoreRequest.properties.prompt.maxLength;
    const long = file("long.txt", "a".repeat(maxLength + 1));
    const api = await fetch(`${server()}/v1/vrty/score`, {
      method: "POST",
      headers,
      body: JSON.stringify({ prompt: "a".repeat(maxLength + 1), response: "b" }),
    });
    const problem = (await api.json()) as {
      status: number;
      title: string;
      detail: string;
      errors: { path: string; message: string }[];
    };
    const expected = `assay: ${problem.status} ${problem.title}: ${problem.detail} (${problem.errors.map((e) => `${e.path}: ${e.message}`).join("; ")})\n`;

    const viaServer = await assay(["vrty", "--prompt-file", long, "--response", "b"]);
    expect(viaServer.code).toBe(1);
    expect(viaServer.stderr).toBe(expected);
    const local = await assay(["vrty", "--local", "--prompt-file", long, "--response", "b"]);
    expect(local.code).toBe(1);
    expect(local.stderr).toBe(expected);

    const port = await closedPort();
    const gone = await assay(["--server", `http://127.0.0.1:${port}`, "vrty", "--prompt", "a", "--response", "b"]);
    expect(gone.code).toBe(1);
    expect(gone.stderr).toBe(`assay: cannot reach http://127.0.0.1:${port}: ECONNREFUSED\n`);
  });

  it("usage errors exit 2 with one line saying what is wrong; an unknown flag is commander's error", async () => {
    const mine: [string[], string][] = [
      [
        ["vrty", "--prompt", "a", "--prompt-file", "x", "--response", "b"],
        "assay: give --prompt or --prompt-file, not both\n",
      ],
      [
        ["vrty", "--prompt", "a", "--response", "b", "--response-file", "x"],
        "assay: give --response or --response-file, not both\n",
      ],
      [["vrty", "--response", "b"], "assay: --prompt or --prompt-file is required\n"],
      [["vrty", "--local", "--prompt", "a"], "assay: --response or --response-file is required\n"],
      [
        ["vrty", "--prompt-file", "-", "--response-file", "/dev/stdin"],
        "assay: standard input can be read once: give it to --prompt-file or --response-file, not both\n",
      ],
      [
        ["--server", "http://127.0.0.1:1", "vrty", "--local", "--prompt", "a", "--response", "b"],
        "assay: --local scores in-process: it takes no --server\n",
      ],
      [
        ["vrty", "batch", "--in", "x", "--min-composite", "high"],
        'assay: --min-composite must be a number, got "high"\n',
      ],
    ];
    for (const [args, stderr] of mine) {
      const out = await assay(args);
      expect(out.code, args.join(" ")).toBe(2);
      expect(out.stderr, args.join(" ")).toBe(stderr);
      expect(out.stdout).toBe("");
    }
    for (const args of [
      ["vrty", "--prompt", "a", "--response", "b", "--bogus"],
      ["vrty", "--local", "--prompt", "a", "--response", "b", "--bogus"],
      ["vrty", "--prompt", "a", "--response", "b", "extra"],
      ["vrty", "--prompt"],
      ["vrty", "batch"],
      ["vrty", "batch", "--in", "x", "--bogus"],
    ]) {
      const out = await assay(args);
      expect(out.code, args.join(" ")).toBe(2);
      expect(out.stderr, args.join(" ")).toMatch(/^error: .+\n\(run with --help for usage\)\n$/);
    }
  });
});

describe("assay vrty batch", () => {
  it("splits a file longer than one request allows; one line per pair, in order, each the pair's single score", async () => {
    const doc = (await (await fetch(`${server()}/openapi.json`)).json()) as any;
    const perRequest: number = doc.components.schemas.VrtyBatchRequest.properties.pairs.maxItems;
    const n = 2 * perRequest + 17;
    const words = ["river", "bridge", "the", "stone", "city", "of", "light", "a", "market"];
    const pairs = Array.from({ length: n }, (_, i) => ({
      id: `p${i}`,
      prompt: `Where is the ${words[i % words.length]} of town ${i}?`,
      response:
        Array.from({ length: 1 + (i % 11) }, (_, k) => words[(i * 7 + k * 3) % words.length]).join(" ") +
        `. Town ${i % 13}.`,
    }));
    // A blank line and CRLF endings are JSONL as people write it: the blank line gets no output line.
    const text = pairs.map((p, i) => JSON.stringify(p) + (i === 5 ? "\r\n\r\n" : "\n")).join("");
    const input = file("many.jsonl", text);
    const out = join(dir, "many-scores.jsonl");

    const run = await assay(["vrty", "batch", "--in", input, "--out", out]);
    expect(run.code).toBe(0);
    expect(run.stdout).toBe("");
    const written = lines(readFileSync(out, "utf8"));
    expect(written).toHaveLength(n);

    const single = await apiScores(pairs);
    const composites = single.map((s) => JSON.parse(s).composite as number);
    written.forEach((line, i) => {
      const item = JSON.parse(line);
      expect(Object.keys(item)).toEqual(["index", "id", "result"]);
      expect(item.index).toBe(i);
      expect(item.id).toBe(`p${i}`);
      expect(JSON.stringify(item.result), `line ${i + 1}`).toBe(single[i]);
    });
    // The scores differ from pair to pair, so a line out of place could not pass the check above.
    expect(new Set(composites).size).toBeGreaterThan(20);

    const mean = composites.reduce((a, b) => a + b, 0) / n;
    const min = Math.min(...composites);
    expect(run.stderr).toBe(
      `${n} pairs: ${n} scored, 0 failed; composite mean ${mean.toFixed(4)}, min ${min.toFixed(4)} -> ${out}\n`,
    );

    // A few lines against the CLI's own single-score verb too.
    for (const i of [0, perRequest, n - 1]) {
      const one = await assay(["vrty", "--prompt", pairs[i].prompt, "--response", pairs[i].response]);
      expect(one.stdout).toBe(JSON.stringify(JSON.parse(written[i]).result) + "\n");
    }

    // --local writes the same bytes, without a server.
    const localOut = join(dir, "many-local.jsonl");
    const local = await assay(["vrty", "batch", "--local", "--in", input, "--out", localOut], {
      env: { ASSAY_URL: "not a url", ASSAY_API_KEY: undefined },
    });
    expect(local.code).toBe(0);
    expect(readFileSync(localOut, "utf8")).toBe(readFileSync(out, "utf8"));
    expect(local.stderr).toBe(run.stderr.replace(out, localOut));
  });

  it("splits by request size too: long texts that together pass the body limit go in several requests", async () => {
    // The body limit is in docs/limits.md (16 MiB for /score/batch); 100 pairs of ~190 kB
    // make ~19 MB, well under the pairs-per-request limit.
    const limit = 16 * 1024 * 1024;
    const filler = "The committee reviewed the budget and the schedule of the bridge repairs. ".repeat(2500);
    const pairs = Array.from({ length: 100 }, (_, i) => ({
      id: `big${i}`,
      prompt: `What did report ${i} say about the ${["budget", "bridge", "schedule"][i % 3]}?`,
      response: `Report ${i} ${"covers the budget ".repeat(i % 7)}${filler}`.slice(0, 190_000),
    }));
    const text = pairs.map((p) => JSON.stringify(p)).join("\n") + "\n";
    expect(Buffer.byteLength(text)).toBeGreaterThan(limit);
    const out = join(dir, "big-scores.jsonl");
    const run = await assay(["vrty", "batch", "--in", file("big.jsonl", text), "--out", out]);
    expect(run.stderr).toMatch(/^100 pairs: 100 scored, 0 failed/);
    expect(run.code).toBe(0);
    const items = lines(readFileSync(out, "utf8")).map((l) => JSON.parse(l));
    expect(items.map((i) => i.id)).toEqual(pairs.map((p) => p.id));
    expect(items.map((i) => JSON.stringify(i.result))).toEqual(await apiScores(pairs));
  });

  it("a bad line or pair gets the API's error item and the rest are scored; --local writes the same", async () => {
    const good = (i: number) =>
      JSON.stringify({ id: `ok${i}`, prompt: "What is the capital of France?", response: `Paris, ${i}.` });
    // Pairs the API judges one by one when sent in a batch, in the order they appear in the file.
    const judged = [
      { prompt: "a" },
      { prompt: "a", response: "b", colour: "red" },
      [1, 2],
      { id: "typed", prompt: 7, response: null },
      "just a string",
      { id: "long", prompt: "q", response: "x".repeat(200_001) },
    ];
    const deep = `{"prompt":"a","response":${"[".repeat(70)}${"]".repeat(70)}}`;
    const fileLines = [
      good(0),
      '{"prompt": "unterminated"',
      JSON.stringify(judged[0]),
      good(1),
      JSON.stringify(judged[1]),
      JSON.stringify(judged[2]),
      '{"id":"twice","prompt":"a","prompt":"b","response":"c"}',
      JSON.stringify(judged[3]),
      deep,
      JSON.stringify(judged[4]),
      JSON.stringify(judged[5]),
      good(2),
    ];
    const input = file("mixed.jsonl", fileLines.join("\n") + "\n");
    const out = join(dir, "mixed-scores.jsonl");
    const run = await assay(["vrty", "batch", "--in", input, "--out", out]);
    expect(run.code).toBe(0);
    const items = lines(readFileSync(out, "utf8")).map((l) => JSON.parse(l));
    expect(items.map((i) => i.index)).toEqual(fileLines.map((_, i) => i));

    // The scored lines are their single scores.
    for (const [line, k] of [
      [0, 0],
      [3, 1],
      [11, 2],
    ] as const) {
      expect(items[line].id).toBe(`ok${k}`);
      expect(JSON.stringify(items[line].result)).toBe(await apiScore("What is the capital of France?", `Paris, ${k}.`));
    }

    // The judged pairs carry exactly the error the API gives them, renumbered to their line.
    const api = await apiBatch(JSON.stringify({ pairs: judged }));
    expect(api.status).toBe(200);
    const at = [2, 4, 5, 7, 9, 10];
    at.forEach((line, j) => {
      const expected = { ...api.json.results[j], index: line };
      expected.error = { ...expected.error, detail: expected.error.detail.replace(`Pair ${j} `, `Pair ${line} `) };
      expect(items[line], `line ${line + 1}`).toEqual(expected);
      expect(items[line].error.detail).toBe(`Pair ${line} has invalid fields.`);
    });

    // What the API refuses in any body (and so would refuse the whole request for) is this pair's error alone.
    expect(items[1]).toMatchObject({ index: 1, error: { status: 400, title: "Malformed JSON", errors: [] } });
    // The server's strict reader's wording (src/json/strict-json.ts), the same with and without --local: the
    // line is 25 characters, so its end is column 26.
    expect(items[1].error.detail).toBe(
      "Line 2 is not valid JSON: unexpected end of input where ',' or '}' was expected at column 26.",
    );
    const dupApi = await apiBatch('{"pairs":[{"id":"twice","prompt":"a","prompt":"b","response":"c"}]}');
    expect(dupApi.status).toBe(400);
    expect(dupApi.json.errors).toEqual([{ path: "pairs.0.prompt", message: "duplicate key" }]);
    expect(items[6]).toEqual({
      index: 6,
      id: "twice",
      error: {
        status: 400,
        title: "Validation failed",
        detail: "Pair 6 has invalid fields.",
        errors: [{ path: "prompt", message: "duplicate key" }],
      },
    });
    const deepApi = await apiBatch(`{"pairs":[${deep}]}`);
    expect(deepApi.status).toBe(400);
    expect(deepApi.json.errors[0].message).toMatch(/^nests deeper than \d+ levels/);
    expect(items[8]).toMatchObject({ index: 8, error: { status: 400, title: "Validation failed" } });
    expect(items[8].error.errors[0].message).toMatch(/^nests deeper than \d+ levels/);

    expect(run.stderr).toMatch(/^12 pairs: 3 scored, 9 failed; composite mean /);

    const localOut = join(dir, "mixed-local.jsonl");
    const local = await assay(["vrty", "batch", "--local", "--in", input, "--out", localOut]);
    expect(local.code).toBe(0);
    expect(readFileSync(localOut, "utf8")).toBe(readFileSync(out, "utf8"));
  });

  it("--min-composite gates on the mean composite: exit 0 when it passes, 3 when it fails", async () => {
    const pairs = [
      FRANCE,
      { prompt: "What is the capital of France?", response: "Paris." },
      { prompt: "Name three primary colours.", response: "Red, yellow and blue are the three primary colours." },
    ];
    const input = file("gate.jsonl", pairs.map((p) => JSON.stringify(p)).join("\n") + "\n");
    const composites = (await apiScores(pairs)).map((s) => JSON.parse(s).composite as number);
    const mean = composites.reduce((a, b) => a + b, 0) / composites.length;
    // The minimum is under the passing threshold: the gate is on the mean, not on every pair.
    const below = Math.floor(mean * 1000) / 1000;
    const above = Math.ceil(mean * 1000) / 1000;
    expect(Math.min(...composites)).toBeLessThan(below);

    for (const local of [[], ["--local"]]) {
      const pass = await assay([
        "vrty",
        "batch",
        ...local,
        "--in",
        input,
        "--out",
        join(dir, "gate-out.jsonl"),
        "--min-composite",
        String(below),
      ]);
      expect(pass.code).toBe(0);
      expect(pass.stderr).toContain(`gate passed: mean_composite ${mean} >= ${below} (--min-composite)\n`);
      const fail = await assay([
        "vrty",
        "batch",
        ...local,
        "--in",
        input,
        "--out",
        join(dir, "gate-out.jsonl"),
        "--min-composite",
        String(above),
      ]);
      expect(fail.code).toBe(3);
      expect(fail.stderr).toContain(`gate FAILED: mean_composite ${mean} not >= ${above} (--min-composite)\n`);
    }

    // Nothing scored, nothing to vouch for: the gate fails.
    const none = await assay(["vrty", "batch", "--in", file("bad.jsonl", '{"prompt":"a"}\n'), "--min-composite", "0"]);
    expect(none.code).toBe(3);
    expect(none.stderr).toContain("gate FAILED: mean_composite n/a not >= 0 (--min-composite)\n");
  });

  it("reads standard input and writes standard output by default; --json prints the summary as JSON", async () => {
    const pairs = [
      FRANCE,
      { id: "x", prompt: "Why is the sky blue?", response: "Rayleigh scattering makes the sky look blue." },
    ];
    const single = await apiScores(pairs);
    const text = pairs.map((p) => JSON.stringify(p)).join("\n") + "\n";
    const piped = await assay(["vrty", "batch", "--in", "-"], { input: text });
    expect(piped.code).toBe(0);
    const items = lines(piped.stdout).map((l) => JSON.parse(l));
    expect(items.map((i) => JSON.stringify(i.result))).toEqual(single);
    expect(items[1].id).toBe("x");
    expect(piped.stderr).toMatch(/^2 pairs: 2 scored, 0 failed; composite mean \d\.\d{4}, min \d\.\d{4}\n$/);

    const out = join(dir, "json-summary.jsonl");
    const json = await assay(["--json", "vrty", "batch", "--in", "-", "--out", out], { input: text });
    expect(json.code).toBe(0);
    expect(json.stderr).toBe("");
    const composites = single.map((s) => JSON.parse(s).composite as number);
    expect(JSON.parse(json.stdout)).toEqual({
      pairs: 2,
      scored: 2,
      failed: 0,
      mean_composite: (composites[0] + composites[1]) / 2,
      min_composite: Math.min(...composites),
      out,
    });
    expect(lines(readFileSync(out, "utf8"))).toHaveLength(2);
  });

  it("an unreachable server is exit 1 and writes nothing", async () => {
    const port = await closedPort();
    const out = join(dir, "unreachable.jsonl");
    const run = await assay([
      "--server",
      `http://127.0.0.1:${port}`,
      "vrty",
      "batch",
      "--in",
      file("one.jsonl", JSON.stringify(FRANCE) + "\n"),
      "--out",
      out,
    ]);
    expect(run.code).toBe(1);
    expect(run.stderr).toBe(`assay: cannot reach http://127.0.0.1:${port}: ECONNREFUSED\n`);
    expect(() => readFileSync(out)).toThrow();
  });
});
