// Issue 17, "New run forms": the request each form sends. A form left as it opens must ask for what the
// API does by default, so each default body is run through the API's own request schema and compared
// with what the schema makes of the smallest request (its defaults), not with numbers copied here.
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { ChainDeterminismRunRequest } from "../../../src/evaluators/chain-determinism/request.ts";
import { RplRunRequest } from "../../../src/evaluators/rpl/request.ts";
import { DEFAULT_LABELS, JudgeRunRequest } from "../../../src/evaluators/judge/request.ts";
import { findCriticPrompt } from "../../../src/evaluators/judge/prompts.ts";
import { SIM_DIVERGENCE } from "../../../src/providers/sim.ts";
import { FormProblem, list, num, type ModelChoice } from "../../../dashboard/src/components/request.ts";
import {
  CHAIN_DETERMINISM_DEFAULTS,
  chainDeterminismRequest,
  parseSuiteFile,
} from "../../../dashboard/src/evaluators/chain-determinism/request.ts";
import { RPL_DEFAULTS, rplRequest } from "../../../dashboard/src/evaluators/rpl/request.ts";
import {
  JUDGE_DEFAULTS,
  judgeRequest,
  newCritic,
  parseItemsJsonl,
  type JudgeFormState,
} from "../../../dashboard/src/evaluators/judge/request.ts";

const root = join(import.meta.dirname, "..", "..", "..");
const connection: ModelChoice = {
  source: "connection",
  simModel: "sim:agent",
  model: "openai/gpt-4.1",
  connection: "openrouter",
};

describe("number fields", () => {
  it.each([
    ["", undefined],
    ["  ", undefined],
    ["0", 0],
    ["0.25", 0.25],
    [" 12 ", 12],
    ["1e3", 1000],
    // Not a number: sent as typed, so the API names the field instead of the page guessing.
    ["abc", "abc"],
  ])("reads %j as %j", (text, value) => {
    expect(num(text)).toBe(value);
  });

  it("splits lists on commas and lines, keeping spaces inside an entry", () => {
    expect(list(" KEEP, REJECT ,,\nNOT SURE ")).toEqual(["KEEP", "REJECT", "NOT SURE"]);
    expect(list("")).toEqual([]);
  });
});

describe("chain-determinism form", () => {
  it("opens with the API's defaults: its body parses to what the schema makes of {model: sim:agent}", () => {
    const body = chainDeterminismRequest(CHAIN_DETERMINISM_DEFAULTS);
    const api = ChainDeterminismRunRequest.parse({ model: "sim:agent" });
    // The run's simulator knobs default to SIM_DIVERGENCE and no latency when the request has none.
    expect(ChainDeterminismRunRequest.parse(body)).toEqual({
      ...api,
      simulator: { divergence: SIM_DIVERGENCE, latency_ms: 0 },
    });
    // And the README's table, read by hand: suite default, 5 queries × 10 replays, temperature 0,
    // no concurrency (the run adapts), max_turns 10, max_tokens 1024, min_success 5, timeout 60 s, divergence 0.25.
    expect(body).toEqual({
      model: "sim:agent",
      suite: "default",
      n_queries: 5,
      n_replays: 10,
      temperature: 0,
      max_turns: 10,
      max_tokens: 1024,
      min_success: 5,
      timeout_s: 60,
      simulator: { divergence: 0.25, latency_ms: 0 },
    });
  });

  it("sends what was entered; a saved connection names it and drops the simulator's knobs", () => {
    const body = chainDeterminismRequest({
      ...CHAIN_DETERMINISM_DEFAULTS,
      model: connection,
      suite: "ste_1",
      n_queries: "2",
      n_replays: "3",
      temperature: "0.7",
      seed: "42",
      divergence: "0.9",
    });
    expect(body).toMatchObject({
      model: "openai/gpt-4.1",
      provider: { connection: "openrouter" },
      suite: "ste_1",
      n_queries: 2,
      n_replays: 3,
      temperature: 0.7,
      seed: 42,
    });
    expect(body).not.toHaveProperty("simulator");
    expect(ChainDeterminismRunRequest.safeParse(body).success).toBe(true);
  });

  it("leaves an emptied field out, so the API's default applies", () => {
    const body = chainDeterminismRequest({
      ...CHAIN_DETERMINISM_DEFAULTS,
      n_replays: "",
      divergence: "",
      latency_ms: "",
    });
    expect(body).not.toHaveProperty("n_replays");
    expect(body).not.toHaveProperty("simulator");
    expect(ChainDeterminismRunRequest.parse(body).n_replays).toBe(
      ChainDeterminismRunRequest.parse({ model: "x" }).n_replays,
    );
  });
});

