import { describe, expect, it } from "vitest";
import { newTenant, problem, send, startRun, waitForRun } from "./helpers.ts";
import exampleSuite from "../../examples/chain-determinism/suite.json" with { type: "json" };

const tool = (name: string, params: Record<string, unknown> = {}) => ({
  type: "function",
  function: {
    name,
    description: name,
    parameters: { type: "object", properties: params, required: Object.keys(params) },
  },
});

const SUITE = {
  system_prompt: "Answer by calling tools, then final_answer.",
  tools: [
    tool("list_items"),
    tool("count", { in: { type: "string" } }),
    tool("final_answer", { answer: { type: "string" } }),
  ],
  stubs: { list_items: '{"items": [1, 2, 3]}', count: '{"value": 3}' },
  queries: [
    { query_id: "a", query_type: "count", user: "How many items are there?" },
    { query_id: "b", user: "List the items." },
  ],
};

describe("chain-determinism suites", () => {
  it("serves our default suite: 10 queries, 21 primitives + final_answer", async () => {
    const { key } = await newTenant();
    const s = (await (await send("GET", "/v1/chain-determinism/suites/default", key)).json()) as {
      n_queries: number;
      n_tools: number;
      suite: { tools: { function: { name: string } }[] };
    };
    expect(s.n_queries).toBe(10);
    expect(s.n_tools).toBe(22);
    expect(s.suite.tools.map((t) => t.function.name)).toContain("final_answer");
  });

  it("uploads a suite, runs it, and keeps it to the tenant", async () => {
    const { key } = await newTenant();
    const res = await send("POST", "/v1/chain-determinism/suites", key, { name: "mine", suite: SUITE });
    expect(res.status).toBe(201);
    const suite = (await res.json()) as { id: string; n_queries: number; sha256: string };
    expect(suite.n_queries).toBe(2);
    const list = (await (await send("GET", "/v1/chain-determinism/suites", key)).json()) as { data: { id: string }[] };
    expect(list.data.map((s) => s.id)).toEqual([suite.id]);

    const run = await waitForRun(
      key,
      (await startRun(key, { model: "sim:agent", suite: suite.id, n_queries: 2, n_replays: 5 })).id,
    );
    expect(run.status).toBe("succeeded");
    expect(run.config.suite).toEqual({ id: suite.id, name: "mine", sha256: suite.sha256 });
    expect(run.result.per_query.map((q: { query_id: string }) => q.query_id)).toEqual(["a", "b"]);

    const other = await newTenant("other");
    await problem(await send("GET", `/v1/chain-determinism/suites/${suite.id}`, other.key), 404);
    expect((await send("DELETE", `/v1/chain-determinism/suites/${suite.id}`, key)).status).toBe(204);
    // The finished run kept its own copy of the suite.
    expect(((await (await send("GET", `/v1/runs/${run.id}`, key)).json()) as { status: string }).status).toBe(
      "succeeded",
    );
  });

  it.each([
    ["a query without user text", { ...SUITE, queries: [{ query_id: "a", user: "" }] }, "suite.queries.0.user"],
    ["a tool without a stub", { ...SUITE, stubs: { list_items: "{}" } }, "suite.stubs"],
    ["no final_answer tool", { ...SUITE, tools: SUITE.tools.slice(0, 2) }, "suite.tools"],
    ["duplicate query ids", { ...SUITE, queries: [SUITE.queries[0], SUITE.queries[0]] }, "suite.queries"],
  ])("rejects %s, naming the field", async (_, suite, path) => {
    const { key } = await newTenant();
    const p = await problem(await send("POST", "/v1/chain-determinism/suites", key, { name: "bad", suite }), 400);
    expect(p.errors!.map((e) => e.path).join(" ")).toContain(path);
  });
});

// Issue "A suite you can trust": a suite read with GET could not be POSTed back (its `version` was
// refused), and the README's `-d @…` example named a file that did not exist.
describe("suites round-trip", () => {
  it("POSTs a GET's answer back as it is: same suite, same sha256, new id", async () => {
    const { key } = await newTenant();
    const got = (await (await send("GET", "/v1/chain-determinism/suites/default", key)).json()) as {
      id: string;
      sha256: string;
      suite: { version: string };
    };
    expect(got.suite.version).toBe("cd-default-v1");
    const res = await send("POST", "/v1/chain-determinism/suites", key, got);
    expect(res.status).toBe(201);
    const copy = (await res.json()) as { id: string; sha256: string; name: string };
    expect(copy.id).not.toBe("default");
    expect(copy.sha256).toBe(got.sha256);
    const again = (await (await send("GET", `/v1/chain-determinism/suites/${copy.id}`, key)).json()) as {
      suite: unknown;
    };
    expect(again.suite).toEqual(got.suite);
  });

  it("uploads the README's example file (examples/chain-determinism/suite.json) and runs it", async () => {
    const { key } = await newTenant();
    const res = await send("POST", "/v1/chain-determinism/suites", key, exampleSuite);
    expect(res.status).toBe(201);
    const suite = (await res.json()) as { id: string; n_queries: number };
    expect(suite.n_queries).toBe(exampleSuite.suite.queries.length);
    const run = await waitForRun(
      key,
      (await startRun(key, { model: "sim:agent", suite: suite.id, n_queries: suite.n_queries, n_replays: 5 })).id,
    );
    expect(run.status).toBe("succeeded");
  });

  it("still refuses fields a GET does not have", async () => {
    const { key } = await newTenant();
    const p = await problem(
      await send("POST", "/v1/chain-determinism/suites", key, { ...exampleSuite, owner: "me" }),
      400,
    );
    expect(p.errors?.map((e) => e.path)).toEqual(["owner"]);
  });
});
