// Issue 14 (hardening), item 1's input side and item 7's body items: a request body is read once, by
// the JSON guard every body route mounts, which refuses a body nesting past LIMITS.jsonDepth (before
// zod, hashing or a Durable Object's structured clone could overflow a stack on it), a repeated key,
// and content codings it cannot decode; it decodes gzip and deflate with the size limit applied to the
// decoded body; and an empty or non-object body is still a clear 400.
import { describe, expect, it } from "vitest";
import { ADMIN_TOKEN, call, newTenant, problem, send } from "./helpers.ts";
import { LIMITS } from "../../src/limits.ts";

const PAIR = { prompt: "What is the capital of France?", response: "Paris is the capital of France." };

/** `{"a":{"a":…{"a":1}…}}`, `n` objects deep, as text: JSON.stringify itself cannot write a deep enough value. */
const deepObject = (n: number) => '{"a":'.repeat(n) + "1" + "}".repeat(n);
const deepArray = (n: number) => "[".repeat(n) + "]".repeat(n);

/** A raw (already serialized) JSON body with a bearer token, and any extra headers. */
function post(path: string, token: string, body: BodyInit, headers: Record<string, string> = {}): Promise<Response> {
  return call(path, {
    method: "POST",
    headers: { Authorization: `Bearer ${token}`, "Content-Type": "application/json", ...headers },
    body,
  });
}

async function compress(text: string, format: "gzip" | "deflate"): Promise<Uint8Array> {
  const stream = new Blob([text]).stream().pipeThrough(new CompressionStream(format));
  return new Uint8Array(await new Response(stream).arrayBuffer());
}

async function runCount(key: string): Promise<number> {
  const res = await send("GET", "/v1/runs?limit=100", key);
  expect(res.status).toBe(200);
  return ((await res.json()) as { data: unknown[] }).data.length;
}

const depthMessage = `nests deeper than ${LIMITS.jsonDepth} levels of objects and arrays`;

describe("JSON request bodies: nesting", () => {
  it("refuses a judge item whose context nests 3,000 levels, naming the field, and leaves no run", async () => {
    const { key } = await newTenant();
    const body = `{"items":[{"id":"q1","query":"Is it?","context":${deepObject(3000)}}],"critics":[{"name":"a","model":"sim:critic"}]}`;
    const p = await problem(await post("/v1/judge/runs", key, body), 400);
    expect(p.type).toBe("/problems/validation");
    expect(p.errors).toHaveLength(1);
    // Levels: the body 1, items 2, items.0 3, context 4, and context.a…a (k a's) 4 + k: the first
    // container past the limit (level 65) is named, items.0.context and 61 a's.
    expect(p.errors![0]).toEqual({
      path: ["items", "0", "context", ...Array(LIMITS.jsonDepth - 3).fill("a")].join("."),
      message: depthMessage,
    });
    expect(await runCount(key)).toBe(0);
  });

  it("refuses a suite whose tool parameters nest 3,500 levels, so no run on it can crash", async () => {
    const { key } = await newTenant();
    const tool = (name: string, parameters: string) =>
      `{"type":"function","function":{"name":"${name}","parameters":${parameters}}}`;
    const body = `{"name":"deep","suite":{"system_prompt":"s","stubs":{"t":"ok"},"queries":[{"query_id":"q","user":"u"}],"tools":[${tool("t", deepObject(3500))},${tool("final_answer", '{"type":"object","properties":{"answer":{"type":"string"}}}')}]}}`;
    const p = await problem(await post("/v1/chain-determinism/suites", key, body), 400);
    expect(p.errors![0].path).toMatch(/^suite\.tools\.0\.function\.parameters\.a\.a\./);
    expect(p.errors![0].message).toBe(depthMessage);
    const list = (await (await send("GET", "/v1/chain-determinism/suites", key)).json()) as { data: unknown[] };
    expect(list.data).toEqual([]);
  });

  it("refuses a suite nesting 5,000 levels in `required` (which crashed canonicalJson with a 500)", async () => {
    const { key } = await newTenant();
    const params = `{"type":"object","properties":{"answer":{"type":"string"}},"required":${deepArray(5000)}}`;
    const body = `{"name":"deep","suite":{"system_prompt":"s","stubs":{},"queries":[{"query_id":"q","user":"u"}],"tools":[{"type":"function","function":{"name":"final_answer","parameters":${params}}},{"type":"function","function":{"name":"final_answer","parameters":{}}}]}}`;
    const p = await problem(await post("/v1/chain-determinism/suites", key, body), 400);
    expect(p.errors![0].path).toMatch(/^suite\.tools\.0\.function\.parameters\.required\.0\.0\./);
  });

  it("accepts a judge run whose context nests up to the limit, and runs it", async () => {
    const { key } = await newTenant();
    // Body 1, items 2, items.0 3, context 4: a context of 60 objects reaches level 64 exactly.
    const context = `{"doc":${deepObject(LIMITS.jsonDepth - 4)}}`;
    const body = `{"items":[{"id":"q1","query":"Is it?","context":${context}}],"critics":[{"name":"a","model":"sim:critic"}]}`;
    const res = await post("/v1/judge/runs", key, body);
    expect(res.status, await res.clone().text()).toBe(202);
  });

  it("applies to every route that takes a JSON body (each operation with a requestBody in /openapi.json)", async () => {
    const { key } = await newTenant();
    const doc = (await (await call("/openapi.json")).json()) as {
      paths: Record<string, Record<string, { requestBody?: unknown; security?: Array<Record<string, unknown>> }>>;
    };
    const routes = Object.entries(doc.paths).flatMap(([path, ops]) =>
      Object.entries(ops)
        .filter(([, op]) => op.requestBody)
        .map(([method, op]) => ({
          method,
          path: path.replace(/\{[^}]+\}/g, "none"),
          admin: op.security?.some((s) => "adminToken" in s) ?? false,
        })),
    );
    expect(routes.length).toBeGreaterThanOrEqual(12);
    const failures: string[] = [];
    for (const r of routes) {
      const res = await call(r.path, {
        method: r.method.toUpperCase(),
        headers: { Authorization: `Bearer ${r.admin ? ADMIN_TOKEN : key}`, "Content-Type": "application/json" },
        body: `{"deep":${deepArray(LIMITS.jsonDepth + 10)}}`,
      });
      const text = await res.text();
      const ok =
        res.status === 400 &&
        JSON.parse(text).errors?.[0]?.message === depthMessage &&
        JSON.parse(text).errors[0].path.startsWith("deep.0.0");
      if (!ok) failures.push(`${r.method} ${r.path}: ${res.status} ${text.slice(0, 200)}`);
    }
    expect(failures).toEqual([]);
  });
});

