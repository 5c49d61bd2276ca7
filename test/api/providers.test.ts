// Issue 17, "Saved provider connections": a tenant saves {name, base_url, api_key} once at /v1/providers,
// the key encrypted and never shown, and runs of every evaluator name the connection instead of sending
// the key; the run copies the endpoint and key when it is created, so replacing or deleting the
// connection later leaves it as it was.
import { describe, expect, it, vi } from "vitest";
import { env } from "cloudflare:workers";
import { createExecutionContext, waitOnExecutionContext } from "cloudflare:test";
import worker from "../../src/index.ts";
import { decryptSecret } from "../../src/secrets.ts";
import { LIMITS } from "../../src/limits.ts";
import { recordedRequests, releaseScenario, scenarioStats, type Scenario } from "../support/fake-openai.ts";
import { LOOPBACK_REFUSED } from "../support/destination-cases.ts";
import { fakeScenario, newTenant, problem, send, waitForRun, WAIT, type RunJson } from "./helpers.ts";

type Connection = {
  id: string;
  name: string;
  base_url: string;
  has_api_key: boolean;
  api_key_last4: string | null;
  created_at: string;
  updated_at: string;
};

/** Keys of 16 characters or more show their last four; each test's keys end differently, so a request tells which one it carried. */
const KEY = "sk-saved-0123456789abcdef-key-wxyz";
const OTHER_KEY = "sk-other-fedcba9876543210-key-qrst";

const fake = (s: Omit<Scenario, "id">) => fakeScenario(s, "prv");

/**
 * Every response body a test received, so it can say at the end that none holds the key. A key is
 * found in any 8 characters of it in a row: more than the last four the API shows, and less than any
 * part worth leaking.
 */
function recorder() {
  const seen: string[] = [];
  const api = async (method: string, path: string, token: string, body?: unknown) => {
    const res = await send(method, path, token, body);
    const text = await res.text();
    seen.push(text);
    return { status: res.status, text, json: () => JSON.parse(text) };
  };
  return { api, seen };
}

function leaks(text: string, key: string): boolean {
  for (let i = 0; i + 8 <= key.length; i++) if (text.includes(key.slice(i, i + 8))) return true;
  return false;
}

/** A JSON POST through the Worker's fetch handler with another env (the production setting). */
async function postWith(withEnv: Env, path: string, key: string, body: unknown): Promise<Response> {
  const ctx = createExecutionContext();
  const res = await worker.fetch(
    new Request(`http://assay.test${path}`, {
      method: "POST",
      headers: { Authorization: `Bearer ${key}`, "Content-Type": "application/json" },
      body: JSON.stringify(body),
    }),
    withEnv,
    ctx,
  );
  await waitOnExecutionContext(ctx);
  return res;
}
const production = { ...env, ALLOW_LOOPBACK_DESTINATIONS: undefined } as unknown as Env;

/** Saves a connection to the fake endpoint (asserting 201); `api_key` null saves none. */
async function save(
  token: string,
  name: string,
  api_key: string | null = KEY,
  base_url = env.FAKE_OPENAI_URL,
): Promise<Connection> {
  const res = await send("POST", "/v1/providers", token, { name, base_url, ...(api_key === null ? {} : { api_key }) });
  const text = await res.text();
  if (res.status !== 201) throw new Error(`save: ${res.status} ${text}`);
  return JSON.parse(text) as Connection;
}

async function startRunAt(token: string, path: string, body: unknown): Promise<RunJson> {
  const res = await send("POST", path, token, body);
  const text = await res.text();
  if (res.status !== 202) throw new Error(`run: ${res.status} ${text}`);
  return JSON.parse(text) as RunJson;
}

/** The Authorization header of every request the scenario received, as the fake endpoint records it ("***" + last four). */
async function bearers(model: string): Promise<string[]> {
  return (await recordedRequests(env.FAKE_OPENAI_URL, model)).map((r) => r.headers.authorization);
}

