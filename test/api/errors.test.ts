import { describe, expect, it } from "vitest";
import { env } from "cloudflare:workers";
import { call, newTenant, problem, send } from "./helpers.ts";

describe("problem+json for every failure", () => {
  it("answers an unknown route with 404 and a request id header", async () => {
    const res = await call("/nope");
    const body = await problem(res, 404);
    expect(body.type).toBe("/problems/not-found");
    expect(body.detail).toContain("/nope");
    expect(res.headers.get("x-request-id")).toMatch(/\S{8,}/);
  });

  it("answers a wrong method with 405 and an Allow header", async () => {
    const { key } = await newTenant();
    const res = await send("GET", "/v1/vrty/score", key);
    const body = await problem(res, 405);
    expect(body.type).toBe("/problems/method-not-allowed");
    expect(res.headers.get("allow")).toContain("POST");
  });

  it("answers malformed JSON with 400 malformed-json", async () => {
    const { key } = await newTenant();
    const res = await call("/v1/vrty/score", {
      method: "POST",
      headers: { Authorization: `Bearer ${key}`, "Content-Type": "application/json" },
      body: '{"prompt": "a", ',
    });
    expect((await problem(res, 400)).type).toBe("/problems/malformed-json");
  });

  it("answers a non-JSON body with 415", async () => {
    const { key } = await newTenant();
    const res = await call("/v1/vrty/score", {
      method: "POST",
      headers: { Authorization: `Bearer ${key}`, "Content-Type": "text/plain" },
      body: "prompt=a&response=b",
    });
    const body = await problem(res, 415);
    expect(body.detail).toContain("text/plain");
  });

  it("answers a body past the limit with 413 naming the limit", async () => {
    const { key } = await newTenant();
    const big = "x".repeat(1024 * 1024 + 10);
    const res = await send("POST", "/v1/vrty/score", key, { prompt: big, response: "y" });
    const body = await problem(res, 413);
    expect(body.detail).toContain("1 MiB");
    expect(body.detail).toContain("1048576");
  });

  it("names every invalid field in errors[]", async () => {
    const { key } = await newTenant();
    const res = await send("POST", "/v1/vrty/score", key, { prompt: 42, extra: true });
    const body = await problem(res, 400);
    expect(body.type).toBe("/problems/validation");
    const paths = body.errors!.map((e) => e.path).sort();
    expect(paths).toEqual(expect.arrayContaining(["prompt", "response"]));
    expect(body.errors!.some((e) => /extra/.test(e.message) || e.path === "extra")).toBe(true);
  });

  it("names bad query parameters", async () => {
    const { key } = await newTenant();
    const body = await problem(await send("GET", "/v1/vrty/idf-tables?limit=0", key), 400);
    expect(body.errors!.map((e) => e.path)).toEqual(["limit"]);
  });

  it("answers an unexpected failure with a bare 500: request id, no stack, no internals", async () => {
    const { key } = await newTenant();
    // Break storage under the route: the key lookup then fails inside D1.
    await env.DB.exec("DROP TABLE api_keys");
    const res = await send("GET", "/v1/keys", key);
    const body = await problem(res, 500);
    expect(body.type).toBe("/problems/internal");
    expect(body.request_id).toBeTruthy();
    const text = JSON.stringify(body);
    expect(text).not.toMatch(/api_keys|SQLITE|D1_|stack|at \w+ \(/i);
  });
});
