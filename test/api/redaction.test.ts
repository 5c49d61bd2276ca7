// Issue 14, item 5 ("Keys kept where they should not be"): against an endpoint that echoes the key it
// is sent, escaped, URL-encoded or in halves, after the run the key is nowhere: not in the run, its
// samples (JSON pages and NDJSON), its events, nor any D1 row (runs, samples, the tenant's sample cache).
//
// The error echoes are caught by the provider's scrub (src/providers/openai.ts scrubSecrets). A model's
// successful answer that repeats a key is caught only by the platform: the lane applies redactOutcome
// to every outcome and redactingCache to the tenant's cache (src/runs/results/redact.ts).
import { describe, expect, it } from "vitest";
import { env } from "cloudflare:workers";
import { fragmentLength } from "../../src/engines/redact/index.ts";
import { pyStrRepr } from "../../src/engines/python/index.ts";
import type { FaultRule } from "../support/fake-openai.ts";
import { call, fakeScenario, newTenant, send, startRq, startRun, waitForRun, type RunJson } from "./helpers.ts";

// Printable ASCII without spaces, as the API accepts keys, with a quote, a backslash and an apostrophe.
const KEY = `sk-proj-"Qx\\7f'Zr/Lm-0a1b2c3d4e5f60718293a4b5`;
const CRITIC_KEY = "critic-9f8e7d6c5b4a3928-1706f5e4d3c2b1a0";

/** True if `text` holds a part of `key` that counts as the key, as is or as JSON, Python or a URL write it, once or twice. */
function leaks(text: string, key: string): boolean {
  const n = fragmentLength(key.length);
  const json = (s: string) => JSON.stringify(s).slice(1, -1);
  for (let o = 0; o + n <= key.length; o++) {
    const part = key.slice(o, o + n);
    const forms = [
      part,
      json(part),
      json(json(part)),
      json(json(json(part))),
      encodeURIComponent(part),
      pyStrRepr(part).slice(1, -1),
      json(pyStrRepr(part).slice(1, -1)),
    ];
    if (forms.some((f) => text.includes(f))) return true;
  }
  return false;
}

/** Everything the API shows of a run and everything D1 holds about it, as one text. */
async function everything(key: string, tenantId: string, run: RunJson): Promise<string> {
  const auth = { Authorization: `Bearer ${key}` };
  const texts = [
    JSON.stringify(run),
    await (await send("GET", `/v1/runs/${run.id}`, key)).text(),
    await (await send("GET", `/v1/runs/${run.id}/samples?limit=100`, key)).text(),
    await (await call(`/v1/runs/${run.id}/samples`, { headers: { ...auth, Accept: "application/x-ndjson" } })).text(),
    await (await call(`/v1/runs/${run.id}/events`, { headers: auth })).text(),
  ];
  const rows = await env.DB.batch([
    env.DB.prepare("SELECT * FROM runs WHERE id = ?").bind(run.id),
    env.DB.prepare("SELECT * FROM samples WHERE run_id = ?").bind(run.id),
    env.DB.prepare("SELECT * FROM sample_cache WHERE tenant_id = ?").bind(tenantId),
    env.DB.prepare("SELECT * FROM webhook_deliveries WHERE run_id = ?").bind(run.id),
  ]);
  for (const r of rows) texts.push(JSON.stringify(r.results));
  return texts.join("\n");
}

const provider = (api_key = KEY) => ({ base_url: env.FAKE_OPENAI_URL, api_key });

/** A chain-determinism run of one query against `model`, waited for. */
async function cdRun(model: string, replays = 2) {
  const { key, tenantId } = await newTenant();
  const created = await startRun(key, {
    model,
    provider: provider(),
    n_queries: 1,
    n_replays: replays,
    min_success: 2,
    timeout_s: 5,
  });
  const run = await waitForRun(key, created.id, 40_000);
  return { run, all: await everything(key, tenantId, run) };
}

