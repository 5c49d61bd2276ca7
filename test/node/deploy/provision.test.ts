// Issue 23, "From the README to a deployment": `npm run provision` creates the D1 database, KV
// namespace, R2 bucket and queue and writes their ids into wrangler.jsonc. It never reaches Cloudflare
// here: wrangler is a function answering with what wrangler 4.155 prints (test/fixtures/wrangler-outputs.ts).
import { spawnSync } from "node:child_process";
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { parse } from "jsonc-parser";
import { afterAll, describe, expect, it } from "vitest";
import {
  createdId,
  existingId,
  plan,
  provision,
  resourcesOf,
  type Outcome,
  type Resource,
} from "../../../scripts/provision.ts";
import * as out from "../../fixtures/wrangler-outputs.ts";

const ROOT = join(import.meta.dirname, "../../..");
const REPO_CONFIG = readFileSync(join(ROOT, "wrangler.jsonc"), "utf8");
const empty = mkdtempSync(join(tmpdir(), "assay-no-wrangler-"));
afterAll(() => rmSync(empty, { recursive: true, force: true }));

// A config shaped like ours, small enough to state every expected line.
const CONFIG = `{
  "name": "evals",
  // the database
  "d1_databases": [
    {
      "binding": "DB",
      "database_name": "assay",
      // placeholder until provisioned
      "database_id": "00000000-0000-0000-0000-000000000000",
      "migrations_dir": "migrations"
    }
  ],
  "kv_namespaces": [{ "binding": "KEY_CACHE", "id": "00000000000000000000000000000000" }], // cache
  "r2_buckets": [{ "binding": "RESULTS", "bucket_name": "assay-results" }],
  "queues": {
    "producers": [{ "binding": "UNIT_QUEUE", "queue": "assay-units" }],
    "consumers": [{ "queue": "assay-units", "max_batch_size": 100 }]
  }
}
`;

const ok = (stdout: string): Outcome => ({ status: 0, stdout, stderr: "" });
const fail = (stderr: string): Outcome => ({ status: 1, stdout: "", stderr });

/** A fake wrangler: answers from a table of `args joined by spaces`, and records every call. */
function fakeWrangler(answers: Record<string, Outcome>) {
  const calls: string[] = [];
  const run = (args: string[]) => {
    const cmd = args.join(" ");
    calls.push(cmd);
    const a = answers[cmd];
    if (!a) throw new Error(`unexpected wrangler command: ${cmd}`);
    return a;
  };
  return { run, calls };
}

const NOTHING_EXISTS = {
  "d1 list --json": ok(out.D1_LIST_EMPTY),
  "d1 create assay --update-config=false": ok(out.D1_CREATE),
  "kv namespace list": ok(out.KV_LIST_EMPTY),
  "kv namespace create evals-key-cache --update-config=false": ok(
    out.KV_CREATE.replace("assay-key-cache", "evals-key-cache"),
  ),
  "r2 bucket info assay-results": fail(out.NOT_FOUND),
  "r2 bucket create assay-results --update-config=false": ok(out.R2_CREATE),
  "queues info assay-units": fail(out.NOT_FOUND),
  "queues create assay-units": ok(out.QUEUE_CREATE),
};

