// Issue 15, item 4: the layers of DESIGN.md are held by a check, not by habit. CI runs dependency-cruiser
// over src/ with .dependency-cruiser.cjs (`npm run lint:layers`); these tests prove that check can fail:
// the same binary and config, run over a throwaway tree holding one deliberate violation per rule, must
// exit non-zero and name exactly those violations, and must pass a tree that keeps to the layers.
// A last test covers what an import graph cannot show: vendor knowledge written into an engine.
import { spawnSync } from "node:child_process";
import { mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join, relative } from "node:path";
import { afterAll, describe, expect, it } from "vitest";

const ROOT = join(import.meta.dirname, "../..");
const DEPCRUISE = join(ROOT, "node_modules/dependency-cruiser/bin/dependency-cruiser.mjs");
const CONFIG = join(ROOT, ".dependency-cruiser.cjs");

const trees: string[] = [];
afterAll(() => trees.forEach((t) => rmSync(t, { recursive: true, force: true })));

/** Writes `files` (path → source) into a fresh directory laid out like the repository. */
function tree(files: Record<string, string>): string {
  const dir = mkdtempSync(join(tmpdir(), "assay-layers-"));
  trees.push(dir);
  const tsconfig = {
    compilerOptions: {
      module: "esnext",
      moduleResolution: "bundler",
      allowImportingTsExtensions: true,
      noEmit: true,
      strict: true,
    },
  };
  writeFileSync(join(dir, "tsconfig.json"), JSON.stringify(tsconfig));
  for (const [path, source] of Object.entries(files)) {
    mkdirSync(dirname(join(dir, path)), { recursive: true });
    writeFileSync(join(dir, path), source);
  }
  return dir;
}

/**
 * Runs the layer check as CI does (minus the known-violations list, which names the real tree's files):
 * its exit status from the default report, its violations from the JSON report (which always exits 0).
 */
function cruise(dir: string): { status: number | null; violations: string[] } {
  const run = (...extra: string[]) => {
    const r = spawnSync(
      process.execPath,
      [DEPCRUISE, "--config", CONFIG, ...extra, "src", "sdk/src", "cli/src", "dashboard/src"],
      {
        cwd: dir,
        encoding: "utf8",
      },
    );
    if (r.error) throw r.error;
    return r;
  };
  const { status } = run();
  const report = JSON.parse(run("--output-type", "json").stdout) as {
    summary: { violations: Array<{ rule: { name: string }; from: string; to: string }> };
  };
  const violations = report.summary.violations.map((v) => `${v.rule.name}: ${v.from} → ${v.to}`).sort();
  return { status, violations };
}

const leaf = "export const x = 1;\n";
const leafType = "export type T = { a: number };\n";

