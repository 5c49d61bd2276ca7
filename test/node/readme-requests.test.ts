// Issue 15: every request example in the README (and, since issue 24, in docs/) is valid against the
// document the API serves. The JSON bodies of its `curl … -d '…'` commands (and `-d @file` where the
// file is in the repository) are validated with ajv (JSON Schema 2020-12, the dialect of OpenAPI 3.1)
// against each POST's request schema.
import { existsSync, readFileSync } from "node:fs";
import { join } from "node:path";
import Ajv2020 from "ajv/dist/2020.js";
import addFormats from "ajv-formats";
import { describe, expect, it } from "vitest";
import { openApiText } from "../../scripts/generate-sdk.ts";
import { codeBlocks, docPages } from "../support/doc-pages.ts";

const ROOT = join(import.meta.dirname, "../..");

/** Plausible values for the shell variables the examples splice into their bodies. */
const VALUES: Record<string, string> = {
  OPENROUTER_API_KEY: "sk-or-v1-0123456789abcdef0123456789abcdef",
  SUITE: "ste_0mhx3k2q1abcdefghij",
  TABLE: "idf_0mhx3k2q1abcdefghij",
};

type Example = { at: string; path: string; body: string; source: string };

/** The end of a single-quoted shell word starting at `i` (after its quote), with `'"$VAR"'` splices replaced. */
function quoted(code: string, i: number): { text: string; end: number } {
  let text = "";
  for (;;) {
    const close = code.indexOf("'", i);
    if (close < 0) throw new Error("unterminated quote");
    text += code.slice(i, close);
    const splice = /^'"\$(\w+)"'/.exec(code.slice(close));
    if (!splice) return { text, end: close + 1 };
    text += VALUES[splice[1]] ?? "x";
    i = close + splice[0].length;
  }
}

/**
 * The POST request bodies of every sh block's curl commands, with the API path each is sent to: of the
 * README and (issue 24) of every page of docs/, where most of its examples moved, run or not.
 */
function examples(): Example[] {
  const out: Example[] = [];
  const blocks = docPages(ROOT).flatMap((page) =>
    codeBlocks(readFileSync(join(ROOT, page), "utf8")).map((b) => ({ ...b, page })),
  );
  for (const block of blocks.filter((b) => b.lang === "sh")) {
    const code = block.code;
    for (const m of code.matchAll(/curl\b/g)) {
      const next = code.indexOf("curl", m.index + 4);
      const command = code.slice(m.index, next < 0 ? undefined : next);
      const path = /:8787(\/v1\/[\w/.-]*)/.exec(command)?.[1];
      const data = /\s-d\s+(['@])/.exec(command);
      if (!path || !data || /-X\s+(?!POST)/.test(command)) continue;
      const at = m.index + data.index + data[0].length;
      const where = `${block.page}:${block.line + code.slice(0, m.index).split("\n").length}`;
      if (data[1] === "'") out.push({ at: where, path, body: quoted(code, at).text, source: "inline" });
      else {
        const file = /^[^\s'"]+/.exec(code.slice(at))![0];
        // A file the examples write themselves (a GET's answer posted back) is not in the repository.
        if (existsSync(join(ROOT, file)))
          out.push({ at: where, path, body: readFileSync(join(ROOT, file), "utf8"), source: file });
      }
    }
  }
  return out;
}

const doc = JSON.parse(openApiText()) as { paths: Record<string, { post?: unknown }> };
const ajv = new Ajv2020({ strict: false, allErrors: true });
addFormats(ajv);
// OpenAPI's own format for a byte stream (a response's, never a request's); known, so it is no error.
ajv.addFormat("binary", true);
ajv.addSchema(doc, "openapi.json");

const pointer = (path: string) =>
  `openapi.json#/paths/${path.replaceAll("~", "~0").replaceAll("/", "~1")}/post/requestBody/content/application~1json/schema`;
const found = examples();

describe("the README's request examples", () => {
  it("are found: every POST that creates something has one", () => {
    const paths = new Set(found.map((e) => e.path));
    for (const p of [
      "/v1/vrty/score",
      "/v1/vrty/score/batch",
      "/v1/vrty/idf-tables",
      "/v1/chain-determinism/runs",
      "/v1/chain-determinism/suites",
      "/v1/rpl/runs",
      "/v1/judge/runs",
      "/v1/reasoning-quality/runs",
      "/v1/admin/tenants",
      "/v1/keys",
      "/v1/providers",
    ]) {
      expect(paths, p).toContain(p);
    }
  });

  it.each(found.map((e) => [`${e.at}: POST ${e.path} (${e.source})`, e] as const))(
    "%s validates against the served document",
    (_, e) => {
      expect(doc.paths[e.path]?.post, `the document has POST ${e.path}`).toBeDefined();
      const validate = ajv.getSchema(pointer(e.path)) ?? ajv.compile({ $ref: pointer(e.path) });
      const body: unknown = JSON.parse(e.body);
      expect(validate(body) ? [] : validate.errors).toEqual([]);
    },
  );

  it("are checked by a validator that refuses what the API refuses", () => {
    const validate = ajv.compile({ $ref: pointer("/v1/chain-determinism/runs") });
    expect(validate({ model: "sim:agent", n_replays: 0 })).toBe(false);
    expect(validate({ model: "sim:agent", unknown_field: 1 })).toBe(false);
    expect(ajv.compile({ $ref: pointer("/v1/rpl/runs") })({ claim: "c", model: "sim:rpl", seed: "x1" })).toBe(false);
  });
});
