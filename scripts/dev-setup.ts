// First-run setup for `npm start`: .dev.vars from the example, local D1 migrated, and the dev tenant's
// key stored (hashed) so the API can be called at once. Idempotent: safe on every start.
import { appendFileSync, copyFileSync, existsSync, readFileSync } from "node:fs";
import { execFileSync } from "node:child_process";
import { join } from "node:path";
import { DEV_API_KEY, devSeedSql } from "./dev-seed.ts";

export { DEV_API_KEY };

const root = join(import.meta.dirname, "..");

/**
 * Local development stays offline: every wrangler command starts a local runtime that would otherwise
 * fetch Request.cf data from workers.cloudflare.com (and print a stack trace when that fails). The npm
 * scripts that run `wrangler dev` set the same variables.
 */
export const OFFLINE_ENV = { CLOUDFLARE_CF_FETCH_ENABLED: "false", WRANGLER_SEND_METRICS: "false" };

function wrangler(args: string[]): void {
  execFileSync("wrangler", args, {
    cwd: root,
    stdio: ["ignore", "pipe", "inherit"],
    env: { ...process.env, ...OFFLINE_ENV },
  });
}

/** Migrates the local D1 (under `persistTo`, or wrangler's default .wrangler/state) and seeds the dev key. */
export function prepareLocalDb(persistTo?: string): void {
  const where = persistTo ? ["--persist-to", persistTo] : [];
  wrangler(["d1", "migrations", "apply", "DB", "--local", ...where]);
  const sql = devSeedSql(Date.now());
  wrangler(["d1", "execute", "DB", "--local", ...where, "--command", sql]);
}

/** Creates .dev.vars from the example, or adds to an existing one the variables it lacks (new ones arrive with updates). */
export function ensureDevVars(): void {
  const devVars = join(root, ".dev.vars");
  const example = join(root, ".dev.vars.example");
  if (!existsSync(devVars)) {
    copyFileSync(example, devVars);
    console.log("dev-setup: created .dev.vars from .dev.vars.example (ADMIN_TOKEN=assay-local-admin-token)");
    return;
  }
  const names = (text: string) =>
    new Set(
      text
        .split("\n")
        .map((l) => l.trim())
        .filter((l) => /^[A-Z_]+=/.test(l))
        .map((l) => l.slice(0, l.indexOf("="))),
    );
  const have = names(readFileSync(devVars, "utf8"));
  const missing = readFileSync(example, "utf8")
    .split("\n")
    .filter((l) => /^[A-Z_]+=/.test(l.trim()) && !have.has(l.slice(0, l.indexOf("="))));
  if (missing.length) {
    appendFileSync(devVars, "\n" + missing.join("\n") + "\n");
    console.log(`dev-setup: added to .dev.vars: ${missing.map((l) => l.slice(0, l.indexOf("="))).join(", ")}`);
  }
}

if (import.meta.main) {
  ensureDevVars();
  prepareLocalDb();
  console.log(`dev-setup: local D1 migrated; API key of tenant "dev": ${DEV_API_KEY}`);
}
