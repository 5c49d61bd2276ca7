// Issue 23, "From the README to a deployment": CI builds the Worker as `wrangler deploy` would upload
// it, offline, prints its gzip size and fails past a budget (scripts/check-bundle.ts).
import { spawnSync } from "node:child_process";
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { gzipSync } from "node:zlib";
import { afterAll, describe, expect, it } from "vitest";
import { bundleSize, BUNDLE_GZIP_BUDGET_BYTES, verdict } from "../../../scripts/check-bundle.ts";

const ROOT = join(import.meta.dirname, "../../..");
const dirs: string[] = [];
afterAll(() => dirs.forEach((d) => rmSync(d, { recursive: true, force: true })));

/** The script as CI runs it, with no Cloudflare credentials in its environment. */
function checkBundle(args: string[]) {
  const env = { ...process.env };
  for (const k of Object.keys(env)) if (k.startsWith("CLOUDFLARE_")) delete env[k];
  return spawnSync(process.execPath, ["scripts/check-bundle.ts", ...args], { cwd: ROOT, encoding: "utf8", env });
}

const GZIP_LINE = /^bundle: [\d,.]+ KiB, gzip [\d,.]+ KiB \((\d+) bytes\), \d+% of the budget of (\d+) bytes/;

// Each case runs wrangler (a build of a few seconds); this bounds the wait on a loaded machine, not a speed.
describe("scripts/check-bundle.ts", { timeout: 120_000 }, () => {
  it("fails with a budget of 1 byte, printing the gzip size and what to do", () => {
    const r = checkBundle(["--budget", "1"]);
    expect(r.status, r.stdout + r.stderr).toBe(1);
    const m = GZIP_LINE.exec(r.stderr);
    expect(m, r.stderr).not.toBeNull();
    expect(Number(m![1])).toBeGreaterThan(1);
    expect(m![2]).toBe("1");
    expect(r.stderr).toContain("OVER BUDGET");
  });

  it("passes within the committed budget, offline and without an account", () => {
    const r = checkBundle([]);
    expect(r.status, r.stdout + r.stderr).toBe(0);
    const m = GZIP_LINE.exec(r.stdout);
    expect(m, r.stdout).not.toBeNull();
    expect(Number(m![1])).toBeLessThanOrEqual(BUNDLE_GZIP_BUDGET_BYTES);
    expect(Number(m![2])).toBe(BUNDLE_GZIP_BUDGET_BYTES);
  });

  it("counts every module wrangler writes, gzipped one by one, and neither source maps nor wrangler's README", () => {
    const dir = mkdtempSync(join(tmpdir(), "assay-bundle-test-"));
    dirs.push(dir);
    const script = Buffer.from("export default { fetch() { return new Response('a'.repeat(100)) } }\n".repeat(50));
    const wasm = Buffer.from(Array.from({ length: 4096 }, (_, i) => (i * 7919) % 251));
    writeFileSync(join(dir, "index.js"), script);
    mkdirSync(join(dir, "modules"));
    writeFileSync(join(dir, "modules", "engine.wasm"), wasm);
    writeFileSync(join(dir, "index.js.map"), "x".repeat(10_000));
    writeFileSync(join(dir, "README.md"), "This folder contains the built output assets for the worker");
    const size = bundleSize(dir);
    expect(size.files).toEqual(["index.js", join("modules", "engine.wasm")]);
    expect(size.bytes).toBe(script.length + wasm.length);
    expect(size.gzipBytes).toBe(gzipSync(script).length + gzipSync(wasm).length);
    expect(verdict(size, size.gzipBytes).ok).toBe(true);
    expect(verdict(size, size.gzipBytes - 1).ok).toBe(false);
  });
});