// Each test runs dependency-cruiser twice as a child process: on a busy 2-core machine that can take
// longer than vitest's default 5 s. The bound is for a hung child, not a speed.
describe("the layer check (dependency-cruiser, .dependency-cruiser.cjs)", { timeout: 120_000 }, () => {
  it("fails, naming each one, on a violation of every rule", () => {
    const dir = tree({
      // Engines import only engines: not the providers, not a node: or cloudflare: module.
      "src/engines/a/to-provider.ts": 'import type { P } from "../../providers/p.ts";\nexport type E = P;\n',
      "src/engines/a/to-node.ts": 'import { readFileSync } from "node:fs";\nexport const r = readFileSync;\n',
      "src/engines/a/to-cloudflare.ts": 'import { env } from "cloudflare:workers";\nexport const e = env;\n',
      "src/providers/p.ts": 'import { x } from "../evaluators/e.ts";\nexport type P = typeof x;\n',
      "src/evaluators/e.ts": 'import { x as y } from "../routes/r.ts";\nexport const x = y;\n',
      // A plug-in uses its contract (src/runs/plugin), never the coordinator's insides.
      "src/evaluators/f.ts": 'import { o } from "../runs/coordinator/o.ts";\nexport const f = o;\n',
      // Only a plug-in's routes are HTTP code, and they use the route kit, not another route group.
      "src/evaluators/g/units.ts": 'import { r } from "../../routes/router.ts";\nexport const u = r;\n',
      "src/evaluators/g/routes.ts":
        'import { r } from "../../routes/router.ts";\nimport { x } from "../../routes/r2.ts";\nexport const g = [r, x];\n',
      "src/evaluators/g/routes/reports.ts":
        'import { o } from "../../../runs/coordinator/o.ts";\nexport const g = o;\n',
      "src/routes/router.ts": "export const r = 1;\n",
      // A type-only import counts: storage must not know the evaluators' types either.
      "src/db/d.ts": 'import type { x } from "../evaluators/e.ts";\nexport type D = typeof x;\n',
      "src/routes/r.ts": 'import { o } from "../runs/coordinator/o.ts";\nexport const x = o;\n',
      "src/runs/coordinator/o.ts": 'import { x } from "../../routes/r2.ts";\nexport const o = x;\n',
      "src/routes/r2.ts": leaf,
      "src/net/q.ts": 'import { app } from "../app.ts";\nexport const q = app;\n',
      "src/app.ts": "export const app = {};\n",
      // A cycle made only of type imports is still a cycle.
      "src/runs/c1.ts": 'import type { C2 } from "./c2.ts";\nexport type C1 = { next: C2 };\n',
      "src/runs/c2.ts": 'import type { C1 } from "./c1.ts";\nexport type C2 = { prev: C1 };\n',
      "src/runs/u.ts": 'import { nothing } from "./missing.ts";\nexport const u = nothing;\n',
      "sdk/src/s.ts": 'import { q } from "../../src/net/q.ts";\nexport const s = q;\n',
      "cli/src/c.ts": 'import { x } from "../../src/evaluators/e.ts";\nexport const c = x;\n',
      // One plug-in never reaches into another's folder, on the server or in the CLI.
      "src/evaluators/one/index.ts": 'import { two } from "../two/index.ts";\nexport const one = two;\n',
      "src/evaluators/two/index.ts": "export const two = 2;\n",
      "cli/src/commands/one/index.ts": 'import { two } from "../two/index.ts";\nexport const one = two;\n',
      "cli/src/commands/two/index.ts": "export const two = 2;\n",
      "dashboard/src/evaluators/one/index.ts": 'import { two } from "../two/index.ts";\nexport const one = two;\n',
      "dashboard/src/evaluators/two/index.ts": "export const two = 2;\n",
      // Of an evaluator, the CLI may bundle vrty's request schemas, never the routes beside them.
      "src/evaluators/vrty/routes.ts": leaf,
      "cli/src/v.ts": 'import { x } from "../../src/evaluators/vrty/routes.ts";\nexport const v = x;\n',
    });
    const { status, violations } = cruise(dir);
    expect(status).not.toBe(0);
    expect(violations).toEqual(
      [
        "db-is-storage-only: src/db/d.ts → src/evaluators/e.ts",
        "run-platform-below-routes: src/runs/coordinator/o.ts → src/routes/r2.ts",
        "engines-import-only-engines: src/engines/a/to-cloudflare.ts → cloudflare:workers",
        "engines-import-only-engines: src/engines/a/to-node.ts → fs",
        "engines-import-only-engines: src/engines/a/to-provider.ts → src/providers/p.ts",
        "evaluators-below-routes-and-the-run-platform: src/evaluators/e.ts → src/routes/r.ts",
        "evaluators-below-routes-and-the-run-platform: src/evaluators/f.ts → src/runs/coordinator/o.ts",
        "evaluators-below-routes-and-the-run-platform: src/evaluators/g/units.ts → src/routes/router.ts",
        "evaluator-routes-use-the-route-kit-only: src/evaluators/g/routes.ts → src/routes/r2.ts",
        "evaluator-routes-use-the-route-kit-only: src/evaluators/g/routes/reports.ts → src/runs/coordinator/o.ts",
        "no-circular: src/runs/c1.ts → src/runs/c2.ts", // a cycle is reported once
        "only-the-worker-entry-imports-the-app: src/net/q.ts → src/app.ts",
        "providers-below-the-platform: src/providers/p.ts → src/evaluators/e.ts",
        "resolvable-imports: src/runs/u.ts → ./missing.ts",
        "routes-reach-durable-objects-by-rpc-types-only: src/routes/r.ts → src/runs/coordinator/o.ts",
        "sdk-is-a-client: sdk/src/s.ts → src/net/q.ts",
        "cli-is-a-client: cli/src/c.ts → src/evaluators/e.ts",
        "evaluators-are-independent: src/evaluators/one/index.ts → src/evaluators/two/index.ts",
        "evaluators-are-independent: cli/src/commands/one/index.ts → cli/src/commands/two/index.ts",
        "evaluators-are-independent: dashboard/src/evaluators/one/index.ts → dashboard/src/evaluators/two/index.ts",
        "cli-is-a-client: cli/src/v.ts → src/evaluators/vrty/routes.ts",
      ].sort(),
    );
  });

  it("passes a tree that keeps to the layers", () => {
    const dir = tree({
      "src/engines/model.ts": "export interface ChatClient { chat(): Promise<string> }\n",
      "src/engines/judge/index.ts":
        'import type { ChatClient } from "../model.ts";\nexport const judge = (c: ChatClient) => c.chat();\n',
      "src/providers/sim.ts":
        'import type { ChatClient } from "../engines/model.ts";\nexport const sim: ChatClient = { chat: async () => "" };\n',
      "src/net/guard.ts": leaf,
      "src/providers/openai.ts": 'import { x } from "../net/guard.ts";\nexport const o = x;\n',
      "src/evaluators/judge.ts":
        'import { judge } from "../engines/judge/index.ts";\nimport { sim } from "../providers/sim.ts";\nexport const run = () => judge(sim);\n',
      "src/db/runs.ts": leaf,
      "src/runs/plugin/contract.ts": leafType,
      "src/evaluators/toy/index.ts":
        'import type { T } from "../../runs/plugin/contract.ts";\nimport { routes } from "./routes.ts";\nexport const toy = { routes } as T;\n',
      // A plug-in's own routes are built with the route kit and may use the middleware and the stored results.
      "src/routes/router.ts": leaf,
      "src/routes/openapi.ts": leaf,
      "src/middleware/json-body.ts": leaf,
      "src/runs/results/result.ts": leaf,
      "src/evaluators/toy/routes.ts":
        'import { x as r } from "../../routes/router.ts";\nimport { x as o } from "../../routes/openapi.ts";\nimport { x as j } from "../../middleware/json-body.ts";\nimport { x as s } from "../../runs/results/result.ts";\nexport const routes = [r, o, j, s];\n',
      "src/evaluators/toy/routes/reports.ts":
        'import { x } from "../../../routes/router.ts";\nexport const reports = x;\n',
      // The dashboard's evaluator folders may use their own files (and the SDK).
      "dashboard/src/evaluators/toy/view.ts": "export const view = 1;\n",
      "dashboard/src/evaluators/toy/index.ts": 'import { view } from "./view.ts";\nexport const toy = view;\n',
      // ... and its own folder's files.
      "src/evaluators/toy/units.ts": 'import { toy } from "./index.ts";\nexport const u = toy;\n',
      "src/runs/coordinator/coordinator.ts":
        'import { run } from "../../evaluators/judge.ts";\nimport { x } from "../../db/runs.ts";\nexport class Coordinator { start = run; n = x; }\n',
      "src/runs/coordinator/rpc.ts": leafType,
      // Routes may name a Durable Object's class and RPC types, for the stub they get from a binding.
      "src/routes/runs.ts":
        'import type { Coordinator } from "../runs/coordinator/coordinator.ts";\nimport type { T } from "../runs/coordinator/rpc.ts";\nexport type R = [Coordinator, T];\n',
      "src/app.ts": 'import type { R } from "./routes/runs.ts";\nexport const app = {} as { r?: R };\n',
      "src/index.ts": 'import { app } from "./app.ts";\nexport default app;\n',
      "sdk/src/client.ts": leaf,
      // The CLI may bundle a pure engine (vrty --local).
      "cli/src/local.ts": 'import { judge } from "../../src/engines/judge/index.ts";\nexport const l = judge;\n',
      // ... and the API's limits (a batch split as the server would split it).
      "src/limits.ts": "export const LIMITS = { batchPairs: 1000 };\n",
      "cli/src/batch.ts": 'import { LIMITS } from "../../src/limits.ts";\nexport const b = LIMITS;\n',
      // ... and what lets vrty --local refuse a pair as the server does (its schemas, the strict JSON reader
      // and its wording), and the judge's vendor table.
      "src/evaluators/vrty/schemas.ts": 'import { LIMITS } from "../../limits.ts";\nexport const Pair = LIMITS;\n',
      "src/json/strict-json.ts": leaf,
      "src/providers/vendors.ts": leaf,
      "cli/src/vrty.ts":
        'import { Pair } from "../../src/evaluators/vrty/schemas.ts";\nimport { x } from "../../src/json/strict-json.ts";\n' +
        'import { x as v } from "../../src/providers/vendors.ts";\nexport const l = [Pair, x, v];\n',
      // vrty's routes, like every plug-in's, are built with the HTTP layer's toolkit (leaves declared above).
      "src/evaluators/vrty/routes.ts":
        'import { x as r } from "../../routes/router.ts";\nimport { x as o } from "../../routes/openapi.ts";\n' +
        'import { x as j } from "../../middleware/json-body.ts";\nexport const routes = [r, o, j];\n',
    });
    expect(cruise(dir)).toEqual({ status: 0, violations: [] });
  });
});