describe("POST /v1/providers", () => {
  it("saves a connection and answers it without its key", async () => {
    const { key, tenantId } = await newTenant();
    const { api, seen } = recorder();
    const created = await api("POST", "/v1/providers", key, {
      name: "openrouter",
      base_url: "https://openrouter.ai/api/v1",
      api_key: KEY,
    });
    expect(created.status).toBe(201);
    const c = created.json() as Connection;
    expect(c).toEqual({
      id: expect.stringMatching(/^prv_/),
      name: "openrouter",
      base_url: "https://openrouter.ai/api/v1",
      has_api_key: true,
      api_key_last4: "wxyz",
      created_at: expect.any(String),
      updated_at: c.created_at,
    });
    // The D1 row holds the key only as AES-GCM ciphertext, which decrypts to it under SECRETS_KEY.
    const { results } = await env.DB.prepare("SELECT * FROM provider_connections WHERE tenant_id = ?")
      .bind(tenantId)
      .all<Record<string, unknown>>();
    expect(results).toHaveLength(1);
    expect(leaks(JSON.stringify(results), KEY)).toBe(false);
    expect(await decryptSecret(env.SECRETS_KEY, results[0].api_key_enc as string)).toBe(KEY);
    expect(results[0].api_key_last4).toBe("wxyz");
    await api("GET", "/v1/providers", key);
    await api("GET", "/v1/providers/openrouter", key);
    expect(seen.some((t) => leaks(t, KEY))).toBe(false);
  });

  it("shows no last four characters of a short key, and saves a connection without a key", async () => {
    const { key } = await newTenant();
    const short = await save(key, "short", "sk-12345678");
    expect(short).toMatchObject({ has_api_key: true, api_key_last4: null });
    const keyless = await save(key, "local", null);
    expect(keyless).toMatchObject({ has_api_key: false, api_key_last4: null });
  });

  it("a name the tenant already saved is a 409 problem, and the saved key stays", async () => {
    const { key, tenantId } = await newTenant();
    await save(key, "dup");
    const p = await problem(
      await send("POST", "/v1/providers", key, {
        name: "dup",
        base_url: "https://api.example.com/v1",
        api_key: OTHER_KEY,
      }),
      409,
    );
    expect(p.type).toBe("/problems/conflict");
    expect(p.detail).toContain("'dup'");
    expect(JSON.stringify(p)).not.toContain(OTHER_KEY.slice(3, 15));
    const row = await env.DB.prepare("SELECT base_url, api_key_enc FROM provider_connections WHERE tenant_id = ?")
      .bind(tenantId)
      .first<{ base_url: string; api_key_enc: string }>();
    expect(row?.base_url).toBe(env.FAKE_OPENAI_URL);
    expect(await decryptSecret(env.SECRETS_KEY, row!.api_key_enc)).toBe(KEY);
  });

  it.each([
    [{ base_url: "not a url" }, "base_url", /./],
    [{ base_url: "ftp://api.example.com/v1" }, "base_url", /./],
    [{ base_url: "http://10.0.0.1:8000/v1" }, "base_url", /^private address 10\.0\.0\.1 is not allowed$/],
    [{ base_url: "http://169.254.169.254/latest" }, "base_url", /^metadata address 169\.254\.169\.254 is not allowed$/],
    [{ base_url: "https://api.example.com/v1?api_key=sk-in-the-url" }, "base_url", /credentials in its query string/],
    [{ api_key: "sk-or-v1-…" }, "api_key", /printable ASCII/],
    [{ api_key: "sk key with spaces" }, "api_key", /printable ASCII/],
    [{ api_key: "sk-1234" }, "api_key", /at least 8 characters/],
    [{ name: "has space" }, "name", /letters, digits/],
    [{ name: "../etc" }, "name", /letters, digits/],
    [{ name: "" }, "name", /./],
    [{ extra: true }, "extra", /unknown field/],
  ])("%j is a 400 naming %s, echoing no key", async (change, path, message) => {
    const { key } = await newTenant();
    const body = { name: "n", base_url: "https://api.example.com/v1", api_key: KEY, ...change };
    const p = await problem(await send("POST", "/v1/providers", key, body), 400);
    expect(new Set(p.errors?.map((e) => e.path))).toEqual(new Set([path]));
    expect(p.errors?.[0].message).toMatch(message);
    expect(leaks(JSON.stringify(p), KEY)).toBe(false);
    if ("api_key" in change) expect(JSON.stringify(p)).not.toContain(JSON.stringify(change.api_key).slice(1, -1));
    expect((await send("GET", "/v1/providers", key).then((r) => r.json())) as { data: unknown[] }).toMatchObject({
      data: [],
    });
  });

  it("under the production setting, refuses a loopback base_url, naming it", async () => {
    const { key } = await newTenant();
    for (const base_url of [env.FAKE_OPENAI_URL, "http://localhost:8000/v1", "http://[::1]/v1"]) {
      const p = await problem(
        await postWith(production, "/v1/providers", key, { name: "local", base_url, api_key: KEY }),
        400,
      );
      expect(p.errors, base_url).toEqual([{ path: "base_url", message: LOOPBACK_REFUSED }]);
    }
  });

  it(`keeps at most ${LIMITS.providerConnectionsPerTenant} connections per tenant: past it, a 422; a replacement still goes`, async () => {
    const { key, tenantId } = await newTenant();
    const now = Date.now();
    await env.DB.batch(
      Array.from({ length: LIMITS.providerConnectionsPerTenant }, (_, i) =>
        env.DB.prepare(
          "INSERT INTO provider_connections (id, tenant_id, name, base_url, created_at, updated_at) VALUES (?, ?, ?, ?, ?, ?)",
        ).bind(
          `prv_limit${String(i).padStart(4, "0")}${tenantId}`,
          tenantId,
          `c${i}`,
          "https://api.example.com/v1",
          now,
          now,
        ),
      ),
    );
    const p = await problem(
      await send("POST", "/v1/providers", key, { name: "one-more", base_url: "https://api.example.com/v1" }),
      422,
    );
    expect(p.type).toBe("/problems/limit-exceeded");
    await problem(await send("PUT", "/v1/providers/one-more", key, { base_url: "https://api.example.com/v1" }), 422);
    expect(
      (await send("PUT", "/v1/providers/c7", key, { base_url: "https://api.example.org/v1", api_key: KEY })).status,
    ).toBe(200);
  });
});