describe("a key echoed in an error body", () => {
  it.each<[string, FaultRule["respond"]]>([
    [
      "JSON-escaped, then written by Python's repr",
      { status: 401, body: { error: { message: "Incorrect API key provided: {{key}}", code: "invalid_api_key" } } },
    ],
    [
      "as a JSON string inside the message",
      { status: 400, body: { error: { message: '{"Authorization": "Bearer {{key_json}}"}' } } },
    ],
    ["URL-encoded", { status: 403, raw: '{"error": {"message": "denied: /v1/chat?key={{key_url}}"}}' }],
    ["in halves", { status: 401, body: { error: { message: "key {{key_head}}", param: "{{key_tail}}" } } }],
  ])("%s: not in the run, samples, events or D1", async (_, respond) => {
    const model = await fakeScenario({ echo_key: true, faults: [{ respond }] }, "redact");
    const { run, all } = await cdRun(model);
    expect(run.status).toBe("failed");
    expect(run.error).toContain("[REDACTED]");
    expect(leaks(all, KEY)).toBe(false);
  });
});

// These need the lane to redact every outcome (redactOutcome) and the cache (redactingCache).
describe("a key repeated in a model's successful answer", () => {
  it("chain-determinism: rationale and tool arguments", async () => {
    const model = await fakeScenario(
      {
        echo_key: true,
        faults: [
          { on: { turn: 0 }, respond: { arguments: '{"term": "{{key_json}}", "n": 1.0}' } },
          { on: { turn: 1 }, respond: { content: "Done with {{key}}; also {{key_head}}\n{{key_tail}}" } },
        ],
      },
      "redact",
    );
    const { run, all } = await cdRun(model);
    expect(run.status).toBe("succeeded");
    // Both replays redacted alike: one sequence, no divergence.
    expect(run.result.per_query[0].n_unique_sequences).toBe(1);
    expect(leaks(all, KEY)).toBe(false);
    expect(all).toContain("[REDACTED]");
  });

  it("rpl: the reply's text and the parsed answer, in the samples and the tenant's cache", async () => {
    const { key, tenantId } = await newTenant();
    const model = await fakeScenario(
      {
        echo_key: true,
        text: '{"prob_true": 0.6, "note": "{{key_json}}"}',
        faults: [{ on: { nth: 1 }, respond: { content: "No JSON here, only {{key}}" } }],
      },
      "redact",
    );
    const created = await send("POST", "/v1/rpl/runs", key, {
      claim: "Water is wet.",
      model,
      provider: provider(),
      K: 4,
      R: 1,
      B: 200,
      concurrency: 1,
    });
    expect(created.status).toBe(202);
    const run = await waitForRun(key, ((await created.json()) as RunJson).id, 40_000);
    expect(run.status).toBe("succeeded");
    expect(run.result.aggregates.prob_true_rpl).toBeCloseTo(0.6, 10);
    expect(leaks(await everything(key, tenantId, run), KEY)).toBe(false);
  });

  it("judge: a critic's reasoning and raw response, with the critic's own key", async () => {
    const { key, tenantId } = await newTenant();
    const model = await fakeScenario(
      { echo_key: true, text: '{"kind": "KEEP", "confidence": 0.9, "reasoning": "my key is {{key_json}}"}' },
      "redact",
    );
    const created = await send("POST", "/v1/judge/runs", key, {
      items: [{ id: "a", query: "Is water wet?" }],
      critics: [{ name: "leaky", model, provider: provider(CRITIC_KEY) }],
    });
    expect(created.status).toBe(202);
    const run = await waitForRun(key, ((await created.json()) as RunJson).id, 40_000);
    expect(run.result.items[0].consensus).toBe("KEEP");
    expect(leaks(await everything(key, tenantId, run), CRITIC_KEY)).toBe(false);
  });

  it("reasoning-quality: the answer's text", async () => {
    const { key, tenantId } = await newTenant();
    const model = await fakeScenario(
      { echo_key: true, text: "Step 1: my key is {{key}}. Step 2: so the answer is 4." },
      "redact",
    );
    const created = await startRq(key, {
      models: [{ name: "leaky", model, provider: provider() }],
      datasets: [{ synthetic: { num_reasoning: 1, num_adversarial: 0, num_robustness: 0 } }],
      K: 1,
      P: 0,
    });
    const run = await waitForRun(key, created.id, 40_000);
    expect(run.status).toBe("succeeded");
    expect(leaks(await everything(key, tenantId, run), KEY)).toBe(false);
  });
});
