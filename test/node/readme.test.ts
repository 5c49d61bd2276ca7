// Issue "A suite you can trust on any clone": the README's examples run as written, and (issue 24) so do
// those of every page of docs/ and of cli/README.md. Every ```sh block runs, in page order (docPages),
// in one bash session (as a reader pastes them into one terminal) against a real
// `wrangler dev` on a loopback port, started the way `npm start` starts it; every ```ts block runs with
// Node. A block that cannot run here says why in an HTML comment right above it: <!-- not run: … -->.
// curl is wrapped with --fail-with-body, so a block whose request gets a 4xx or 5xx fails.
import { spawn, spawnSync } from "node:child_process";
import { mkdtempSync, readFileSync, rmSync, symlinkSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { freePort, startWranglerDev, type DevServer } from "../../scripts/wrangler-dev.ts";
import { OFFLINE_ENV } from "../../scripts/dev-setup.ts";
import { codeBlocks, docPages, type Block } from "../support/doc-pages.ts";

const ROOT = join(import.meta.dirname, "../..");

function run(command: string, args: string[], cwd: string): Promise<{ code: number | null; output: string }> {
  return new Promise((resolve) => {
    const child = spawn(command, args, { cwd, env: { ...process.env, NO_COLOR: "1" } });
    let output = "";
    child.stdout.on("data", (b: Buffer) => (output += b.toString()));
    child.stderr.on("data", (b: Buffer) => (output += b.toString()));
    child.on("close", (code) => resolve({ code, output }));
  });
}

// The README, every page of docs/ (issue 24: the README's depth moved there), then the CLI's own page
// (cli/README.md), run in that order in one session.
type Located = Block & { at: string };
const blocks: Located[] = [...docPages(ROOT), "cli/README.md"].flatMap((file) =>
  codeBlocks(readFileSync(join(ROOT, file), "utf8")).map((b) => ({ ...b, at: `${file}:${b.line}` })),
);
const runnable = blocks.filter((b) => b.notRun === null);

// The examples are shell commands using curl and jq: without them they cannot run here, and the test
// says so instead of failing (the README names both under Setup).
const missingTools = ["bash", "curl", "jq"].filter((t) => spawnSync("sh", ["-c", `command -v ${t}`]).status !== 0);
if (missingTools.length) {
  describe("the README's examples", () =>
    it.skip(`skipped: they need ${missingTools.join(", ")} on the PATH`, () => {}));
}

describe.skipIf(missingTools.length > 0)("the README's examples", () => {
  let server: DevServer | undefined;
  let dir = "";
  let devOutput = "";
  const results = new Map<string, { ok: boolean; output: string }>();

  beforeAll(async () => {
    const port = await freePort();
    const local = (code: string) => code.replace(/\b(localhost|127\.0\.0\.1):8787\b/g, `127.0.0.1:${port}`);
    server = await startWranglerDev(port, "disk", (t) => (devOutput += t));
    // A scratch folder as the working directory, so files the examples write stay out of the
    // repository; the examples and the SDK they read are linked in.
    dir = mkdtempSync(join(tmpdir(), "assay-readme-"));
    symlinkSync(join(ROOT, "examples"), join(dir, "examples"));
    symlinkSync(join(ROOT, "sdk"), join(dir, "sdk"));
    // `npx assay` finds the CLI as it does in the repository (the nearest node_modules/.bin), and talks to
    // this server: not the default port, so the dev key is given as a remote server's key would be.
    symlinkSync(join(ROOT, "node_modules"), join(dir, "node_modules"));

    const sh = runnable.filter((b) => b.lang === "sh");
    const script = [
      "set -euo pipefail",
      "exec 2>&1",
      'curl() { command curl --fail-with-body --show-error --max-time 120 "$@"; }',
      `export ASSAY_URL=http://127.0.0.1:${port} ASSAY_API_KEY=assay_sk_local_dev_key`,
      ...sh.flatMap((b) => [`echo "@@start ${b.at}"`, local(b.code), `echo; echo "@@ok ${b.at}"`]),
    ].join("\n");
    const shell = await run("bash", ["-c", script], dir);
    for (const b of sh) {
      const from = shell.output.indexOf(`@@start ${b.at}\n`);
      const to = shell.output.indexOf(`@@ok ${b.at}\n`);
      const next = sh[sh.indexOf(b) + 1];
      const stop = next ? shell.output.indexOf(`@@start ${next.at}\n`) : -1;
      results.set(b.at, {
        ok: from >= 0 && to > from,
        output:
          from < 0
            ? "(did not run: an earlier block failed)"
            : shell.output.slice(from, stop > from ? stop : undefined),
      });
    }
    for (const [i, b] of runnable.filter((x) => x.lang === "ts").entries()) {
      // Numbered, not named by line: two pages may have a block on the same line.
      const file = join(dir, `example-${i}.ts`);
      writeFileSync(file, local(b.code));
      const r = await run(process.execPath, [file], dir);
      results.set(b.at, { ok: r.code === 0, output: r.output });
    }
  }, 300_000);

  afterAll(async () => {
    await server?.stop();
    if (dir) rmSync(dir, { recursive: true, force: true });
  });

  for (const b of blocks) {
    const paths = [...new Set(b.code.match(/(?<=:8787)\/[\w/.-]*/g) ?? [])];
    const title = `${b.at} (${b.lang}): ${paths.length ? paths.slice(0, 3).join(", ") : b.code.split("\n")[0].slice(0, 60)}`;
    if (b.notRun) it.skip(`${title} — not run: ${b.notRun}`, () => {});
    else
      it(title, () => {
        const r = results.get(b.at);
        expect(r, "the block was not run").toBeDefined();
        expect(r!.ok, r!.output).toBe(true);
      });
  }

  // Issue "A suite you can trust": the compare response's keys differed from the README's sketch. Every
  // field a `# →` sketch names (and its continuation lines) must be in what that block really printed.
  it("shows in its `# →` sketches only fields the API really answers", () => {
    for (const b of runnable.filter((x) => x.lang === "sh")) {
      const lines = b.code.split("\n");
      const sketch: string[] = [];
      lines.forEach((l, i) => {
        if (/^\s*# →/.test(l))
          for (let j = i; j < lines.length && (j === i || /^\s*#\s{2,}/.test(lines[j])); j++) sketch.push(lines[j]);
      });
      const output = results.get(b.at)?.output ?? "";
      for (const [, name] of sketch.join("\n").matchAll(/"([A-Za-z_][A-Za-z0-9_]*)"/g)) {
        expect(output, `${b.at}: the sketch names "${name}"`).toContain(`"${name}"`);
      }
    }
  });

  it("has runnable examples of every evaluator, the runs, the keys and the SDK", () => {
    const code = runnable.map((b) => b.code).join("\n");
    for (const path of [
      "/v1/vrty/score",
      "/v1/chain-determinism/runs",
      "/v1/rpl/runs",
      "/v1/judge/runs",
      "/v1/reasoning-quality/runs",
      "/v1/runs/",
      "/v1/keys",
      "scoreVrty",
    ]) {
      expect(code, path).toContain(path);
    }
  });

  it("runs nothing that leaves this machine", () => {
    for (const b of runnable) {
      for (const url of b.code.match(/https?:\/\/[^\s"'`]+/g) ?? [])
        expect(new URL(url).hostname, `${b.at}: ${url}`).toMatch(/^(localhost|127\.0\.0\.1)$/);
    }
  });

  it("keeps the local server offline and quiet, as npm start does (no Request.cf fetch, no stack traces)", () => {
    expect(devOutput).toContain("Ready on");
    expect(devOutput).not.toMatch(/workers\.cloudflare\.com|Unable to fetch|\n\s+at /);
  });

  it("npm start and npm run dev set the same offline variables as this test's server", () => {
    const scripts = (
      JSON.parse(readFileSync(join(ROOT, "package.json"), "utf8")) as { scripts: Record<string, string> }
    ).scripts;
    for (const name of ["start", "dev"]) {
      // The variable is set on the same command as `wrangler dev` (not before an earlier `&&`).
      for (const [k, v] of Object.entries(OFFLINE_ENV))
        expect(scripts[name], name).toMatch(
          new RegExp(`(^|&& )([A-Z_]+=\\S+ )*${k}=${v} ([A-Z_]+=\\S+ )*wrangler dev`),
        );
    }
  });

  it("finds the README's blocks (the parser reads fences and not-run markers)", () => {
    const parsed = codeBlocks(
      "text\n<!-- not run: needs a key -->\n```sh\necho a\n```\n\n```ts\nlet x = 1;\n```\n```json\n{}\n```\n",
    );
    expect(parsed).toEqual([
      { line: 3, lang: "sh", code: "echo a", notRun: "needs a key" },
      { line: 7, lang: "ts", code: "let x = 1;", notRun: null },
    ]);
  });
});
