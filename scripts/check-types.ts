// CI (.ci/run): the committed worker-configuration.d.ts (the `Env` every binding is typed by) must be
// what `npm run cf-typegen` makes from wrangler.jsonc and .dev.vars.example today. `wrangler types
// --check` compares only a hash of the configuration in the file's header, so a hand edit of the
// types passes it; this regenerates the file beside the committed one and compares the text.
// `node scripts/check-types.ts [--committed FILE]`: exit 0 when equal, 1 when stale (or on failure).
import { spawnSync } from "node:child_process";
import { readFileSync, rmSync } from "node:fs";
import { join } from "node:path";
import { OFFLINE_ENV } from "./dev-setup.ts";

const root = join(import.meta.dirname, "..");
export const COMMITTED = "worker-configuration.d.ts";
// In the repository's root, like the committed file: the generated types import "./src/index" relative
// to where they are written. Ignored by git, and removed once read.
const FRESH = ".worker-configuration.check.d.ts";

/** The arguments of `npm run cf-typegen` (package.json), so the check and the generator cannot drift apart. */
export function typegenArgs(): string[] {
  const script = (JSON.parse(readFileSync(join(root, "package.json"), "utf8")) as { scripts: Record<string, string> }).scripts["cf-typegen"];
  const [tool, command, ...args] = script.trim().split(/\s+/);
  if (tool !== "wrangler" || command !== "types") throw new Error(`the cf-typegen script is not \`wrangler types …\`: ${script}`);
  return args;
}

/** The header names the command line, which differs by the output path alone. */
const normalise = (text: string, path: string) => text.replace(` ${path}\``, "`");

/** The first line where the two texts differ (1-based), or null when they are equal. */
export function firstDifference(committed: string, fresh: string): { line: number; committed: string; fresh: string } | null {
  if (committed === fresh) return null;
  const a = committed.split("\n");
  const b = fresh.split("\n");
  let i = 0;
  while (i < a.length && i < b.length && a[i] === b[i]) i++;
  return { line: i + 1, committed: a[i] ?? "(end of file)", fresh: b[i] ?? "(end of file)" };
}

export function regenerate(): string {
  try {
    const r = spawnSync("wrangler", ["types", FRESH, ...typegenArgs()], { cwd: root, encoding: "utf8", env: { ...process.env, ...OFFLINE_ENV } });
    if (r.status !== 0) throw new Error(`wrangler types failed (exit ${r.status ?? r.signal}):\n${r.stdout}${r.stderr}`);
    return normalise(readFileSync(join(root, FRESH), "utf8"), FRESH);
  } finally {
    rmSync(join(root, FRESH), { force: true });
  }
}

if (import.meta.main) {
  const i = process.argv.indexOf("--committed");
  const committedPath = i > 0 ? process.argv[i + 1] : join(root, COMMITTED);
  try {
    const diff = firstDifference(readFileSync(committedPath, "utf8"), regenerate());
    if (diff) {
      console.error(
        `${COMMITTED} is stale: line ${diff.line} is\n  ${diff.committed}\nbut wrangler.jsonc and .dev.vars.example now make\n  ${diff.fresh}\n` +
          "Run `npm run cf-typegen` and commit the file.",
      );
      process.exitCode = 1;
    } else console.log(`${COMMITTED}: up to date with wrangler.jsonc and .dev.vars.example`);
  } catch (err) {
    console.error((err as Error).message);
    process.exitCode = 1;
  }
}
