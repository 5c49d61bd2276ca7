// `assay runs …` and what every verb shares: server and key, problem+json as one line, exit codes,
// following a run (progress, Ctrl-C cancels it).
import { describe, expect, inject, it } from "vitest";
import { spawn } from "node:child_process";
import { readFileSync } from "node:fs";
import { createServer } from "node:net";
import { join } from "node:path";
import { assay, BIN, outputContains } from "./assay.ts";

const server = () => inject("assayUrl");
const headers = { Authorization: "Bearer assay_sk_local_dev_key", "Content-Type": "application/json" };

/** A chain-determinism run on the simulator, created over plain HTTP (the CLI is what is under test). */
async function simRun(body: Record<string, unknown> = {}): Promise<string> {
  const res = await fetch(`${server()}/v1/chain-determinism/runs`, {
    method: "POST",
    headers,
    body: JSON.stringify({ model: "sim:agent", n_queries: 2, n_replays: 3, ...body }),
  });
  expect(res.status).toBe(202);
  return ((await res.json()) as { id: string }).id;
}

async function runStatus(id: string): Promise<string> {
  const res = await fetch(`${server()}/v1/runs/${id}`, { headers });
  return ((await res.json()) as { status: string }).status;
}

describe("assay runs", () => {
  it("watch follows a run to its end and prints it; get --json gives the whole run", async () => {
    const id = await simRun();
    const watched = await assay(["runs", "watch", id]);
    expect(watched.stderr).toBe(`watching run ${id}: Ctrl-C cancels it\n`);
    expect(watched.code).toBe(0);
    expect(watched.stdout).toMatch(new RegExp(`^${id}  chain-determinism  succeeded\\n`));
    expect(watched.stdout).toContain("progress  6/6 done, 0 failed");

    const got = await assay(["--json", "runs", "get", id]);
    expect(got.code).toBe(0);
    const run = JSON.parse(got.stdout);
    expect(run).toMatchObject({ id, evaluator: "chain-determinism", status: "succeeded" });
    expect(run.result).toMatchObject({ n_total: 6, n_queries: 2 });
  });

  it("list shows runs newest first, filtered by evaluator and status", async () => {
    const id = await simRun();
    await assay(["runs", "watch", id]);
    const listed = await assay([
      "runs",
      "list",
      "--evaluator",
      "chain-determinism",
      "--status",
      "succeeded",
      "--limit",
      "5",
    ]);
    expect(listed.code).toBe(0);
    const lines = listed.stdout.trim().split("\n");
    expect(lines[0].split(/\s+/)).toEqual(["id", "evaluator", "status", "progress", "age"]);
    // Other test files make runs on the same server at the same time: this run is listed, and the ids
    // (which sort by creation time) come newest first.
    const ids = lines.slice(2).map((l) => l.split(/\s+/)[0]);
    expect(lines.some((l) => l.startsWith(`${id}  chain-determinism  succeeded`))).toBe(true);
    expect(ids).toEqual([...ids].sort().reverse());
    // --json after the verb works as before it; a filter that matches only canceled runs shows only those.
    const canceled = await simRun({ n_queries: 5, n_replays: 20, simulator: { latency_ms: 2000 }, concurrency: 1 });
    expect((await assay(["runs", "cancel", canceled])).code).toBe(0);
    const asJson = JSON.parse((await assay(["runs", "list", "--status", "canceled", "--json"])).stdout);
    expect(asJson.data.length).toBeGreaterThan(0);
    expect(asJson.data.every((r: { status: string }) => r.status === "canceled")).toBe(true);
    expect(asJson.data.some((r: { id: string }) => r.id === canceled)).toBe(true);
  });

  it("samples prints every sample as one JSON line, across pages", async () => {
    const id = await simRun({ n_queries: 3, n_replays: 40 });
    await assay(["runs", "watch", id]);
    const out = await assay(["runs", "samples", id]);
    expect(out.code).toBe(0);
    const samples = out.stdout
      .trim()
      .split("\n")
      .map((l) => JSON.parse(l));
    expect(samples).toHaveLength(120);
    expect(new Set(samples.map((x: { unit_id: string }) => x.unit_id)).size).toBe(120);
  });

  it("events prints each unit, the progress and the final run as JSON lines", async () => {
    const id = await simRun();
    const out = await assay(["runs", "events", id]);
    expect(out.code).toBe(0);
    const events = out.stdout
      .trim()
      .split("\n")
      .map((l) => JSON.parse(l));
    expect(events.filter((e) => e.event === "unit")).toHaveLength(6);
    expect(events.at(-1)).toMatchObject({ event: "final", data: { id, status: "succeeded" } });
    expect(events.some((e) => e.event === "progress")).toBe(true);
  });

  it("Ctrl-C while watching cancels the run, says so, and exits 130", async () => {
    const id = await simRun({ n_queries: 5, n_replays: 20, simulator: { latency_ms: 2000 }, concurrency: 1 });
    const result = await assay(["runs", "watch", id], {
      // Interrupt once the CLI says it is watching (its Ctrl-C handler is in place from then on).
      onSpawn: (child) => void outputContains(child, "stderr", "Ctrl-C cancels it").then(() => child.kill("SIGINT")),
    });
    expect(result.code).toBe(130);
    expect(result.stderr).toContain(`interrupted: canceling run ${id}`);
    expect(result.stderr).toContain(`run ${id} canceled`);
    expect(await runStatus(id)).toBe("canceled");
  });

  it("cancel ends a run; a run that has ended stays as it was, and says so", async () => {
    const id = await simRun({ n_queries: 5, n_replays: 20, simulator: { latency_ms: 2000 }, concurrency: 1 });
    const out = await assay(["runs", "cancel", id]);
    expect(out.code).toBe(0);
    expect(out.stdout).toBe(`run ${id} canceled\n`);
    expect(await runStatus(id)).toBe("canceled");
    const done = await simRun();
    await assay(["runs", "watch", done]);
    expect(await runStatus(done)).toBe("succeeded");
    const again = await assay(["runs", "cancel", done]);
    expect(again.code).toBe(0);
    expect(again.stdout).toBe(`run ${done} had already ended: succeeded\n`);
    expect(await runStatus(done)).toBe("succeeded");
  });

  it("Ctrl-C as soon as a run has been created cancels it: no run is left going unseen", async () => {
    let created = "";
    const result = await assay(
      [
        "chain-determinism",
        "eval",
        "--model",
        "sim:agent",
        "--n-queries",
        "5",
        "--n-replays",
        "20",
        "--concurrency",
        "1",
      ],
      {
        // The run exists once its id is printed; interrupt right then, before or while it is followed.
        onSpawn: (child) =>
          void outputContains(child, "stderr", /run (run_\w+) started/).then((text) => {
            created = /run (run_\w+) started/.exec(text)![1];
            child.kill("SIGINT");
          }),
      },
    );
    expect(result.code).toBe(130);
    expect(result.stderr).toContain(`interrupted: canceling run ${created}`);
    expect(await runStatus(created)).toBe("canceled");
  });
});