describe("suite files", () => {
  it("sends the example suite file as it is (the API's CreateSuiteRequest)", () => {
    const text = readFileSync(join(root, "examples/chain-determinism/suite.json"), "utf8");
    expect(parseSuiteFile(text, "suite.json")).toEqual(JSON.parse(text));
  });

  it("names a bare suite, or one without a name, after its file", () => {
    const suite = { system_prompt: "s", tools: [], stubs: {}, queries: [] };
    expect(parseSuiteFile(JSON.stringify(suite), "my-suite.json")).toEqual({ name: "my-suite", suite });
    expect(parseSuiteFile(JSON.stringify({ suite }), "other.JSON")).toEqual({ name: "other", suite });
  });

  it.each([
    ["not JSON", "{nope", /suite file: s\.json is not JSON/],
    ["a list", "[1]", /must hold a JSON object/],
  ])("refuses %s, naming the file", (_, text, message) => {
    expect(() => parseSuiteFile(text, "s.json")).toThrow(FormProblem);
    expect(() => parseSuiteFile(text, "s.json")).toThrow(message);
  });
});

describe("rpl form", () => {
  const claim = "Tariffs raise consumer prices.";

  it("opens with the API's defaults: its body parses to what the schema makes of {claim, model: sim:rpl}", () => {
    const body = rplRequest({ ...RPL_DEFAULTS, claim });
    expect(RplRunRequest.parse(body)).toEqual({
      ...RplRunRequest.parse({ claim, model: "sim:rpl" }),
      simulator: { latency_ms: 0 },
    });
    // README: prompt_version rpl-assay-v1, K 8, R 2, T null (the whole bank), B 5000, no seed.
    expect(body).toMatchObject({ prompt_version: "rpl-assay-v1", K: 8, R: 2, T: null, B: 5000 });
    expect(body).not.toHaveProperty("seed");
    expect(body).not.toHaveProperty("preset");
  });

  it("keeps a 64-bit seed exact as text, and sends T when given", () => {
    const body = rplRequest({
      ...RPL_DEFAULTS,
      claim,
      seed: " 18446744073709551615 ",
      T: "6",
      K: "4",
      R: "1",
      B: "200",
    });
    expect(body).toMatchObject({ seed: "18446744073709551615", T: 6, K: 4, R: 1, B: 200 });
    expect(RplRunRequest.parse(body).seed).toBe("18446744073709551615");
  });

  it("makes several prompt versions a list (an A/B group), one a string", () => {
    expect(rplRequest({ ...RPL_DEFAULTS, claim, prompt_versions: "rpl-assay-v1, rpl-other" }).prompt_version).toEqual([
      "rpl-assay-v1",
      "rpl-other",
    ]);
    expect(rplRequest({ ...RPL_DEFAULTS, claim, prompt_versions: " rpl-assay-v1 " }).prompt_version).toBe(
      "rpl-assay-v1",
    );
  });

  it("with preset auto, leaves K, R and T to the stages", () => {
    const body = rplRequest({ ...RPL_DEFAULTS, claim, preset: "auto", K: "3" });
    expect(body.preset).toBe("auto");
    for (const key of ["K", "R", "T"]) expect(body).not.toHaveProperty(key);
  });

  it("through a connection: names it, no simulator", () => {
    const body = rplRequest({ ...RPL_DEFAULTS, claim, model: connection, no_cache: true });
    expect(body).toMatchObject({ model: "openai/gpt-4.1", provider: { connection: "openrouter" }, no_cache: true });
    expect(body).not.toHaveProperty("simulator");
  });
});

