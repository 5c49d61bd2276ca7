// Issue 19: a result too large for its runs row lives in R2, the row keeps a pointer, GET /v1/runs/{id}
// stays small and links to GET /v1/runs/{id}/result. vitest.config.ts sets RESULT_INLINE_BYTES to 256 KiB
// (1 MiB in production), so a judge run of 1,500 items, past the old 1,000-item limit, takes that path.
import { describe, expect, it, vi } from "vitest";
import { env } from "cloudflare:workers";
import { runInDurableObject } from "cloudflare:test";
import { openDb } from "../../src/db/client.ts";
import { getRunById } from "../../src/db/runs.ts";
import { Store } from "../../src/runs/coordinator/store.ts";
import { judge } from "../../src/evaluators/judge/index.ts";
import type { StoredSample } from "../../src/runs/plugin/types.ts";
import { receivedHooks } from "../support/webhook-receiver.ts";
import { call, send, tenantWithHook, WAIT, waitForRun, type RunJson } from "./helpers.ts";

const INLINE_BYTES = 262_144;
const critics = [
  { name: "a", model: "sim:critic" },
  { name: "b", model: "sim:critic", simulator: { noise: 0.4 } },
];
const items = (n: number) =>
  Array.from({ length: n }, (_, i) => ({
    id: `item-${i}`,
    query: `Is claim number ${i} supported by the record?`,
    expected: i % 3 ? "KEEP" : "REJECT",
  }));

type Run = RunJson & { result_url: string | null; result_size_bytes: number | null };

async function judgeRun(key: string, n: number, webhookUrl: string): Promise<{ run: Run; bytes: number }> {
  const created = await send("POST", "/v1/judge/runs", key, {
    items: items(n),
    critics,
    concurrency: 100,
    webhook_url: webhookUrl,
  });
  expect(created.status, await created.clone().text()).toBe(202);
  const { id } = (await created.json()) as Run;
  await waitForRun(key, id, 55_000);
  const res = await send("GET", `/v1/runs/${id}`, key);
  const text = await res.text();
  return { run: JSON.parse(text) as Run, bytes: new TextEncoder().encode(text).length };
}

/** Every sample of a run through the JSON pages, as its evaluator reads them. */
async function allSamples(key: string, id: string): Promise<StoredSample[]> {
  const out: StoredSample[] = [];
  for (let after = ""; ; ) {
    const page = (await (await send("GET", `/v1/runs/${id}/samples?limit=100${after}`, key)).json()) as {
      data: any[];
      next_cursor: string | null;
    };
    out.push(...page.data.map((s) => ({ unitId: s.unit_id, status: s.status, output: s.output, error: s.error })));
    if (!page.next_cursor) return out;
    after = `&after=${page.next_cursor}`;
  }
}

/** The config the run's units and aggregate worked from, as its coordinator keeps it. */
async function coordinatorConfig(id: string): Promise<unknown> {
  return runInDurableObject(env.RUNS.get(env.RUNS.idFromName(id)), (_, state) => new Store(state.storage.sql).config());
}