describe("GET /v1/providers", () => {
  it("lists the tenant's connections newest first, a page at a time, and only the tenant's", async () => {
    const a = await newTenant();
    const b = await newTenant();
    const { api, seen } = recorder();
    for (const name of ["first", "second", "third"]) await save(a.key, name);
    await save(b.key, "theirs", OTHER_KEY);
    const page1 = (await api("GET", "/v1/providers?limit=2", a.key)).json();
    expect(page1.data.map((c: Connection) => c.name)).toEqual(["third", "second"]);
    expect(page1.has_more).toBe(true);
    const page2 = (await api("GET", `/v1/providers?limit=2&after=${page1.next_cursor}`, a.key)).json();
    expect(page2).toMatchObject({ has_more: false, next_cursor: null });
    expect(page2.data.map((c: Connection) => c.name)).toEqual(["first"]);
    expect((await api("GET", "/v1/providers", b.key)).json().data.map((c: Connection) => c.name)).toEqual(["theirs"]);
    expect(seen.some((t) => leaks(t, KEY) || leaks(t, OTHER_KEY))).toBe(false);
  });

  it("another tenant's connection is a 404 to read, replace and delete, and theirs stays as it was", async () => {
    const a = await newTenant();
    const b = await newTenant();
    await save(a.key, "shared-name");
    await problem(await send("GET", "/v1/providers/shared-name", b.key), 404);
    await problem(await send("DELETE", "/v1/providers/shared-name", b.key), 404);
    // A PUT by the other tenant makes its own connection of that name, never touching a's.
    expect(
      (
        await send("PUT", "/v1/providers/shared-name", b.key, {
          base_url: "https://api.example.com/v1",
          api_key: OTHER_KEY,
        })
      ).status,
    ).toBe(201);
    const mine = (await (await send("GET", "/v1/providers/shared-name", a.key)).json()) as Connection;
    expect(mine).toMatchObject({ base_url: env.FAKE_OPENAI_URL, api_key_last4: "wxyz" });
    await problem(await send("GET", "/v1/providers/nothing-here", a.key), 404);
    await problem(await send("GET", "/v1/providers", undefined), 401);
  });
});

