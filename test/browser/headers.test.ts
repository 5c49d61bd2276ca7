// Issue 30, "Headers everywhere": /app/ served the dashboard with no security headers (static assets answer
// before the Worker), and /v1 and /docs answered without nosniff. This walks every path this origin
// serves, from the server that serves it for real (wrangler dev: the assets service, then the Worker):
// each file under public/ after the build, each HTML page, and each operation of the OpenAPI document,
// signed out and signed in, with an event stream and an NDJSON export among them.
import { readdirSync } from "node:fs";
import { join, relative, sep } from "node:path";
import { describe, expect, it } from "vitest";
import { DASHBOARD_CSP } from "../../src/middleware/security-headers.ts";
import { base, DEV_KEY, ownAddress } from "./browser.ts";

const PUBLIC = join(import.meta.dirname, "..", "..", "public");
const auth = { Authorization: `Bearer ${DEV_KEY}` };

type Seen = { what: string; status: number; type: string; nosniff: string | null; csp: string | null };

/** One request; the body is dropped unread (an event stream would never end), only headers matter. */
async function see(
  method: string,
  path: string,
  headers: Record<string, string> = {},
  redirect: "manual" | "follow" = "manual",
): Promise<Seen> {
  const res = await fetch(base() + path, { method, headers, redirect });
  await res.body?.cancel();
  return {
    what: `${method} ${path} → ${res.status}`,
    status: res.status,
    type: res.headers.get("content-type") ?? "",
    nosniff: res.headers.get("x-content-type-options"),
    csp: res.headers.get("content-security-policy"),
  };
}

function expectNosniff(seen: Seen[]): void {
  expect(seen.filter((s) => s.nosniff !== "nosniff").map((s) => s.what)).toEqual([]);
}

/** The policy, with the clause that stops other origins from framing the page. */
function expectPagePolicy(seen: Seen[]): void {
  expect(
    seen.filter((s) => s.csp !== DASHBOARD_CSP || !s.csp.includes("frame-ancestors 'none'")).map((s) => s.what),
  ).toEqual([]);
}

function publicFiles(dir = PUBLIC): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((e) =>
    e.isDirectory() ? publicFiles(join(dir, e.name)) : [join(dir, e.name)],
  );
}

describe("security headers on everything this origin serves", () => {
  it("every file under public/ carries nosniff and the policy, also when answered 304", async () => {
    const paths = publicFiles()
      .map((f) => "/" + relative(PUBLIC, f).split(sep).join("/"))
      // Cloudflare's own rules file: read by the assets service, never served.
      .filter((p) => p !== "/_headers");
    // The build puts the dashboard (its page, scripts and styles) and the docs bundle there.
    expect(paths).toContain("/app/index.html");
    expect(paths.some((p) => /^\/app\/assets\/.+\.js$/.test(p))).toBe(true);
    expect(paths.some((p) => /^\/app\/assets\/.+\.css$/.test(p))).toBe(true);
    expect(paths).toContain("/docs/vendor/scalar.js");
    const seen: Seen[] = [];
    for (const p of paths) {
      const first = await fetch(base() + p, { redirect: "manual" });
      await first.body?.cancel();
      seen.push({
        what: `GET ${p} → ${first.status}`,
        status: first.status,
        type: first.headers.get("content-type") ?? "",
        nosniff: first.headers.get("x-content-type-options"),
        csp: first.headers.get("content-security-policy"),
      });
      const etag = first.headers.get("etag");
      if (first.status === 200 && etag) seen.push(await see("GET", p, { "If-None-Match": etag }));
    }
    expect(seen.some((s) => s.status === 304)).toBe(true);
    expectNosniff(seen);
    expectPagePolicy(seen);
    expect(await fetch(base() + "/_headers").then((r) => r.status)).toBe(404);
  });

  it("every HTML page carries the dashboard's policy and frame-ancestors, whichever path serves it", async () => {
    const html = { Accept: "text/html,application/xhtml+xml" };
    const hops = [
      await see("GET", "/", html),
      await see("GET", "/app", html),
      await see("GET", "/app/", html),
      await see("GET", "/app/index.html", html),
      await see("GET", "/docs", html),
    ];
    const pages = [
      await see("GET", "/", html, "follow"),
      await see("GET", "/app", html, "follow"),
      await see("GET", "/app/index.html", html, "follow"),
      await see("GET", "/app/?from=link#/runs", html, "follow"),
      await see("GET", "/docs", html, "follow"),
    ];
    for (const p of pages) expect(p.type, p.what).toMatch(/^text\/html/);
    expectNosniff([...hops, ...pages]);
    expectPagePolicy([...hops, ...pages]);
  });

  it("every operation of the OpenAPI document, signed out and signed in, and every kind of error", async () => {
    const doc = (await (await fetch(base() + "/openapi.json")).json()) as {
      paths: Record<string, Record<string, unknown>>;
    };
    // A real run, so a run's event stream and NDJSON samples are answered as such, not 404.
    const created = await fetch(base() + "/v1/chain-determinism/runs", {
      method: "POST",
      headers: { ...auth, "Content-Type": "application/json" },
      body: JSON.stringify({ model: "sim:agent", n_queries: 1, n_replays: 2 }),
    });
    expect(created.status).toBe(202);
    const run = ((await created.json()) as { id: string }).id;
    const ops = Object.entries(doc.paths).flatMap(([path, item]) =>
      Object.keys(item).map((method) => ({
        method: method.toUpperCase(),
        path: path.replace("{run_id}", run).replace(/\{[^}]+\}/g, "missing"),
      })),
    );
    expect(ops.length).toBeGreaterThan(40);
    const seen: Seen[] = [];
    // Signed out, nothing is created or changed: each answer is a 401, 400, 404 or 405 problem.
    for (const { method, path } of ops) seen.push(await see(method, path));
    // Signed in, only reads. The admin reads fail the operator-token check on purpose, from an address of
    // their own so they are not counted against the one every e2e file shares.
    const probe = { ...auth, ...ownAddress() };
    for (const { path } of ops.filter((o) => o.method === "GET")) seen.push(await see("GET", path, probe));
    const stream = await see("GET", `/v1/runs/${run}/events`, { ...auth, Accept: "text/event-stream" });
    const ndjson = await see("GET", `/v1/runs/${run}/samples`, { ...auth, Accept: "application/x-ndjson" });
    expect(stream.type).toMatch(/^text\/event-stream/);
    expect(ndjson.type).toMatch(/^application\/x-ndjson/);
    const errors = [
      await see("GET", "/no-such-page"),
      await see("GET", "/app/no-such-file.js"),
      await see("PUT", "/healthz"),
      await see("POST", "/app/"),
      await see("DELETE", "/docs"),
    ];
    expect(errors.map((e) => e.status)).toEqual([404, 404, 405, 405, 405]);
    const all = [...seen, stream, ndjson, ...errors];
    // The walk met every kind of answer it claims to cover.
    for (const type of [
      /^application\/json/,
      /^application\/problem\+json/,
      /^text\/event-stream/,
      /^application\/x-ndjson/,
    ]) {
      expect(
        all.some((s) => type.test(s.type)),
        String(type),
      ).toBe(true);
    }
    expectNosniff(all);
    expectPagePolicy(all.filter((s) => s.type.startsWith("text/html")));
  });
});