describe("JSON request bodies: repeated keys", () => {
  it("refuses a repeated top-level key, naming it", async () => {
    const { key } = await newTenant();
    const p = await problem(await post("/v1/vrty/score", key, '{"prompt":"a","response":"b","prompt":"c"}'), 400);
    expect(p.type).toBe("/problems/validation");
    expect(p.errors).toEqual([{ path: "prompt", message: "duplicate key" }]);
  });

  it("refuses a repeated key at any depth, also when written with an escape", async () => {
    const { key } = await newTenant();
    const p = await problem(
      await post(
        "/v1/vrty/score/batch",
        key,
        '{"pairs":[{"prompt":"a","response":"b"},{"prompt":"a","\\u0070rompt":"c","response":"d"}]}',
      ),
      400,
    );
    expect(p.errors).toEqual([{ path: "pairs.1.prompt", message: "duplicate key" }]);
  });
});

describe("JSON request bodies: Content-Encoding", () => {
  it.each(["gzip", "x-gzip", "deflate", "GZIP"])(
    "decodes a %s body to the same answer as the plain one",
    async (coding) => {
      const { key } = await newTenant();
      const plain = await send("POST", "/v1/vrty/score", key, PAIR);
      expect(plain.status).toBe(200);
      const body = await compress(JSON.stringify(PAIR), coding.toLowerCase() === "deflate" ? "deflate" : "gzip");
      const res = await post("/v1/vrty/score", key, body, { "Content-Encoding": coding });
      expect(res.status, await res.clone().text()).toBe(200);
      expect(await res.text()).toBe(await plain.text());
    },
  );

  it("reads `identity` as no coding", async () => {
    const { key } = await newTenant();
    const res = await post("/v1/vrty/score", key, JSON.stringify(PAIR), { "Content-Encoding": "identity" });
    expect(res.status).toBe(200);
  });

  it.each(["br", "zstd", "compress", "gzip, gzip", "deflate, br"])(
    "refuses Content-Encoding %s with 415 naming it",
    async (coding) => {
      const { key } = await newTenant();
      const res = await post("/v1/vrty/score", key, JSON.stringify(PAIR), { "Content-Encoding": coding });
      const p = await problem(res, 415);
      expect(p.type).toBe("/problems/unsupported-media-type");
      expect(p.detail).toContain(`'${coding}'`);
      expect(res.headers.get("accept-encoding")).toBe("gzip, deflate");
    },
  );

  it("answers a body that is not the gzip it claims with 400", async () => {
    const { key } = await newTenant();
    const p = await problem(
      await post("/v1/vrty/score", key, JSON.stringify(PAIR), { "Content-Encoding": "gzip" }),
      400,
    );
    expect(p.type).toBe("/problems/malformed-json");
    expect(p.detail).toContain("not valid gzip");
  });

  it("applies the size limit to the decoded body: a small gzip of a large body is a 413", async () => {
    const { key } = await newTenant();
    // 2 MiB of JSON (a long prompt) compresses to a few KiB, well under the 1 MiB limit.
    const body = await compress(JSON.stringify({ prompt: "a".repeat(2 * 1024 * 1024), response: "b" }), "gzip");
    expect(body.byteLength).toBeLessThan(64 * 1024);
    const p = await problem(await post("/v1/vrty/score", key, body, { "Content-Encoding": "gzip" }), 413);
    expect(p.detail).toContain("decoded from gzip");
    expect(p.detail).toContain(`${LIMITS.bodyBytes} bytes`);
  });

  it("stops reading a gzip bomb at the limit instead of inflating it", async () => {
    const { key } = await newTenant();
    // An endless stream of spaces, gzipped as it is pulled: only reading stops it.
    let produced = 0;
    const chunk = new Uint8Array(64 * 1024).fill(0x20);
    const spaces = new ReadableStream<Uint8Array>({
      pull(controller) {
        produced += chunk.byteLength;
        controller.enqueue(chunk);
      },
    });
    const body = spaces.pipeThrough(new CompressionStream("gzip"));
    const p = await problem(await post("/v1/vrty/score", key, body, { "Content-Encoding": "gzip" }), 413);
    expect(p.detail).toContain("decoded from gzip");
    // Pipes buffer a little ahead, so a few chunks past the limit may have been made; not the endless rest.
    expect(produced).toBeLessThan(16 * LIMITS.bodyBytes);
  });
});

