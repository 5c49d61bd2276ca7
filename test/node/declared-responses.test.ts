// Issue 15: every status the Errors table (docs/errors.md) promises is declared where it can happen, and binary
// responses are declared binary, so a client or a validating proxy reading the document is never surprised.
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { openApiText } from "../../scripts/generate-sdk.ts";

type Op = {
  responses: Record<string, { content?: Record<string, { schema?: { format?: string } }> }>;
  requestBody?: unknown;
  parameters?: { in: string }[];
};
const doc = JSON.parse(openApiText()) as { info: { description: string }; paths: Record<string, Record<string, Op>> };
const ops = Object.entries(doc.paths).flatMap(([path, item]) =>
  Object.entries(item).map(([method, op]) => ({ where: `${method.toUpperCase()} ${path}`, path, method, op })),
);
// The Errors table, moved from the README to docs/errors.md (issue 24).
const errorsTable = readFileSync(join(import.meta.dirname, "../../docs/errors.md"), "utf8");
const promised = [...new Set([...errorsTable.matchAll(/^\| (\d{3}) \|/gm)].map((m) => m[1]))];
const createsRuns = (p: string) => /^\/v1\/[\w-]+\/runs$/.test(p);

/** Where each status of the Errors table can happen, as a rule over the operations. */
const WHERE: Record<string, (o: (typeof ops)[number]) => boolean> = {
  "400": (o) => !!o.op.requestBody,
  "401": (o) => o.path.startsWith("/v1/"),
  "404": (o) => (o.op.parameters ?? []).some((p) => p.in === "path"),
  "409": (o) =>
    (o.method === "post" && createsRuns(o.path)) ||
    o.path.endsWith("/cancel") ||
    o.path.endsWith("/resend") ||
    (/idf-tables\/\{|suites\/\{/.test(o.path) && o.method === "delete"),
  "413": (o) => !!o.op.requestBody,
  "415": (o) => !!o.op.requestBody,
  "422": (o) =>
    (o.method === "post" && createsRuns(o.path)) || (o.method === "post" && o.path === "/v1/vrty/idf-tables"),
  // Issue 30: the tenant's quotas (docs/quotas.md): creating runs, and the reads of a whole run.
  "429": (o) =>
    (o.method === "post" && createsRuns(o.path)) ||
    [
      "/v1/compare",
      "/v1/rpl/compare",
      "/v1/runs/{run_id}/samples",
      "/v1/runs/{run_id}/report.csv",
      "/v1/runs/{run_id}/report.xlsx",
      "/v1/runs/{run_id}/radar.svg",
    ].includes(o.path),
  "500": () => true,
};

describe("declared responses", () => {
  it("the Errors table lists the statuses this test knows where to look for", () => {
    expect(promised.sort()).toEqual(["400", "401", "404", "405", "409", "413", "415", "422", "429", "500"]);
  });

  it.each(promised.filter((s) => s !== "405"))("%s is declared on every operation where it can happen", (status) => {
    const missing = ops.filter((o) => WHERE[status](o) && !o.op.responses[status]).map((o) => o.where);
    expect(missing).toEqual([]);
  });

  it("405 (a method a path does not list) is stated once, for the whole document", () => {
    // A response can only be declared for an operation that exists; 405 is for the ones that do not.
    expect(doc.info.description).toMatch(/405/);
  });

  it("binary bodies are declared binary", () => {
    const xlsx = doc.paths["/v1/runs/{run_id}/report.xlsx"].get.responses["200"].content!;
    expect(Object.values(xlsx)[0].schema?.format).toBe("binary");
  });
});
