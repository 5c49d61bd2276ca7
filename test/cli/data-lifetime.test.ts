// Issue 23, item 6: `assay runs delete`, `assay usage` and `assay settings --retention-days`.
import { describe, expect, inject, it } from "vitest";
import { assay } from "./assay.ts";

const server = () => inject("assayUrl");
const headers = { Authorization: "Bearer assay_sk_local_dev_key", "Content-Type": "application/json" };

async function finishedRun(): Promise<string> {
  const res = await fetch(`${server()}/v1/chain-determinism/runs`, {
    method: "POST",
    headers,
    body: JSON.stringify({ model: "sim:agent", n_queries: 2, n_replays: 3 }),
  });
  expect(res.status).toBe(202);
  const id = ((await res.json()) as { id: string }).id;
  expect((await assay(["runs", "watch", id])).code).toBe(0);
  return id;
}

type Usage = {
  runs: number;
  samples: number;
  bytes: { d1: number; r2: number; total: number };
  retention_days: number | null;
  quotas: Record<string, { limit: number; used: number }>;
};

async function usage(): Promise<Usage> {
  const out = await assay(["usage", "--json"]);
  expect(out.code).toBe(0);
  return JSON.parse(out.stdout) as Usage;
}

describe("assay runs delete", () => {
  it("refuses without --yes when nobody can confirm (exit 2), and deletes nothing", async () => {
    const id = await finishedRun();
    const out = await assay(["runs", "delete", id]);
    expect(out.code).toBe(2);
    expect(out.stderr).toContain("--yes");
    expect((await fetch(`${server()}/v1/runs/${id}`, { headers })).status).toBe(200);
  });

  it("deletes an ended run with --yes; usage drops by its samples; deleting it again is exit 1 with the 404", async () => {
    const id = await finishedRun();
    const before = await usage();
    const out = await assay(["runs", "delete", id, "--yes"]);
    expect(out.code).toBe(0);
    expect(out.stdout).toBe(`run ${id} deleted\n`);
    expect((await fetch(`${server()}/v1/runs/${id}`, { headers })).status).toBe(404);
    const after = await usage();
    // Other files' runs on this server are all ended (files run one at a time): only this one changed.
    expect(after.runs).toBe(before.runs - 1);
    expect(after.samples).toBe(before.samples - 6);
    expect(after.bytes.d1).toBeLessThan(before.bytes.d1);

    const again = await assay(["runs", "delete", id, "--yes"]);
    expect(again.code).toBe(1);
    expect(again.stderr).toMatch(/^assay: 404 Not found/);
  });

  it("is exit 1 with the 409 for a run that has not ended", async () => {
    const res = await fetch(`${server()}/v1/chain-determinism/runs`, {
      method: "POST",
      headers,
      body: JSON.stringify({
        model: "sim:agent",
        n_queries: 5,
        n_replays: 20,
        concurrency: 1,
        simulator: { latency_ms: 2000 },
      }),
    });
    const id = ((await res.json()) as { id: string }).id;
    const out = await assay(["runs", "delete", id, "--yes"]);
    expect(out.code).toBe(1);
    expect(out.stderr).toContain("409 Conflict");
    expect((await assay(["runs", "cancel", id])).code).toBe(0);
  });
});

describe("assay usage and assay settings", () => {
  it("prints what the tenant stores and its retention, and sets the retention", async () => {
    const text = await assay(["usage"]);
    expect(text.code).toBe(0);
    const u = await usage();
    expect(text.stdout).toContain(`runs      ${u.runs}\n`);
    expect(text.stdout).toContain(`samples   ${u.samples}\n`);
    expect(text.stdout).toMatch(/^stored {4}.+ \(database .+, objects .+\)$/m);
    // Issue 30: where the tenant stands against each quota (the limits are the service's, or the operator's).
    // (What is used moves with the other files' runs on this server; the limits do not.)
    expect(text.stdout).toMatch(new RegExp(`^  concurrent runs {7}\\d+ of ${u.quotas.concurrent_runs.limit}$`, "m"));
    expect(text.stdout).toMatch(new RegExp(`^  runs per minute {7}\\d+ of ${u.quotas.runs_per_minute.limit}$`, "m"));
    expect(u.quotas.stored_bytes.used).toBe(u.bytes.total);
    expect(u.bytes.total).toBe(u.bytes.d1 + u.bytes.r2);

    const forever = await assay(["settings", "--retention-days", "forever"]);
    expect(forever.stderr).toBe("");
    expect(forever.stdout).toBe("retention: ended runs kept for ever\n");
    expect((await usage()).retention_days).toBeNull();
    expect((await assay(["settings", "--retention-days", "90"])).stdout).toBe(
      "retention: ended runs kept 90 days after they end\n",
    );
    expect(JSON.parse((await assay(["settings", "--json"])).stdout)).toEqual({ retention_days: 90 });
    const bad = await assay(["settings", "--retention-days", "0"]);
    expect(bad.code).toBe(2);
    // Back to the default, for the other files on this server.
    expect((await assay(["settings", "--retention-days", "30"])).code).toBe(0);
  });
});