describe("what every verb shares", () => {
  it("an unknown run is the API's problem+json in one line, exit 1, no stack trace", async () => {
    const out = await assay(["runs", "get", "run_doesnotexist"]);
    expect(out.code).toBe(1);
    expect(out.stderr).toMatch(/^assay: 404 Not found: .+\n$/);
    expect(out.stdout).toBe("");
  });

  it("a wrong key is refused with the API's words", async () => {
    const out = await assay(["runs", "list"], { env: { ASSAY_API_KEY: "assay_sk_wrong" } });
    expect(out.code).toBe(1);
    expect(out.stderr).toMatch(/^assay: 401 Unauthenticated: /);
    expect(out.stderr).not.toContain("assay_sk_wrong");
  });

  it("a server that cannot be reached is named, exit 1", async () => {
    const port = await new Promise<number>((resolve) => {
      const s = createServer().listen(0, "127.0.0.1", () => {
        const p = (s.address() as { port: number }).port;
        s.close(() => resolve(p));
      });
    });
    const out = await assay(["--server", `http://127.0.0.1:${port}`, "runs", "list"], { env: { ASSAY_API_KEY: "k" } });
    expect(out.code).toBe(1);
    expect(out.stderr).toBe(`assay: cannot reach http://127.0.0.1:${port}: ECONNREFUSED\n`);
  });

  it("a remote server needs ASSAY_API_KEY: the local dev key is only for the local server", async () => {
    const out = await assay(["--server", "https://assay.example.com", "runs", "list"], {
      env: { ASSAY_API_KEY: undefined },
    });
    expect(out.code).toBe(2);
    expect(out.stderr).toBe("assay: set ASSAY_API_KEY to an API key of https://assay.example.com\n");
  });

  it("usage errors exit 2: an unknown flag, a missing argument, a bad choice", async () => {
    for (const args of [
      ["runs", "list", "--bogus"],
      ["runs", "get"],
      ["runs", "list", "--status", "done"],
      ["nonsense"],
    ]) {
      const out = await assay(args);
      expect(out.code, args.join(" ")).toBe(2);
      expect(out.stderr, args.join(" ")).toMatch(/error: /);
    }
  });

  it("a group without its verb shows help and exits 2, so a CI step with a forgotten verb fails", async () => {
    for (const args of [["rq"], ["chain-determinism"], []]) {
      const out = await assay(args);
      expect(out.code, args.join(" ") || "(nothing)").toBe(2);
      expect(out.stderr).toContain("Usage: assay");
    }
  });

  it("a reader that stops early is not an error: no stack trace", async () => {
    const lines = Array.from({ length: 3000 }, (_, i) =>
      JSON.stringify({ prompt: `question ${i}`, response: `answer ${i}` }),
    ).join("\n");
    const out = await new Promise<{ code: number | null; stderr: string }>((resolve) => {
      const child = spawn(process.execPath, [BIN, "vrty", "batch", "--local", "--in", "-"], {
        stdio: ["pipe", "pipe", "pipe"],
      });
      let stderr = "";
      child.stderr.on("data", (b: Buffer) => (stderr += b.toString()));
      // Read the first chunk, then close our end of the pipe, as `| head -c 100` does.
      child.stdout.once("data", () => child.stdout.destroy());
      child.on("close", (code) => resolve({ code, stderr }));
      child.stdin.end(lines);
    });
    expect(out.stderr).not.toMatch(/EPIPE|\n\s+at /);
    expect(out.code).toBe(0);
  });

  it("--help and --version exit 0", async () => {
    expect((await assay(["--help"])).code).toBe(0);
    const v = await assay(["--version"]);
    expect(v.code).toBe(0);
    const pkg = JSON.parse(readFileSync(join(import.meta.dirname, "../../cli/package.json"), "utf8")) as {
      version: string;
    };
    expect(v.stdout.trim()).toBe(pkg.version);
  });
});
