// Issue 30: the Worker's own answers (the API, its problems, /docs) carry nosniff, and its HTML pages the
// dashboard's policy; test/browser/headers.test.ts walks every path of the real server, this checks the
// middleware's cases one by one.
import { Hono } from "hono";
import { describe, expect, it } from "vitest";
import { assetHeadersFile, DASHBOARD_CSP, securityHeaders } from "../../src/middleware/security-headers.ts";
import { call } from "./helpers.ts";

describe("securityHeaders", () => {
  const app = new Hono()
    .use(securityHeaders)
    .get("/page", (c) => c.html("<!doctype html><p>hi</p>"))
    .get("/json", (c) => c.json({ ok: true }))
    .get("/radar.svg", (c) =>
      c.body('<svg xmlns="http://www.w3.org/2000/svg"/>', 200, { "content-type": "image/svg+xml; charset=utf-8" }),
    )
    // Response.redirect's headers are immutable, as are those of a response passed through from fetch().
    .get("/passed-through", () => Response.redirect("http://assay.test/json", 302))
    .get("/boom", () => {
      throw new Error("boom");
    })
    .onError((_err, c) => c.text("failed", 500));

  it("adds nosniff to every answer and the policy to HTML, not JSON", async () => {
    const page = await app.request("/page");
    expect(page.headers.get("x-content-type-options")).toBe("nosniff");
    expect(page.headers.get("content-security-policy")).toBe(DASHBOARD_CSP);
    expect(page.headers.get("referrer-policy")).toBe("no-referrer");
    const json = await app.request("/json");
    expect(json.headers.get("x-content-type-options")).toBe("nosniff");
    expect(json.headers.get("content-security-policy")).toBeNull();
  });

  it("gives an SVG, a document that could run script when opened alone, the pages' policy", async () => {
    const svg = await app.request("/radar.svg");
    expect(svg.headers.get("content-security-policy")).toBe(DASHBOARD_CSP);
    expect(svg.headers.get("x-content-type-options")).toBe("nosniff");
  });

  it("copies a response whose headers cannot be changed, keeping its status and location", async () => {
    const res = await app.request("/passed-through");
    expect(res.status).toBe(302);
    expect(res.headers.get("location")).toBe("http://assay.test/json");
    expect(res.headers.get("x-content-type-options")).toBe("nosniff");
  });

  it("covers errors and unknown paths", async () => {
    expect((await app.request("/boom")).headers.get("x-content-type-options")).toBe("nosniff");
    expect((await app.request("/nowhere")).headers.get("x-content-type-options")).toBe("nosniff");
  });

  it("writes the assets' rules from the same policy, for every path", () => {
    const lines = assetHeadersFile().split("\n");
    expect(lines).toContain("/*");
    expect(lines).toContain(`  Content-Security-Policy: ${DASHBOARD_CSP}`);
    expect(lines).toContain("  X-Content-Type-Options: nosniff");
  });
});

describe("the Worker's answers", () => {
  it.each([
    ["/docs", "text/html"],
    ["/healthz", "application/json"],
    ["/v1/runs", "application/problem+json"],
    ["/openapi.json", "application/json"],
  ])("%s carries nosniff (%s)", async (path, type) => {
    const res = await call(path);
    expect(res.headers.get("content-type")).toContain(type);
    expect(res.headers.get("x-content-type-options")).toBe("nosniff");
    if (type === "text/html") expect(res.headers.get("content-security-policy")).toBe(DASHBOARD_CSP);
  });

  it("/docs has no inline script: its only script is the bundle from this origin", async () => {
    const html = await (await call("/docs")).text();
    const scripts = [...html.matchAll(/<script([^>]*)>([\s\S]*?)<\/script>/g)];
    expect(scripts.length).toBe(2);
    for (const [, attrs, body] of scripts) {
      expect(body.trim()).toBe("");
      expect(/\bsrc="\/docs\/vendor\/scalar\.js"/.test(attrs) || /type="application\/json"/.test(attrs)).toBe(true);
    }
  });
});
