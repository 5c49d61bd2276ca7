import { describe, expect, it } from "vitest";
import { newTenant, problem, send } from "./helpers.ts";

const PROMPT = "What is the capital of France?";
const RESPONSE = "Paris is the capital of France.";

type Result = { composite: number; idf_sha256: string; vrty_version: string; relevance: number };

describe("POST /v1/vrty/score", () => {
  it("returns the 9-key result with the default table's sha256", async () => {
    const { key } = await newTenant();
    const res = await send("POST", "/v1/vrty/score", key, { prompt: PROMPT, response: RESPONSE });
    expect(res.status).toBe(200);
    const body = (await res.json()) as Record<string, unknown>;
    // Nine keys, in code-unit order so the JSON is canonical ("completeness" < "composite").
    const keys = Object.keys(body);
    expect([...keys].sort()).toEqual([
      "coherence",
      "completeness",
      "composite",
      "conciseness",
      "explanations",
      "idf_sha256",
      "relevance",
      "vrty_version",
      "weights",
    ]);
    expect(keys).toEqual([...keys].sort());
    const meta = (await (await send("GET", "/v1/vrty/idf-tables/default", key)).json()) as { sha256: string };
    expect(body.idf_sha256).toBe(meta.sha256);
    expect(meta.sha256).toMatch(/^[0-9a-f]{64}$/);
    // Structural values that do not depend on the IDF table (spec §8): 6 tokens, 3 unique content terms.
    expect(body.conciseness).toBe(0.5);
    expect(body.completeness).toBe(1);
    expect(body.coherence).toBe(1);
  });

  it("is byte-identical for the same input, whatever the key order of the request", async () => {
    const { key } = await newTenant();
    const a = await (await send("POST", "/v1/vrty/score", key, { prompt: PROMPT, response: RESPONSE })).text();
    const b = await (
      await send("POST", "/v1/vrty/score", key, { response: RESPONSE, idf_table: "default", prompt: PROMPT })
    ).text();
    expect(b).toBe(a);
  });

  it("400s a reference to an IDF table that does not exist, naming idf_table", async () => {
    const { key } = await newTenant();
    const body = await problem(
      await send("POST", "/v1/vrty/score", key, { prompt: "a", response: "b", idf_table: "idf_nope" }),
      400,
    );
    expect(body.errors).toEqual([{ path: "idf_table", message: expect.stringContaining("idf_nope") }]);
  });

  it("400s text past the character limit, naming the field", async () => {
    const { key } = await newTenant();
    const body = await problem(
      await send("POST", "/v1/vrty/score", key, { prompt: "a", response: "b ".repeat(100_001) }),
      400,
    );
    expect(body.errors!.map((e) => e.path)).toEqual(["response"]);
  });
});

describe("POST /v1/vrty/score/batch", () => {
  it("scores good pairs and gives bad ones an error entry, in order", async () => {
    const { key } = await newTenant();
    const res = await send("POST", "/v1/vrty/score/batch", key, {
      pairs: [
        { id: "q1", prompt: PROMPT, response: RESPONSE },
        { id: "q2", prompt: PROMPT },
        "not an object",
        { prompt: PROMPT, response: "Paris." },
      ],
    });
    expect(res.status).toBe(200);
    const body = (await res.json()) as {
      results: {
        index: number;
        id?: string;
        result?: Result;
        error?: { status: number; errors: { path: string }[] };
      }[];
      succeeded: number;
      failed: number;
    };
    expect(body.succeeded).toBe(2);
    expect(body.failed).toBe(2);
    expect(body.results.map((r) => r.index)).toEqual([0, 1, 2, 3]);
    expect(body.results[0].id).toBe("q1");
    expect(body.results[1].error!.errors.map((e) => e.path)).toEqual(["response"]);
    expect(body.results[2].error!.status).toBe(400);
    // "Paris." shares no term with the prompt: 0.20 coherence + 0.15 conciseness (spec §8).
    expect(body.results[3].result!.composite).toBe(0.35);
    const single = (await (
      await send("POST", "/v1/vrty/score", key, { prompt: PROMPT, response: RESPONSE })
    ).json()) as Result;
    expect(body.results[0].result).toEqual(single);
  });

  it("accepts exactly 1,000 pairs and refuses 1,001, naming pairs", async () => {
    const { key } = await newTenant();
    const pair = { prompt: PROMPT, response: RESPONSE };
    const ok = await send("POST", "/v1/vrty/score/batch", key, { pairs: Array(1000).fill(pair) });
    expect(ok.status).toBe(200);
    expect(((await ok.json()) as { succeeded: number }).succeeded).toBe(1000);
    const body = await problem(await send("POST", "/v1/vrty/score/batch", key, { pairs: Array(1001).fill(pair) }), 400);
    expect(body.errors!.map((e) => e.path)).toEqual(["pairs"]);
  });
});