describe("scripts/provision.ts", () => {
  it("finds every resource the config binds, the queue once for producer and consumer", () => {
    expect(resourcesOf(CONFIG)).toEqual<Resource[]>([
      {
        kind: "d1",
        binding: "DB",
        name: "assay",
        id: "00000000-0000-0000-0000-000000000000",
        path: ["d1_databases", 0, "database_id"],
      },
      // Named as wrangler's own provisioning names resources: the Worker's name and the binding.
      {
        kind: "kv",
        binding: "KEY_CACHE",
        title: "evals-key-cache",
        id: "00000000000000000000000000000000",
        path: ["kv_namespaces", 0, "id"],
      },
      { kind: "r2", binding: "RESULTS", name: "assay-results" },
      { kind: "queue", name: "assay-units" },
    ]);
  });

  it("creates what is missing and writes the two ids in place of the placeholders, every other line and comment kept", () => {
    const w = fakeWrangler(NOTHING_EXISTS);
    const log: string[] = [];
    const updated = provision(CONFIG, w.run, (l) => log.push(l));
    expect(w.calls).toEqual(Object.keys(NOTHING_EXISTS));
    const expected = CONFIG.replace('"00000000-0000-0000-0000-000000000000"', `"${out.D1_ID}"`).replace(
      '"00000000000000000000000000000000"',
      `"${out.KV_ID}"`,
    );
    expect(updated).toBe(expected);
    expect(log).toEqual([
      `D1 database assay (binding DB): created, id ${out.D1_ID}`,
      `KV namespace evals-key-cache (binding KEY_CACHE): created, id ${out.KV_ID}`,
      "R2 bucket assay-results (binding RESULTS): created",
      "queue assay-units: created",
    ]);
  });

  it("adopts resources that exist (a run again after a failure half-way) instead of creating them twice", () => {
    const w = fakeWrangler({
      "d1 list --json": ok(out.D1_LIST_WITH_ASSAY),
      "kv namespace list": ok(out.KV_LIST_WITH_CACHE.replace('"assay-key-cache"', '"evals-key-cache"')),
      "r2 bucket info assay-results": ok(out.R2_INFO),
      "queues info assay-units": ok(out.QUEUE_INFO),
    });
    const updated = provision(CONFIG, w.run, () => {});
    expect(w.calls).toEqual([
      "d1 list --json",
      "kv namespace list",
      "r2 bucket info assay-results",
      "queues info assay-units",
    ]);
    expect(parse(updated)).toMatchObject({
      d1_databases: [{ database_id: out.D1_ID }],
      kv_namespaces: [{ id: out.KV_ID }],
    });
  });

  it("leaves ids that are set alone and asks wrangler nothing about them", () => {
    const provisioned = provision(CONFIG, fakeWrangler(NOTHING_EXISTS).run, () => {});
    const again = fakeWrangler({
      "r2 bucket info assay-results": ok(out.R2_INFO),
      "queues info assay-units": ok(out.QUEUE_INFO),
    });
    expect(provision(provisioned, again.run, () => {})).toBe(provisioned);
    expect(again.calls).toEqual(["r2 bucket info assay-results", "queues info assay-units"]);
  });

  it("stops at the first failure with wrangler's own message (not logged in), having created nothing", () => {
    const w = fakeWrangler({ "d1 list --json": fail(out.NOT_LOGGED_IN) });
    expect(() => provision(CONFIG, w.run, () => {})).toThrow(
      /`wrangler d1 list --json` failed \(looking for the D1 database assay \(binding DB\), exit 1\):\n.*CLOUDFLARE_API_TOKEN/s,
    );
    expect(w.calls).toEqual(["d1 list --json"]);
  });

  it("reads the new ids from JSON and TOML snippets, the existing ones from the lists by exact name", () => {
    expect(createdId("d1", out.D1_CREATE)).toBe(out.D1_ID);
    expect(createdId("d1", out.D1_CREATE_TOML)).toBe(out.D1_ID);
    expect(createdId("kv", out.KV_CREATE)).toBe(out.KV_ID);
    expect(() => createdId("kv", out.D1_CREATE)).toThrow(/could not find the new namespace id/);
    const [d1, kv] = resourcesOf(REPO_CONFIG) as Extract<Resource, { kind: "d1" | "kv" }>[];
    // "assay-staging" is listed first and must not be taken for "assay".
    expect(existingId(d1, out.D1_LIST_WITH_ASSAY)).toBe(out.D1_ID);
    expect(existingId(d1, out.D1_LIST_EMPTY)).toBeNull();
    expect(existingId(kv, out.KV_LIST_WITH_CACHE)).toBe(out.KV_ID);
  });

  it("provisions the repository's own wrangler.jsonc: two values change, nothing else", () => {
    const w = fakeWrangler({
      ...NOTHING_EXISTS,
      "kv namespace create assay-key-cache --update-config=false": ok(out.KV_CREATE),
    });
    const updated = provision(REPO_CONFIG, w.run, () => {});
    const before = REPO_CONFIG.split("\n");
    const after = updated.split("\n");
    expect(after.length).toBe(before.length);
    const changed = before.map((l, i) => [l, after[i]]).filter(([a, b]) => a !== b);
    expect(changed).toHaveLength(2);
    expect(changed[0][1]).toContain(`"database_id": "${out.D1_ID}"`);
    expect(changed[1][1]).toContain(`"id": "${out.KV_ID}"`);
  });

  it("--dry-run prints the commands and runs none of them (wrangler is not even on its PATH)", () => {
    const noWrangler: Record<string, string> = { PATH: empty };
    const r = spawnSync(process.execPath, ["scripts/provision.ts", "--dry-run"], {
      cwd: ROOT,
      encoding: "utf8",
      env: noWrangler as NodeJS.ProcessEnv,
    });
    expect(r.status, r.stderr).toBe(0);
    expect(r.stdout.trim().split("\n")).toEqual(plan(REPO_CONFIG));
    for (const cmd of [
      "npx wrangler d1 create assay",
      "npx wrangler kv namespace create assay-key-cache",
      "npx wrangler r2 bucket create assay-results",
      "npx wrangler queues create assay-units",
    ]) {
      expect(r.stdout).toContain(cmd);
    }
    expect(readFileSync(join(ROOT, "wrangler.jsonc"), "utf8")).toBe(REPO_CONFIG);
  });
});