describe("GET /v1/runs/{id}/result", () => {
  it("a judge run of 1,500 items is accepted, keeps its result in R2 and links to it", async () => {
    const { key, hook, url } = await tenantWithHook("large");
    const { run, bytes } = await judgeRun(key, 1_500, url);
    expect(run.status).toBe("succeeded");
    expect(run.progress).toEqual({ done: 3_000, failed: 0, total: 3_000 });
    // The run stays small and links to the full result.
    expect(run.result).toBeNull();
    expect(run.result_url).toBe(`/v1/runs/${run.id}/result`);
    expect(run.links.result).toBe(run.result_url);
    expect(run.result_size_bytes).toBeGreaterThan(INLINE_BYTES);
    expect(bytes).toBeLessThan(8_192);

    // The row holds the pointer, the object holds the bytes.
    const row = (await getRunById(openDb(env.DB), run.id))!;
    expect(row.result).toBeNull();
    expect(row.resultKey).toMatch(new RegExp(`^runs/${run.id}/result-[0-9a-f-]{36}\\.json$`));
    expect((await env.RESULTS.head(row.resultKey!))?.size).toBe(run.result_size_bytes);

    // The full result is what the evaluator's aggregate makes of the run's samples, recomputed here.
    const res = await send("GET", run.result_url!, key);
    expect(res.status).toBe(200);
    expect(res.headers.get("content-type")).toMatch(/^application\/json/);
    const body = await res.text();
    expect(new TextEncoder().encode(body).length).toBe(run.result_size_bytes);
    const samples = await allSamples(key, run.id);
    expect(samples).toHaveLength(3_000);
    const expected = judge.aggregate((await coordinatorConfig(run.id)) as never, samples);
    expect(JSON.parse(body)).toEqual(JSON.parse(JSON.stringify(expected)));
    expect(JSON.parse(body).counts.items).toBe(1_500);

    // The webhook carries the link, not the result.
    const hooks = await vi.waitFor(async () => {
      const got = await receivedHooks(env.WEBHOOK_RECEIVER_URL, hook);
      if (!got.length) throw new Error("no delivery yet");
      return got;
    }, WAIT);
    const payload = JSON.parse(hooks[0].body) as { type: string; data: Run };
    expect(payload.type).toBe("run.succeeded");
    expect(payload.data.result).toBeNull();
    expect(payload.data.result_url).toBe(run.result_url);
    expect(hooks[0].body.length).toBeLessThan(8_192);

    // Exports read the result and samples from where they live.
    const contested = await send("GET", `/v1/judge/runs/${run.id}/contested?limit=5`, key);
    expect(contested.status).toBe(200);
    const page = (await contested.json()) as { data: { id: string }[] };
    const wantContested = (JSON.parse(body).items as { id: string; contested: string[] }[])
      .filter((it) => it.contested.length)
      .slice(0, 5)
      .map((it) => it.id);
    expect(page.data.map((d) => d.id)).toEqual(wantContested);
    const ndjson = await call(`/v1/runs/${run.id}/samples`, {
      headers: { Authorization: `Bearer ${key}`, Accept: "application/x-ndjson" },
    });
    expect(
      new TextDecoder()
        .decode(await ndjson.arrayBuffer())
        .trimEnd()
        .split("\n"),
    ).toHaveLength(3_000);
    const compared = await send("GET", `/v1/compare?base=${run.id}&head=${run.id}`, key);
    expect(compared.status, await compared.clone().text()).toBe(200);
    expect(((await compared.json()) as { verdict: string }).verdict).toBe("no_change");
  }, 120_000);

  it("serves an inline result too, the same JSON as the run's `result`", async () => {
    const { key, url } = await tenantWithHook("small");
    const { run } = await judgeRun(key, 12, url);
    expect(run.result).not.toBeNull();
    expect(run.result_url).toBe(`/v1/runs/${run.id}/result`);
    const body = await (await send("GET", run.result_url!, key)).text();
    expect(JSON.parse(body)).toEqual(run.result);
    expect(new TextEncoder().encode(body).length).toBe(run.result_size_bytes);
    expect((await getRunById(openDb(env.DB), run.id))!.resultKey).toBeNull();
  });

  it("is a 409 before the run ends and a 404 for another tenant's run", async () => {
    const { key, url } = await tenantWithHook("early");
    const created = (await (
      await send("POST", "/v1/judge/runs", key, { items: items(400), critics, concurrency: 1, webhook_url: url })
    ).json()) as Run;
    expect(created.result_url).toBeNull();
    expect((await send("GET", `/v1/runs/${created.id}/result`, key)).status).toBe(409);
    const other = await tenantWithHook("other");
    expect((await send("GET", `/v1/runs/${created.id}/result`, other.key)).status).toBe(404);
    await send("POST", `/v1/runs/${created.id}/cancel`, key);
  });
});