describe("IDF tables", () => {
  const docs = [
    "Kubernetes schedules pods onto nodes. A deployment manages replica sets of pods.",
    "The API server exposes the Kubernetes API. Pods run containers.",
    "Helm charts template Kubernetes manifests for deployment.",
  ];

  it("builds, lists, gets, scores with, and deletes a table", async () => {
    const { key } = await newTenant();
    const created = await send("POST", "/v1/vrty/idf-tables", key, { name: "k8s", documents: docs });
    expect(created.status).toBe(201);
    const table = (await created.json()) as {
      id: string;
      sha256: string;
      n_docs: number;
      n_terms: number;
      min_df: number;
    };
    // Each short document is one pseudo-document (a document shorter than 200 tokens is its own only window).
    expect(table.n_docs).toBe(3);
    expect(table.min_df).toBe(1);
    expect(table.n_terms).toBeGreaterThan(10);

    const list = (await (await send("GET", "/v1/vrty/idf-tables", key)).json()) as { data: { id: string }[] };
    expect(list.data.map((t) => t.id)).toEqual([table.id]);
    const got = (await (await send("GET", `/v1/vrty/idf-tables/${table.id}`, key)).json()) as { sha256: string };
    expect(got.sha256).toBe(table.sha256);

    const pair = { prompt: "How do Kubernetes pods get scheduled?", response: "The scheduler places pods on nodes." };
    const custom = (await (
      await send("POST", "/v1/vrty/score", key, { ...pair, idf_table: table.id })
    ).json()) as Result;
    const builtIn = (await (await send("POST", "/v1/vrty/score", key, pair)).json()) as Result;
    expect(custom.idf_sha256).toBe(table.sha256);
    expect(builtIn.idf_sha256).not.toBe(table.sha256);

    // The same documents always give the same table.
    const again = (await (
      await send("POST", "/v1/vrty/idf-tables", key, { name: "k8s again", documents: docs })
    ).json()) as { sha256: string };
    expect(again.sha256).toBe(table.sha256);

    expect((await send("DELETE", `/v1/vrty/idf-tables/${table.id}`, key)).status).toBe(204);
    await problem(await send("GET", `/v1/vrty/idf-tables/${table.id}`, key), 404);
    const after = await problem(await send("POST", "/v1/vrty/score", key, { ...pair, idf_table: table.id }), 400);
    expect(after.errors![0].path).toBe("idf_table");
  });

  it("keeps tables to their tenant", async () => {
    const a = await newTenant("a");
    const b = await newTenant("b");
    const table = (await (
      await send("POST", "/v1/vrty/idf-tables", a.key, { name: "mine", documents: docs })
    ).json()) as { id: string };
    await problem(await send("GET", `/v1/vrty/idf-tables/${table.id}`, b.key), 404);
    await problem(await send("DELETE", `/v1/vrty/idf-tables/${table.id}`, b.key), 404);
    await problem(
      await send("POST", "/v1/vrty/score", b.key, { prompt: "pods", response: "pods", idf_table: table.id }),
      400,
    );
    const list = (await (await send("GET", "/v1/vrty/idf-tables", b.key)).json()) as { data: unknown[] };
    expect(list.data).toEqual([]);
  });

  it("400s documents with no scorable token, naming documents", async () => {
    const { key } = await newTenant();
    const body = await problem(
      await send("POST", "/v1/vrty/idf-tables", key, { name: "x", documents: ["", "的的", "!!"] }),
      400,
    );
    expect(body.errors!.map((e) => e.path)).toEqual(["documents"]);
  });

  it("refuses to delete the built-in table", async () => {
    const { key } = await newTenant();
    await problem(await send("DELETE", "/v1/vrty/idf-tables/default", key), 409);
  });
});
