// Issue 14, item 4: webhook_url and provider.base_url never name a private, link-local, metadata,
// unspecified or (outside local development) loopback destination, in any spelling, nor carry
// credentials (item 5). Everything here is refused before any request: no URL below is ever fetched.
import { describe, expect, it } from "vitest";
import { env } from "cloudflare:workers";
import { createExecutionContext, waitOnExecutionContext } from "cloudflare:test";
import worker from "../../src/index.ts";
import { destinationProblem, endpointPolicy } from "../../src/net/destination.ts";
import { createOpenAIClient } from "../../src/providers/openai.ts";
import { fakeScenario, newTenant, problem, send, type ProblemJson } from "./helpers.ts";
import { scenarioStats } from "../support/fake-openai.ts";
import { LOOPBACK_REFUSED, LOOPBACK_SPELLINGS, REFUSED_HOSTS, REFUSED_TEXT } from "../support/destination-cases.ts";

/** The production setting: ALLOW_LOOPBACK_DESTINATIONS unset, as wrangler.jsonc deploys it. */
const production = { ...env, ALLOW_LOOPBACK_DESTINATIONS: undefined } as unknown as Env;

/** A JSON POST through the Worker's own fetch handler with the given env (the tests' own, by default). */
async function post(path: string, key: string, body: unknown, withEnv: Env = env): Promise<Response> {
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

const errorsOf = async (res: Response): Promise<ProblemJson["errors"]> => (await problem(res, 400)).errors;

describe("workerd reads every spelling as Node does", () => {
  it.each(LOOPBACK_SPELLINGS)("%s is loopback", (url) => {
    expect(destinationProblem(url, endpointPolicy(false))).toBe(LOOPBACK_REFUSED);
    expect(destinationProblem(url, endpointPolicy(true))).toBeNull();
  });
  it.each([...REFUSED_HOSTS, ...REFUSED_TEXT])("%j → %s", (url, message) => {
    expect(destinationProblem(url, endpointPolicy(true))).toBe(message);
  });
});

describe("POST /v1/chain-determinism/runs", () => {
  it.each([
    ["http://169.254.169.254/latest/meta-data", "metadata address 169.254.169.254 is not allowed"],
    ["http://0xa9fea9fe/latest/meta-data", "metadata address 169.254.169.254 is not allowed"],
    ["http://[::ffff:169.254.169.254]/", "metadata address ::ffff:a9fe:a9fe (169.254.169.254) is not allowed"],
    ["http://10.0.0.1:8000/v1", "private address 10.0.0.1 is not allowed"],
    ["http://0.0.0.0:8787/v1", "unspecified address 0.0.0.0 is not allowed"],
    ["http://metadata.google.internal/computeMetadata/v1", "metadata host metadata.google.internal is not allowed"],
    ["http://user:secret@api.example.com/v1", "must not contain credentials"],
    ["https://api.example.com/v1?api_key=sk-live-123", "must not carry credentials in its query string (api_key)"],
  ])("refuses provider.base_url %s, naming the field", async (base_url, message) => {
    const { key } = await newTenant();
    const res = await post("/v1/chain-determinism/runs", key, {
      model: "m",
      provider: { base_url, api_key: "sk-test-key" },
    });
    expect(await errorsOf(res)).toEqual([{ path: "provider.base_url", message }]);
  });

  it.each([
    ["https://10.0.0.1/hook", "private address 10.0.0.1 is not allowed"],
    ["https://192.168.1.10/hook", "private address 192.168.1.10 is not allowed"],
    ["https://169.254.169.254/latest", "metadata address 169.254.169.254 is not allowed"],
    ["https://[fd00::1]/", "private address fd00::1 is not allowed"],
    ["https://metadata.google.internal/", "metadata host metadata.google.internal is not allowed"],
    ["https://0.0.0.0/", "unspecified address 0.0.0.0 is not allowed"],
    ["https://0/", "unspecified address 0.0.0.0 is not allowed"],
    ["https://[::]/", "unspecified address :: is not allowed"],
    ["gopher://127.0.0.1:25/x", "must use https"],
    ["https://user:pw@hooks.example.com/h", "must not contain credentials"],
    ["https://hooks.example.com/h?token=abc", "must not carry credentials in its query string (token)"],
  ])("refuses webhook_url %s, naming the field", async (webhook_url, message) => {
    const { key } = await newTenant();
    await send("POST", "/v1/webhooks/secret", key);
    const res = await post("/v1/chain-determinism/runs", key, { model: "sim:agent", webhook_url });
    expect(await errorsOf(res)).toEqual([{ path: "webhook_url", message }]);
  });

  it("under the production setting, refuses a loopback webhook_url in every spelling", async () => {
    const { key } = await newTenant();
    await send("POST", "/v1/webhooks/secret", key);
    for (const spelling of [
      "https://[::ffff:127.0.0.1]/",
      "https://2130706433/",
      "https://localhost./",
      env.WEBHOOK_RECEIVER_URL + "/hooks/x",
    ]) {
      const res = await post(
        "/v1/chain-determinism/runs",
        key,
        { model: "sim:agent", webhook_url: spelling },
        production,
      );
      expect(await errorsOf(res), spelling).toEqual([{ path: "webhook_url", message: LOOPBACK_REFUSED }]);
    }
  });
});

describe("POST /v1/judge/runs", () => {
  const critic = (name: string, base_url: string) => ({ name, model: "m", provider: { base_url } });
  const items = [{ id: "q1", query: "q" }];

  it("names the critic whose base_url is refused", async () => {
    const { key } = await newTenant();
    const res = await post("/v1/judge/runs", key, {
      items,
      critics: [critic("a", "https://api.example.com/v1"), critic("b", "http://[fe80::1]/v1")],
    });
    expect(await errorsOf(res)).toEqual([
      { path: "critics.1.provider.base_url", message: "link-local address fe80::1 is not allowed" },
    ]);
  });

  it("under the production setting, refuses a loopback endpoint (the API's own port, the inspector's)", async () => {
    const { key } = await newTenant();
    const res = await post(
      "/v1/judge/runs",
      key,
      {
        items,
        critics: [critic("api", "http://127.0.0.1:8787/v1"), critic("inspector", "http://localhost:9229/json")],
      },
      production,
    );
    expect(await errorsOf(res)).toEqual([
      { path: "critics.0.provider.base_url", message: LOOPBACK_REFUSED },
      { path: "critics.1.provider.base_url", message: LOOPBACK_REFUSED },
    ]);
  });
});

describe("POST /v1/reasoning-quality/runs", () => {
  const datasets = [{ synthetic: { num_reasoning: 1, num_adversarial: 0, num_robustness: 0 } }];

  it("names the model's and the backends' refused base_url", async () => {
    const { key } = await newTenant();
    const res = await post("/v1/reasoning-quality/runs", key, {
      models: [{ model: "m", provider: { base_url: "http://100.100.100.200/v1" } }],
      datasets,
      ls: { method: "model", model: "c", provider: { base_url: "http://[::ffff:10.1.2.3]/v1" } },
      ss: { method: "embeddings", model: "e", provider: { base_url: "http://192.168.0.5/v1" } },
    });
    const errors = await errorsOf(res);
    expect(errors).toEqual(
      expect.arrayContaining([
        { path: "models.0.provider.base_url", message: "metadata address 100.100.100.200 is not allowed" },
        { path: "ls.provider.base_url", message: "private address ::ffff:a01:203 (10.1.2.3) is not allowed" },
        { path: "ss.provider.base_url", message: "private address 192.168.0.5 is not allowed" },
      ]),
    );
    expect(errors).toHaveLength(3);
  });

  it("under the production setting, refuses loopback endpoints for the models and both backends", async () => {
    const { key } = await newTenant();
    const res = await post(
      "/v1/reasoning-quality/runs",
      key,
      {
        models: [{ model: "m", provider: { base_url: env.FAKE_OPENAI_URL } }],
        datasets,
        ls: { method: "model", model: "c", provider: { base_url: "http://[::1]:8000/v1" } },
        ss: { method: "embeddings", model: "e", provider: { base_url: "http://api.localhost/v1" } },
      },
      production,
    );
    expect(await errorsOf(res)).toEqual([
      { path: "models.0.provider.base_url", message: LOOPBACK_REFUSED },
      { path: "ls.provider.base_url", message: LOOPBACK_REFUSED },
      { path: "ss.provider.base_url", message: LOOPBACK_REFUSED },
    ]);
  });
});

describe("a model call under the production setting", () => {
  it("is not sent to a loopback endpoint", async () => {
    const scenario = await fakeScenario({ text: "ok" }, "dest");
    const chat = createOpenAIClient({ baseURL: env.FAKE_OPENAI_URL, allowLoopback: false, maxRetries: 0 });
    const err = await chat.chat({ model: scenario, messages: [{ role: "user", content: "hi" }] }).then(
      () => null,
      (e: unknown) => e,
    );
    expect(err).toMatchObject({ name: "APIConnectionError", kind: "bad_request" });
    expect((err as Error).message).toContain(LOOPBACK_REFUSED);
    expect((await scenarioStats(env.FAKE_OPENAI_URL, scenario)).received).toBe(0);
  });
});
