// The SDK and the CLI are packages of their own (issue 16): what `npm pack` would ship, and the built CLI
// running from a folder that holds nothing but the package and its declared dependencies, so an import
// the package does not declare (or a file it does not ship) fails here rather than on a user's machine.
import { execFileSync, spawnSync } from "node:child_process";
import { cpSync, mkdirSync, mkdtempSync, readFileSync, rmSync, symlinkSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";

const ROOT = join(import.meta.dirname, "../..");
const dirs: string[] = [];
afterAll(() => dirs.forEach((d) => rmSync(d, { recursive: true, force: true })));

type Pack = { name: string; files: { path: string }[] };
function packed(workspace: string): Pack {
  const out = execFileSync("npm", ["pack", "--dry-run", "--json", "--ignore-scripts", "--workspace", workspace], {
    cwd: ROOT,
    encoding: "utf8",
  });
  return (JSON.parse(out) as Pack[])[0];
}

const pkg = (dir: string) =>
  JSON.parse(readFileSync(join(ROOT, dir, "package.json"), "utf8")) as {
    name: string;
    dependencies?: Record<string, string>;
    files: string[];
  };

/** Copies a workspace package as npm would install it: package.json plus its `files`. */
function install(dir: string, into: string): void {
  mkdirSync(into, { recursive: true });
  cpSync(join(ROOT, dir, "package.json"), join(into, "package.json"));
  for (const f of pkg(dir).files) cpSync(join(ROOT, dir, f), join(into, f), { recursive: true });
}

describe("@assay/sdk and @assay/cli as packages", () => {
  it("the SDK ships built JavaScript with declarations, not only sources", () => {
    const files = packed("sdk").files.map((f) => f.path);
    for (const f of [
      "dist/index.js",
      "dist/index.d.ts",
      "dist/client/index.js",
      "dist/client/index.d.ts",
      "openapi.json",
      "package.json",
    ])
      expect(files).toContain(f);
    expect(files.some((f) => f.startsWith("src/"))).toBe(false);
  });

  it("the CLI ships its bin and bundle", () => {
    const files = packed("cli").files.map((f) => f.path);
    for (const f of ["bin/assay.js", "dist/assay.js", "package.json"]) expect(files).toContain(f);
  });

  it("runs from a folder holding only the package and its declared dependencies", () => {
    const dir = mkdtempSync(join(tmpdir(), "assay-cli-pkg-"));
    dirs.push(dir);
    const cli = join(dir, "node_modules/@assay/cli");
    install("cli", cli);
    install("sdk", join(dir, "node_modules/@assay/sdk"));
    for (const dep of Object.keys(pkg("cli").dependencies ?? {})) {
      if (dep === "@assay/sdk") continue;
      mkdirSync(join(dir, "node_modules", dep, ".."), { recursive: true });
      symlinkSync(join(ROOT, "node_modules", dep), join(dir, "node_modules", dep), "dir");
    }
    const run = (...args: string[]) =>
      spawnSync(process.execPath, [join(cli, "bin/assay.js"), ...args], {
        cwd: dir,
        encoding: "utf8",
        env: { PATH: process.env.PATH } as unknown as NodeJS.ProcessEnv,
      });
    const help = run("--help");
    expect(help.stderr).toBe("");
    expect(help.status).toBe(0);
    expect(help.stdout).toContain("Usage: assay");
    // Scores in-process with the bundled engine: no server, no network.
    const local = run("vrty", "--local", "--prompt", "What is the capital of France?", "--response", "Paris.");
    expect(local.stderr).toBe("");
    expect(local.status).toBe(0);
    expect(JSON.parse(local.stdout).composite).toBeTypeOf("number");
  });
});
