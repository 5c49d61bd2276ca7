// The Worker's types come from one source, `wrangler types` over wrangler.jsonc, in two parts
// (docs/development.md, "Worker types"):
// - Env, every binding, variable and secret the Worker reads: committed as worker-configuration.d.ts
//   (a few dozen lines, reviewed in diffs) and held to wrangler.jsonc by scripts/check-types.ts in CI.
// - The runtime (Request, D1Database, DurableObject…) as the installed workerd defines it at our
//   compatibility date and flags: made at install (postinstall) under node_modules/.cache, so it is
//   never committed and is always that of the workerd installed beside it.
// `node scripts/worker-types.ts` (npm run cf-typegen) writes both, after a change to wrangler.jsonc;
// `--runtime` writes the runtime part alone.
import { spawnSync } from "node:child_process";
import { mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { OFFLINE_ENV } from "./dev-setup.ts";

export const root = join(import.meta.dirname, "..");
export const ENV_TYPES = "worker-configuration.d.ts";
/** Named in tsconfig.json "files", so a missing copy is an error that names it. */
export const RUNTIME_TYPES = "node_modules/.cache/assay/worker-runtime.d.ts";
/** Names the secrets (no values are read into the types), as `wrangler secret put` will set them. */
const SECRETS_EXAMPLE = ".dev.vars.example";

/** Wrangler heads what it writes with an ESLint directive; there is no ESLint here (Biome ignores both files). */
const tidy = (text: string) => text.replace(/^\/\* eslint-disable \*\/\n/, "");

/** Runs `wrangler types <out> …args` in the repository's root and returns what it wrote, tidied. */
function wranglerTypes(out: string, args: string[]): string {
  mkdirSync(dirname(join(root, out)), { recursive: true });
  const r = spawnSync("wrangler", ["types", out, ...args], {
    cwd: root,
    encoding: "utf8",
    env: { ...process.env, ...OFFLINE_ENV },
  });
  if (r.status !== 0) throw new Error(`wrangler types failed (exit ${r.status ?? r.signal}):\n${r.stdout}${r.stderr}`);
  return tidy(readFileSync(join(root, out), "utf8"));
}

/**
 * The Env types wrangler makes today, written to `out` (relative to the root, in the root: the types
 * import "./src/index" relative to where they are written). `config` checks another wrangler.jsonc
 * (a test's); wrangler then reads the secrets' example relative to that file, hence the absolute path.
 */
export function envTypes(out: string, config?: string): string {
  const where = config
    ? [`--config=${config}`, `--env-file=${join(root, SECRETS_EXAMPLE)}`]
    : [`--env-file=${SECRETS_EXAMPLE}`];
  return wranglerTypes(out, [...where, "--include-runtime=false"]);
}

/** The runtime types of the installed workerd at wrangler.jsonc's compatibility date and flags. */
export function runtimeTypes(out: string): string {
  return wranglerTypes(out, ["--include-env=false"]);
}

function write(path: string, make: (out: string) => string): void {
  writeFileSync(join(root, path), make(path));
  console.log(`${path}: written`);
}

if (import.meta.main) {
  try {
    if (!process.argv.includes("--runtime")) write(ENV_TYPES, envTypes);
    write(RUNTIME_TYPES, runtimeTypes);
  } catch (err) {
    console.error((err as Error).message);
    process.exitCode = 1;
  }
}