describe("PUT /v1/providers/{name}", () => {
  it("replaces the endpoint and key (200, same id), or creates the connection (201)", async () => {
    const { key, tenantId } = await newTenant();
    const before = await save(key, "rotate");
    const res = await send("PUT", "/v1/providers/rotate", key, {
      base_url: "https://api.example.org/v1",
      api_key: OTHER_KEY,
    });
    expect(res.status).toBe(200);
    const after = (await res.json()) as Connection;
    expect(after).toMatchObject({
      id: before.id,
      name: "rotate",
      base_url: "https://api.example.org/v1",
      api_key_last4: "qrst",
      created_at: before.created_at,
    });
    expect(Date.parse(after.updated_at)).toBeGreaterThanOrEqual(Date.parse(before.updated_at));
    const row = await env.DB.prepare("SELECT api_key_enc FROM provider_connections WHERE tenant_id = ?")
      .bind(tenantId)
      .first<{ api_key_enc: string }>();
    expect(await decryptSecret(env.SECRETS_KEY, row!.api_key_enc)).toBe(OTHER_KEY);
    // Without api_key, the replacement keeps none (PUT replaces the whole connection).
    const keyless = (await (
      await send("PUT", "/v1/providers/rotate", key, { base_url: "https://api.example.org/v1" })
    ).json()) as Connection;
    expect(keyless).toMatchObject({ has_api_key: false, api_key_last4: null });
    const created = await send("PUT", "/v1/providers/brand-new", key, {
      base_url: "https://api.example.com/v1",
      api_key: KEY,
    });
    expect(created.status).toBe(201);
    const p = await problem(
      await send("PUT", "/v1/providers/brand-new", key, { base_url: "http://192.168.1.1/v1", api_key: KEY }),
      400,
    );
    expect(p.errors).toEqual([{ path: "base_url", message: "private address 192.168.1.1 is not allowed" }]);
  });
});

describe("DELETE /v1/providers/{name}", () => {
  it("deletes the connection with its key; a second delete is a 404", async () => {
    const { key, tenantId } = await newTenant();
    await save(key, "gone");
    const res = await send("DELETE", "/v1/providers/gone", key);
    expect(res.status).toBe(204);
    await problem(await send("GET", "/v1/providers/gone", key), 404);
    await problem(await send("DELETE", "/v1/providers/gone", key), 404);
    const row = await env.DB.prepare("SELECT count(*) AS n FROM provider_connections WHERE tenant_id = ?")
      .bind(tenantId)
      .first<{ n: number }>();
    expect(row?.n).toBe(0);
  });
});