describe("judge form", () => {
  const rows = (over: Partial<JudgeFormState> = {}): JudgeFormState => ({
    ...JUDGE_DEFAULTS,
    critics: [newCritic("c")],
    items: [{ id: "q1", query: "Sandpiles and forest fires", expected: "" }],
    ...over,
  });

  it("opens with the API's defaults: one default critic and item parse to what the schema makes of the smallest request", () => {
    const smallest = {
      items: [{ id: "q1", query: "Sandpiles and forest fires" }],
      critics: [{ name: "c", model: "sim:critic" }],
    };
    expect(JudgeRunRequest.parse(judgeRequest(rows()))).toEqual(JudgeRunRequest.parse(smallest));
    // README: labels KEEP, REJECT, SPLIT, MERGE, UNCLEAR; majority voting; contested below 0.4; seed 0.
    expect(list(JUDGE_DEFAULTS.labels)).toEqual(DEFAULT_LABELS);
    expect(JudgeRunRequest.parse(smallest)).toMatchObject({
      contested_threshold: 0.4,
      seed: 0,
      voting: { strategy: "majority" },
    });
  });

  it("opens with the README's panel, whose prompts are in the bank", () => {
    const body = judgeRequest({ ...JUDGE_DEFAULTS, items: [{ id: "q1", query: "x", expected: "KEEP" }] });
    expect(body.critics).toEqual([
      {
        name: "strict",
        model: "sim:critic",
        prompt: "strict-reviewer@1",
        weight: 1,
        temperature: 0,
        max_tokens: 2000,
        timeout_s: 60,
      },
      { name: "general", model: "sim:critic", weight: 1, temperature: 0, max_tokens: 2000, timeout_s: 60 },
      {
        name: "noisy",
        model: "sim:critic",
        weight: 1,
        temperature: 0,
        max_tokens: 2000,
        timeout_s: 60,
        simulator: { noise: 0.5 },
      },
    ]);
    expect(typeof findCriticPrompt("strict-reviewer@1")).toBe("object");
    expect(JudgeRunRequest.safeParse(body).success).toBe(true);
  });

  it("sends a critic's own prompt, a connection, and the item rows' expected labels", () => {
    const body = judgeRequest(
      rows({
        critics: [
          newCritic("own", { promptFrom: "own", system_prompt: "", prompt_template: "Judge: {query}" }),
          newCritic("remote", { model: connection, noise: "0.3", prompt: "panel-general@2" }),
        ],
        items: [
          { id: " q1 ", query: "a", expected: " KEEP " },
          { id: "q2", query: "b", expected: "" },
        ],
      }),
    );
    expect(body.critics[0]).toMatchObject({ name: "own", system_prompt: "", prompt_template: "Judge: {query}" });
    expect(body.critics[0]).not.toHaveProperty("prompt");
    expect(body.critics[1]).toMatchObject({
      model: "openai/gpt-4.1",
      provider: { connection: "openrouter" },
      prompt: "panel-general@2",
    });
    expect(body.critics[1]).not.toHaveProperty("simulator");
    expect(body.items).toEqual([
      { id: "q1", query: "a", expected: "KEEP" },
      { id: "q2", query: "b" },
    ]);
  });

  it.each([
    ["majority", { strategy: "majority", priority: ["REJECT", "KEEP"], fallback: "UNCLEAR" }],
    ["unanimous", { strategy: "unanimous", fallback: "UNCLEAR" }],
    ["weighted", { strategy: "weighted", fallback: "UNCLEAR", use_confidence: false }],
    ["first_disagreement", { strategy: "first_disagreement", fallback: "UNCLEAR", disagree_label: "SPLIT" }],
  ] as const)("sends only %s's own voting options", (strategy, voting) => {
    const body = judgeRequest(
      rows({ strategy, priority: "REJECT, KEEP", fallback: "UNCLEAR", use_confidence: false, disagree_label: "SPLIT" }),
    );
    expect(body.voting).toEqual(voting);
    expect(JudgeRunRequest.safeParse(body).success).toBe(true);
  });

  it("reads the example items file as the CLI does (query_id is the id)", () => {
    const text = readFileSync(join(root, "examples/judge/items.jsonl"), "utf8");
    const lines = text
      .split("\n")
      .filter((l) => l.trim())
      .map((l) => JSON.parse(l) as { query_id: string; query: string; expected: string });
    expect(parseItemsJsonl(text)).toEqual(lines.map((l) => ({ id: l.query_id, query: l.query, expected: l.expected })));
    const body = judgeRequest(rows({ itemsFrom: "jsonl", jsonl: text }));
    expect(body.items).toHaveLength(lines.length);
  });

  it("keeps context, skips blank lines, and ids an item by its query's first 80 characters", () => {
    const long = "x".repeat(100);
    expect(parseItemsJsonl(`{"id": "a", "query": "q", "context": {"k": 1}}\n\n{"query": "${long}"}\r\n`)).toEqual([
      { id: "a", query: "q", context: { k: 1 } },
      { id: "x".repeat(80), query: long },
    ]);
  });

  it.each([
    ["a line that is not JSON", '{"query": "a"}\n{oops', /^items line 2: not JSON/],
    ["a line without a query", '{"id": "a"}', /^items line 1: query must be non-empty text/],
    ["nothing", "\n \n", /^items: no items/],
  ])("refuses %s, naming the line", (_, text, message) => {
    expect(() => parseItemsJsonl(text)).toThrow(message);
  });
});