describe("engines hold no vendor knowledge", () => {
  // An import graph cannot see a vendor's URL, an env-var name or an auth header typed into an engine as a
  // string; this looks for them in string and template literals (comments may mention them).
  const VENDOR_LITERALS = [
    { what: "a URL with a host", re: /["'`]https?:\/\/[\w-]+(\.[\w-]+)+/ },
    { what: "an API-key env-var name", re: /["'`][A-Z][A-Z0-9_]*_API_KEY["'`]/ },
    { what: "an Authorization header", re: /["'`](Authorization|Bearer )/ },
  ];
  const files = (dir: string): string[] =>
    readdirSync(dir, { withFileTypes: true }).flatMap((e) =>
      e.isDirectory() ? files(join(dir, e.name)) : e.name.endsWith(".ts") ? [join(dir, e.name)] : [],
    );
  const engineFiles = files(join(ROOT, "src/engines")).map((f) => relative(ROOT, f));

  // Comments out (block, and line comments not preceded by a URL's colon or a quote), literals kept.
  const code = (source: string) => source.replace(/\/\*[\s\S]*?\*\//g, "").replace(/(^|[^:"'`])\/\/.*$/gm, "$1");

  it.each(engineFiles)("%s", (file) => {
    const source = code(readFileSync(join(ROOT, file), "utf8"));
    for (const { what, re } of VENDOR_LITERALS) expect(re.exec(source)?.[0], `${file} holds ${what}`).toBeUndefined();
  });

  it("recognises what the judge engine used to hold", () => {
    // src/engines/judge/critic.ts before issue 15: its vendor table and header.
    const old =
      // biome-ignore lint/suspicious/noTemplateCurlyInString: the old source text, quoted as it was
      'openai: { baseUrl: "https://api.openai.com/v1", envKey: "OPENAI_API_KEY" },\nheaders: { Authorization: `Bearer ${key}` }';
    expect(VENDOR_LITERALS.map(({ re }) => re.test(old))).toEqual([true, true, true]);
  });
});
