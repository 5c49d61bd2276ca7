// Issue 23, item 4: an event stream ends before its D1 query budget and the client resumes with
// `Last-Event-ID`. The e2e server's budget is forced down (test/cli/setup.ts), so a run of a few
// seconds takes many connections; `assay runs events` (the CLI's follow, on the SDK's
// followRunEvents) must print exactly the run's events: every unit once, in order, the progress
// never going back nor repeating, the final run last.
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, inject, it } from "vitest";
import { createClient } from "@assay/sdk/client";
import { followRunEvents, type RunEvent } from "@assay/sdk/run-events";
import { assay } from "./assay.ts";
import { expectExactly } from "../support/run-events.ts";

const server = () => inject("assayUrl");
const SERVER_LOG = join(import.meta.dirname, "..", "..", "test-artifacts", "wrangler-dev-e2e.txt");
const KEY = "assay_sk_local_dev_key";
const headers = { Authorization: `Bearer ${KEY}`, "Content-Type": "application/json" };

type Printed = { event: string; id: string; data: Record<string, unknown> };

describe("following a run across the server's reconnects", () => {
  it("assay runs events prints exactly the run's events, each once, over many connections", async () => {
    // 20 units one at a time, each a few hundred ms: several seconds, many budget windows.
    const res = await fetch(`${server()}/v1/chain-determinism/runs`, {
      method: "POST",
      headers,
      body: JSON.stringify({
        model: "sim:agent",
        n_queries: 2,
        n_replays: 10,
        concurrency: 1,
        simulator: { latency_ms: 300 },
      }),
    });
    expect(res.status).toBe(202);
    const runId = ((await res.json()) as { id: string }).id;

    // The SDK's follower beside the CLI, counting its connections: the server's budget closes each
    // after a few polls.
    const connections: (string | undefined)[] = [];
    const sdkEvents: RunEvent[] = [];
    const client = createClient({ baseUrl: server(), auth: () => KEY });
    const sdk = (async () => {
      for await (const e of followRunEvents({ client, runId, onConnect: (last) => connections.push(last) }))
        sdkEvents.push(e);
    })();

    const out = await assay(["runs", "events", runId]);
    await sdk;
    expect(out.code, out.stderr).toBe(0);
    const printed = out.stdout
      .trim()
      .split("\n")
      .map((l) => JSON.parse(l) as Printed);
    await expectExactly(server(), KEY, printed, runId);
    await expectExactly(server(), KEY, sdkEvents as unknown as Printed[], runId);

    expect(connections.length).toBeGreaterThanOrEqual(3);
    // The CLI's own connections, from the server's request log (test/cli/setup.ts writes it; a line
    // comes once its stream has ended): this run's stream requests but the SDK follower's.
    const requests = () =>
      readFileSync(SERVER_LOG, "utf8")
        .split("\n")
        .filter((l) => l.includes(`GET /v1/runs/${runId}/events `)).length;
    await expect.poll(() => requests() - connections.length).toBeGreaterThanOrEqual(3);
    // Each reconnect resumed from the last id received before it.
    expect(connections[0]).toBeUndefined();
    const ids = new Set(sdkEvents.map((e) => e.id));
    for (const last of connections.slice(1)) if (last !== undefined) expect(ids.has(last)).toBe(true);

    // After the final event there is nothing more: followRunEvents from its id yields nothing.
    const after: RunEvent[] = [];
    for await (const e of followRunEvents({ client, runId, lastEventId: sdkEvents.at(-1)!.id })) after.push(e);
    expect(after).toEqual([]);
  });
});
