// First-run setup for `npm start`: .dev.vars from the example, local D1 migrated, and the dev tenant's
// key stored (hashed) so the API can be called at once. Idempotent: safe on every start.
import { appendFileSync, copyFileSync, existsSync, readFileSync } from "node:fs";
import { createHash } from "node:crypto";
import { execFileSync } from "node:child_process";
import { join } from "node:path";

const root = join(import.meta.dirname, "..");

/** A fixed, documented key for local use only; it exists only in the local D1 this script seeds. */
export const DEV_API_KEY = "assay_sk_local_dev_key";

function wrangler(args: string[]): void {
  execFileSync("wrangler", args, { cwd: root, stdio: ["ignore", "pipe", "inherit"] });
}

/** Migrates the local D1 (under `persistTo`, or wrangler's default .wrangler/state) and seeds the dev key. */
export function prepareLocalDb(persistTo?: string): void {
  const where = persistTo ? ["--persist-to", persistTo] : [];
  wrangler(["d1", "migrations", "apply", "DB", "--local", ...where]);
  const hash = createHash("sha256").update(DEV_API_KEY).digest("hex");
  const now = Date.now();
  const sql =
    `INSERT OR IGNORE INTO tenants (id, name, created_at) VALUES ('ten_dev', 'dev', ${now});` +
    `INSERT OR IGNORE INTO api_keys (id, tenant_id, name, prefix, key_hash, created_at) ` +
    `VALUES ('key_dev', 'ten_dev', 'local dev key', '${DEV_API_KEY.slice(0, 16)}', '${hash}', ${now});`;
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
  const names = (text: string) => new Set(text.split("\n").map((l) => l.trim()).filter((l) => /^[A-Z_]+=/.test(l)).map((l) => l.slice(0, l.indexOf("="))));
  const have = names(readFileSync(devVars, "utf8"));
  const missing = readFileSync(example, "utf8").split("\n").filter((l) => /^[A-Z_]+=/.test(l.trim()) && !have.has(l.slice(0, l.indexOf("="))));
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
