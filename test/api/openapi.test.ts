import { describe, expect, it } from "vitest";
import { call } from "./helpers.ts";

type Operation = {
  security?: unknown[];
  responses: Record<string, { content?: Record<string, unknown> }>;
  requestBody?: unknown;
};

describe("GET /openapi.json", () => {
  it("is OpenAPI 3.1 and documents every route with its errors", async () => {
    const res = await call("/openapi.json");
    expect(res.status).toBe(200);
    const doc = (await res.json()) as { openapi: string; paths: Record<string, Record<string, Operation>> };
    expect(doc.openapi).toBe("3.1.0");
    const ops = Object.entries(doc.paths).flatMap(([path, item]) =>
      Object.entries(item).map(([method, op]) => ({ path, method, op })),
    );
    expect(ops.length).toBeGreaterThanOrEqual(15);
    for (const { path, method, op } of ops) {
      const where = `${method.toUpperCase()} ${path}`;
      expect(op.responses["500"]?.content, where).toHaveProperty(["application/problem+json"]);
      if (path.startsWith("/v1/")) {
        expect(op.security, where).toBeTruthy();
        expect(op.responses["401"], where).toBeTruthy();
      }
      if (op.requestBody) {
        for (const s of ["400", "413", "415"]) expect(op.responses[s], `${where} ${s}`).toBeTruthy();
      }
    }
  });
});

describe("GET /docs", () => {
  it("serves the reference page with its script from this origin (works offline)", async () => {
    const res = await call("/docs");
    expect(res.status).toBe(200);
    expect(res.headers.get("content-type")).toContain("text/html");
    const html = await res.text();
    expect(html).toContain('src="/docs/vendor/scalar.js"');
    expect(html).toContain("/openapi.json");
    expect(html).not.toMatch(/<script[^>]+src="https?:/);
    expect(html).not.toMatch(/<link[^>]+href="https?:/);
  });
});