describe("JSON request bodies: media type and size", () => {
  it.each(["application/json; charset=utf-8", "APPLICATION/JSON; charset=UTF-8", "application/vnd.api+json"])(
    "reads a body sent as %s",
    async (type) => {
      const { key } = await newTenant();
      expect((await post("/v1/vrty/score", key, JSON.stringify(PAIR), { "Content-Type": type })).status).toBe(200);
    },
  );

  // These passed the guard but not the route's own media-type gate, whose 415 came out as /problems/internal.
  it.each([
    "application/json;",
    "application/json ; charset=utf-8",
    "application/json; charset",
    "application/a_b+json",
  ])("refuses %s with a 415 problem naming it", async (type) => {
    const { key } = await newTenant();
    const p = await problem(await post("/v1/vrty/score", key, JSON.stringify(PAIR), { "Content-Type": type }), 415);
    expect(p.type).toBe("/problems/unsupported-media-type");
    expect(p.detail).toContain(`'${type}'`);
  });

  it("applies the size limit to a streamed body that declares no Content-Length", async () => {
    const { key } = await newTenant();
    const text = JSON.stringify({ prompt: "a".repeat(LIMITS.bodyBytes), response: "b" });
    const bytes = new TextEncoder().encode(text);
    const body = new ReadableStream<Uint8Array>({
      start(controller) {
        for (let at = 0; at < bytes.length; at += 64 * 1024) controller.enqueue(bytes.slice(at, at + 64 * 1024));
        controller.close();
      },
    });
    const req = new Request("http://assay.test/v1/vrty/score", {
      method: "POST",
      headers: { Authorization: `Bearer ${key}`, "Content-Type": "application/json" },
      body,
    });
    expect(req.headers.get("content-length")).toBeNull();
    const p = await problem(
      await call("/v1/vrty/score", { method: req.method, headers: req.headers, body: req.body }),
      413,
    );
    expect(p.detail).toContain(`${LIMITS.bodyBytes} bytes`);
  });
});

describe("JSON request bodies: empty and non-object", () => {
  it.each(["", " \n\t "])("answers a JSON body that is empty (%j) with 400 malformed-json saying so", async (text) => {
    const { key } = await newTenant();
    const p = await problem(await post("/v1/vrty/score", key, text), 400);
    expect(p.type).toBe("/problems/malformed-json");
    expect(p.detail).toContain("empty");
  });

  it("says where a body stops being JSON", async () => {
    const { key } = await newTenant();
    const p = await problem(await post("/v1/vrty/score", key, '{"prompt": "a",\n "response": }'), 400);
    expect(p.type).toBe("/problems/malformed-json");
    expect(p.detail).toBe(
      "The request body is not valid JSON: unexpected '}' where a value was expected at line 2, column 14.",
    );
  });

  it.each(["[]", '"x"', "1", "null", "true", '[{"prompt":"a","response":"b"}]'])(
    "answers the top-level value %s with 400 naming the body",
    async (text) => {
      const { key } = await newTenant();
      const p = await problem(await post("/v1/vrty/score", key, text), 400);
      expect(p.type).toBe("/problems/validation");
      expect(p.errors!.map((e) => e.path)).toEqual(["body"]);
      expect(p.errors![0].message).toMatch(/expected object/);
    },
  );
});
