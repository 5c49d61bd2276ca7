// Issue 24: a sixth evaluator is one folder, its import and its entry in the CLI too. The toy evaluator's verbs
// (test/fixtures/toy-sum/cli/) are built into the CLI by the package's own build options, with the one
// change a new evaluator makes to the CLI's code: its `register` added to the command list
// (cli/src/commands/index.ts). Everything else is the CLI as shipped; the result runs against a
// wrangler dev serving the Worker with the toy evaluator (test/support/toy-server.ts).
import { readFileSync, rmSync } from "node:fs";
import { join } from "node:path";
import { build, type Plugin } from "esbuild";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { options } from "../../cli/build.ts";
import type { DevServer } from "../../scripts/wrangler-dev.ts";
import { startToyServer } from "../support/toy-server.ts";
import { assay } from "./assay.ts";

const ROOT = join(import.meta.dirname, "..", "..");
const LIST = join(ROOT, "cli/src/commands/index.ts");
const TOY_VERBS = join(ROOT, "test/fixtures/toy-sum/cli/index.ts");
// Beside the shipped bundle, so that its imports resolve to the CLI's own dependencies.
const OUT_DIR = join(ROOT, "cli/dist/toy-sum");
const BIN = join(OUT_DIR, "assay.js");

/**
 * The command list with the toy's verbs added as a new evaluator's would be: its import beside the others and its
 * name in the list, one line each (the list is one name a line, as the formatter keeps it).
 */
function withToy(source: string): string {
  const imports =
    /^(import \{ register as \w+ \} from "\.\/[\w-]+\/index\.ts";\n)(?!import \{ register as \w+ \} from "\.\/[\w-]+\/index\.ts";)/m;
  const end = /^(export const COMMANDS: Register\[\] = \[\n(?: {2}\w+,\n)+)(\];)$/m;
  if (!imports.test(source) || !end.test(source))
    throw new Error(`${LIST}: no evaluator imports or COMMANDS list to add to`);
  return source
    .replace(imports, `$1import { register as toySum } from ${JSON.stringify(TOY_VERBS)};\n`)
    .replace(end, "$1  toySum,\n$2");
}

const addToy: Plugin = {
  name: "add-the-toy-evaluator",
  setup(b) {
    b.onLoad({ filter: /[\\/]cli[\\/]src[\\/]commands[\\/]index\.ts$/ }, (args) => ({
      contents: withToy(readFileSync(args.path, "utf8")),
      loader: "ts",
    }));
  },
};

let toy: DevServer;
const env = () => ({ ASSAY_URL: toy.base });
const headers = { Authorization: "Bearer assay_sk_local_dev_key" };

beforeAll(async () => {
  // Both at once, and both settled before a failure is thrown: a server that started while the build
  // failed is still stopped by afterAll.
  const [server, built] = await Promise.allSettled([
    startToyServer().then((s) => (toy = s)),
    build({ ...options, outfile: BIN, sourcemap: false, plugins: [addToy] }),
  ]);
  for (const r of [server, built]) if (r.status === "rejected") throw r.reason;
});
afterAll(async () => {
  await toy?.stop();
  rmSync(OUT_DIR, { recursive: true, force: true });
});

describe("a sixth evaluator in the CLI: one folder, its import and its entry", () => {
  it("the change to the CLI's own code is its import and its name in the command list, a line each", () => {
    const before = readFileSync(LIST, "utf8").split("\n");
    const after = withToy(readFileSync(LIST, "utf8")).split("\n");
    expect(after.length).toBe(before.length + 2);
    const added = after.filter((line) => !before.includes(line));
    expect(added).toEqual([`import { register as toySum } from ${JSON.stringify(TOY_VERBS)};`, "  toySum,"]);
    // Nothing else moved: taking the two lines out gives the shipped file back.
    expect(after.filter((line) => !added.includes(line))).toEqual(before);
  });

  it("`assay toy-sum 1 2 3.5` creates a toy run, follows it and prints its sum", async () => {
    const out = await assay(["toy-sum", "1", "2", "3.5"], { bin: BIN, env: env() });
    expect(out.stderr).toMatch(/run (run_\S+) started: /);
    expect(out.code).toBe(0);
    // 1 + 2 + 3.5
    expect(out.stdout).toBe("6.5\n");

    // The run is the server's, as the API reports it.
    const id = /run (run_\S+) started: /.exec(out.stderr)![1];
    const run = (await (await fetch(`${toy.base}/v1/runs/${id}`, { headers })).json()) as {
      evaluator: string;
      status: string;
      result: unknown;
    };
    expect(run).toMatchObject({ evaluator: "toy-sum", status: "succeeded", result: { sum: 6.5, units: 3 } });
  });

  it("--json prints the run; a bad number is a usage error before anything is sent", async () => {
    const json = await assay(["--json", "toy-sum", "4", "0.5"], { bin: BIN, env: env() });
    expect(json.code).toBe(0);
    expect(JSON.parse(json.stdout)).toMatchObject({
      evaluator: "toy-sum",
      status: "succeeded",
      result: { sum: 4.5, units: 2 },
    });

    const bad = await assay(["toy-sum", "1", "two"], { bin: BIN, env: env() });
    expect(bad.code).toBe(2);
    expect(bad.stderr).toBe('assay: not a number: "two"\n');
  });

  it("keeps every verb of the shipped CLI; the shipped CLI itself has no toy-sum", async () => {
    const withToyHelp = await assay(["--help"], { bin: BIN, env: env() });
    const shippedHelp = await assay(["--help"], { env: env() });
    expect(withToyHelp.code).toBe(0);
    const verbs = (help: string) => [...help.split("Commands:")[1].matchAll(/^ {2}(\S+)/gm)].map((m) => m[1]);
    expect(verbs(withToyHelp.stdout)).toEqual([
      ...verbs(shippedHelp.stdout).filter((v) => v !== "help"),
      "toy-sum",
      "help",
    ]);

    const shipped = await assay(["toy-sum", "1"], { env: env() });
    expect(shipped.code).toBe(2);
    expect(shipped.stderr).toMatch(/unknown command 'toy-sum'/);
  });
});