/** Each evaluator's smallest run against `model` with `provider`, and where its config shows the endpoint. */
const EVALUATORS: [
  string,
  string,
  Omit<Scenario, "id">,
  (model: string, provider: unknown) => unknown,
  (config: any) => unknown,
][] = [
  [
    "chain-determinism",
    "/v1/chain-determinism/runs",
    { agent: { calls: 1 } },
    (model, provider) => ({ model, provider, n_queries: 1, n_replays: 2, min_success: 2 }),
    (c) => c.provider,
  ],
  [
    "rpl",
    "/v1/rpl/runs",
    {
      text: JSON.stringify({
        prob_true: 0.7,
        confidence_self: 0.6,
        assumptions: [],
        reasoning_bullets: ["a", "b", "c"],
        contrary_considerations: ["x", "y"],
        ambiguity_flags: [],
      }),
    },
    (model, provider) => ({
      claim: "Tariffs raise consumer prices.",
      model,
      provider,
      K: 4,
      R: 1,
      B: 200,
      no_cache: true,
    }),
    (c) => c.provider,
  ],
  [
    "judge",
    "/v1/judge/runs",
    { text: JSON.stringify({ kind: "KEEP", confidence: 0.9, reasoning: "fine" }) },
    (model, provider) => ({ items: [{ id: "a", query: "q" }], critics: [{ name: "c", model, provider }] }),
    (c) => ({ base_url: c.critics[0].base_url, connection: c.critics[0].connection }),
  ],
  [
    "reasoning-quality",
    "/v1/reasoning-quality/runs",
    { text: "Two and two make four. So the answer is 4." },
    (model, provider) => ({
      models: [{ name: "m", model, provider }],
      datasets: [{ synthetic: { num_reasoning: 1, num_adversarial: 0, num_robustness: 0 } }],
      K: 1,
      P: 0,
    }),
    (c) => ({ base_url: c.models[0].base_url, connection: c.models[0].connection }),
  ],
];

describe("runs that name a saved connection", () => {
  it.each(EVALUATORS)(
    "%s: calls the saved endpoint with the saved key, and its config names the connection",
    async (_name, path, scenario, body, endpointOf) => {
      const { key } = await newTenant();
      await save(key, "fake");
      const model = await fake(scenario);
      const created = await startRunAt(key, path, body(model, { connection: "fake" }));
      expect(endpointOf(created.config)).toEqual({ base_url: env.FAKE_OPENAI_URL, connection: "fake" });
      const run = await waitForRun(key, created.id);
      expect(run.status).toBe("succeeded");
      const auth = await bearers(model);
      expect(auth.length).toBeGreaterThan(0);
      expect(new Set(auth)).toEqual(new Set(["***wxyz"]));
      const row = await env.DB.prepare("SELECT * FROM runs WHERE id = ?").bind(run.id).first();
      expect(leaks(JSON.stringify([created, run, row]), KEY)).toBe(false);
    },
  );

  it.each([
    [
      "chain-determinism",
      "provider.connection",
      "/v1/chain-determinism/runs",
      { model: "m", provider: { connection: "missing" } },
    ],
    ["rpl", "provider.connection", "/v1/rpl/runs", { claim: "c", model: "m", provider: { connection: "missing" } }],
    [
      "judge",
      "critics.1.provider.connection",
      "/v1/judge/runs",
      {
        items: [{ id: "a", query: "q" }],
        critics: [
          { name: "x", model: "m", provider: { base_url: "https://api.example.com/v1" } },
          { name: "y", model: "m", provider: { connection: "missing" } },
        ],
      },
    ],
    [
      "reasoning-quality",
      "models.0.provider.connection",
      "/v1/reasoning-quality/runs",
      { models: [{ model: "m", provider: { connection: "missing" } }], datasets: [{ synthetic: {} }] },
    ],
    [
      "reasoning-quality",
      "ls.provider.connection",
      "/v1/reasoning-quality/runs",
      {
        models: [{ model: "sim:r" }],
        datasets: [{ synthetic: {} }],
        ls: { method: "model", model: "c", provider: { connection: "missing" } },
      },
    ],
    [
      "reasoning-quality",
      "ss.provider.connection",
      "/v1/reasoning-quality/runs",
      {
        models: [{ model: "sim:r" }],
        datasets: [{ synthetic: {} }],
        ss: { method: "embeddings", model: "e", provider: { connection: "missing" } },
      },
    ],
  ])("%s: an unknown connection is a 400 naming %s, and no run is made", async (_name, field, path, body) => {
    const { key } = await newTenant();
    const p = await problem(await send("POST", path, key, body), 400);
    expect(p.errors).toEqual([
      { path: field, message: "no saved connection 'missing' for this tenant (see GET /v1/providers)" },
    ]);
    expect(((await (await send("GET", "/v1/runs", key)).json()) as { data: unknown[] }).data).toEqual([]);
  });

  it("another tenant's connection is unknown to a run", async () => {
    const a = await newTenant();
    const b = await newTenant();
    await save(a.key, "private-one");
    const p = await problem(
      await send("POST", "/v1/chain-determinism/runs", b.key, { model: "m", provider: { connection: "private-one" } }),
      400,
    );
    expect(p.errors?.map((e) => e.path)).toEqual(["provider.connection"]);
  });

  it("a connection given with base_url or api_key, or a judge critic's vendor, is a 400 naming the field", async () => {
    const { key } = await newTenant();
    await save(key, "fake");
    const both = await problem(
      await send("POST", "/v1/chain-determinism/runs", key, {
        model: "m",
        provider: { connection: "fake", api_key: OTHER_KEY },
      }),
      400,
    );
    expect(both.errors).toEqual([
      {
        path: "provider.connection",
        message: "give either a connection or api_key, not both: the connection holds its own",
      },
    ]);
    expect(leaks(JSON.stringify(both), OTHER_KEY)).toBe(false);
    const vendor = await problem(
      await send("POST", "/v1/judge/runs", key, {
        items: [{ id: "a", query: "q" }],
        critics: [{ name: "x", model: "m", vendor: "openrouter", provider: { connection: "fake" } }],
      }),
      400,
    );
    expect(vendor.errors).toEqual([
      { path: "critics.0.vendor", message: "give either a vendor or provider.connection, not both" },
    ]);
    const noUrl = await problem(
      await send("POST", "/v1/chain-determinism/runs", key, { model: "m", provider: { api_key: OTHER_KEY } }),
      400,
    );
    expect(noUrl.errors).toEqual([
      { path: "provider.base_url", message: "required unless provider.connection names a saved connection" },
    ]);
  });

  it("under the production setting, a saved loopback endpoint is refused at run creation, naming the connection", async () => {
    const { key } = await newTenant();
    await save(key, "local");
    const p = await problem(
      await postWith(production, "/v1/chain-determinism/runs", key, { model: "m", provider: { connection: "local" } }),
      400,
    );
    expect(p.errors).toEqual([
      { path: "provider.connection", message: `its base_url is refused: ${LOOPBACK_REFUSED}` },
    ]);
  });

  it("a saved key that no longer decrypts (SECRETS_KEY rotated) is a 400 saying to save it again", async () => {
    const { key, tenantId } = await newTenant();
    await save(key, "stale");
    // What a row saved under another SECRETS_KEY looks like to this one: a 12-byte IV and a ciphertext it cannot authenticate.
    await env.DB.prepare("UPDATE provider_connections SET api_key_enc = ? WHERE tenant_id = ?")
      .bind(btoa("x".repeat(12 + 40)), tenantId)
      .run();
    const p = await problem(
      await send("POST", "/v1/chain-determinism/runs", key, { model: "m", provider: { connection: "stale" } }),
      400,
    );
    expect(p.errors).toEqual([
      {
        path: "provider.connection",
        message:
          "its saved key cannot be decrypted (SECRETS_KEY changed since it was saved): save it again with PUT /v1/providers/stale",
      },
    ]);
  });

  it("reasoning-quality: the models and each backend take their own connection", async () => {
    const { key } = await newTenant();
    await save(key, "gen");
    await save(key, "backends", OTHER_KEY);
    const gen = await fake({ text: "The sky is blue. The sky is not blue. So the answer is 4." });
    const checker = await fake({ text: '{"labels": ["contradiction", "neutral"]}' });
    const embedder = await fake({ embedding: [1, 2, 3] });
    const run = await waitForRun(
      key,
      (
        await startRunAt(key, "/v1/reasoning-quality/runs", {
          models: [{ name: "m", model: gen, provider: { connection: "gen" } }],
          datasets: [{ synthetic: { num_reasoning: 2, num_adversarial: 0, num_robustness: 0 } }],
          K: 2,
          P: 0,
          ls: { method: "model", model: checker, provider: { connection: "backends" } },
          ss: { method: "embeddings", model: embedder, provider: { connection: "backends" } },
        })
      ).id,
      90_000,
    );
    expect(run.status).toBe("succeeded");
    expect(run.config.ls).toMatchObject({ base_url: env.FAKE_OPENAI_URL, connection: "backends" });
    expect(run.config.ss).toMatchObject({ base_url: env.FAKE_OPENAI_URL, connection: "backends" });
    expect(run.result.models[0].extensions).toMatchObject({ ls_method: "model", ss_method: "embeddings" });
    expect(new Set(await bearers(gen))).toEqual(new Set(["***wxyz"]));
    expect(new Set(await bearers(checker))).toEqual(new Set(["***qrst"]));
    expect(new Set(await bearers(embedder))).toEqual(new Set(["***qrst"]));
  }, 120_000);
});

describe("a run keeps the endpoint and key it was created with", () => {
  /** A chain-determinism run of one query, 3 replays one at a time, whose first request is held by the fake endpoint. */
  async function heldRun(token: string) {
    const model = await fake({ agent: { calls: 1 }, hold_after: 0 });
    const run = await startRunAt(token, "/v1/chain-determinism/runs", {
      model,
      provider: { connection: "fake" },
      n_queries: 1,
      n_replays: 3,
      min_success: 2,
      concurrency: 1,
    });
    await vi.waitFor(async () => expect((await scenarioStats(env.FAKE_OPENAI_URL, model)).held).toBe(1), WAIT);
    return { model, run };
  }

  it("deleting its connection while it runs does not break it", async () => {
    const { key } = await newTenant();
    await save(key, "fake");
    const { model, run } = await heldRun(key);
    expect((await send("DELETE", "/v1/providers/fake", key)).status).toBe(204);
    await releaseScenario(env.FAKE_OPENAI_URL, model);
    const ended = await waitForRun(key, run.id);
    expect(ended.status).toBe("succeeded");
    expect(ended.progress).toEqual({ done: 3, failed: 0, total: 3 });
    // One replay at a time: the two replays after the first started after the delete, with the saved key.
    const auth = await bearers(model);
    expect(auth.length).toBeGreaterThanOrEqual(6);
    expect(new Set(auth)).toEqual(new Set(["***wxyz"]));
    expect(ended.config.provider).toEqual({ base_url: env.FAKE_OPENAI_URL, connection: "fake" });
    // Later runs naming it are refused.
    const p = await problem(
      await send("POST", "/v1/chain-determinism/runs", key, { model, provider: { connection: "fake" } }),
      400,
    );
    expect(p.errors?.map((e) => e.path)).toEqual(["provider.connection"]);
  });

  it("replacing its key while it runs changes the key of later runs only", async () => {
    const { key } = await newTenant();
    await save(key, "fake");
    const { model, run } = await heldRun(key);
    expect(
      (await send("PUT", "/v1/providers/fake", key, { base_url: env.FAKE_OPENAI_URL, api_key: OTHER_KEY })).status,
    ).toBe(200);
    await releaseScenario(env.FAKE_OPENAI_URL, model);
    expect((await waitForRun(key, run.id)).status).toBe("succeeded");
    expect(new Set(await bearers(model))).toEqual(new Set(["***wxyz"]));
    const later = await fake({ agent: { calls: 1 } });
    const next = await waitForRun(
      key,
      (
        await startRunAt(key, "/v1/chain-determinism/runs", {
          model: later,
          provider: { connection: "fake" },
          n_queries: 1,
          n_replays: 2,
          min_success: 2,
        })
      ).id,
    );
    expect(next.status).toBe("succeeded");
    expect(new Set(await bearers(later))).toEqual(new Set(["***qrst"]));
  });
});
