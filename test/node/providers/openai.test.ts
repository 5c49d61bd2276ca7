import { createServer } from "node:net";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import fc from "fast-check";
import { createOpenAIClient, createOpenAIEmbeddingClient, requestJson } from "../../../src/providers/openai.ts";
import type { OpenAIClientOptions } from "../../../src/providers/openai.ts";
import { ProviderError } from "../../../src/providers/types.ts";
import type { ChatRequest, ToolDefinition } from "../../../src/providers/types.ts";
import { recordedRequests, registerScenario, startFakeOpenAI } from "../../support/fake-openai.ts";
import type { FakeOpenAI, Scenario } from "../../support/fake-openai.ts";

const API_KEY = "sk-test-0123456789abcdefSECRET";

let fake: FakeOpenAI;
beforeAll(async () => {
  fake = await startFakeOpenAI();
});
afterAll(() => fake.close());

const tools: ToolDefinition[] = [
  {
    type: "function",
    function: {
      name: "search",
      description: "Search the web",
      parameters: {
        type: "object",
        properties: { query: { type: "string" }, k: { type: "integer" } },
        required: ["query", "k"],
      },
    },
  },
  {
    type: "function",
    function: {
      name: "final_answer",
      parameters: { type: "object", properties: { answer: { type: "string" } }, required: ["answer"] },
    },
  },
];

const request = (model: string, extra: Partial<ChatRequest> = {}): ChatRequest => ({
  model,
  messages: [{ role: "user", content: "find the capital of France" }],
  tools,
  ...extra,
});

/** A client whose waits are recorded, not slept, so retry tests are instant. */
function client(opts: Partial<OpenAIClientOptions> = {}) {
  const sleeps: number[] = [];
  const chat = createOpenAIClient({
    allowLoopback: true,
    baseURL: fake.url,
    apiKey: API_KEY,
    random: () => 0,
    sleep: async (ms) => {
      sleeps.push(ms);
    },
    ...opts,
  });
  return { chat, sleeps };
}

async function scenario(s: Scenario) {
  await registerScenario(fake.url, s);
  return s.id;
}

async function failure(p: Promise<unknown>): Promise<ProviderError> {
  const error = await p.then(
    () => {
      throw new Error("expected a failure");
    },
    (e: unknown) => e,
  );
  expect(error).toBeInstanceOf(ProviderError);
  return error as ProviderError;
}

describe("createOpenAIClient against the fake server", () => {
  it("returns the completion with usage, fingerprint, provider and the raw arguments string", async () => {
    const id = await scenario({
      id: "ok-basic",
      agent: { calls: 1 },
      system_fingerprint: "fp_123",
      provider: "Together",
    });
    const { chat } = client();
    const res = await chat.chat(request(id));
    expect(res.system_fingerprint).toBe("fp_123");
    expect(res.provider).toBe("Together");
    expect(res.model).toBe(id);
    expect(res.attempts).toBe(1);
    expect(res.usage?.total_tokens).toBe(res.usage!.prompt_tokens + res.usage!.completion_tokens);
    expect(res.usage!.prompt_tokens).toBeGreaterThan(0);
    const call = res.choices[0].message.tool_calls![0];
    expect(call.function.name).toBe("search");
    // The fake writes `": "` and `", "`; a client that parsed and re-serialised would drop the spaces.
    expect(call.function.arguments).toBe('{"query": "v0", "k": 0}');
    expect(res.choices[0].finish_reason).toBe("tool_calls");
  });

  it("keeps an exotic raw arguments string byte for byte", async () => {
    const raw = '{ "query" :"caf\\u00e9",\n "k": 1.0e0 }';
    const id = await scenario({ id: "raw-args", faults: [{ respond: { arguments: raw } }] });
    const res = await client().chat.chat(request(id));
    expect(res.choices[0].message.tool_calls![0].function.arguments).toBe(raw);
  });

  it("sends exactly the request's fields, in its order, with the bearer key", async () => {
    const id = await scenario({ id: "body-order" });
    const req: ChatRequest = {
      model: id,
      messages: [{ role: "user", content: "hi" }],
      temperature: 0,
      seed: 7,
      max_tokens: undefined,
    };
    await client().chat.chat(req);
    const [recorded] = await recordedRequests(fake.url, id);
    expect(Object.keys(recorded.body as object)).toEqual(["model", "messages", "temperature", "seed"]);
    expect(recorded.body).toEqual({ model: id, messages: [{ role: "user", content: "hi" }], temperature: 0, seed: 7 });
    expect(recorded.headers.authorization).toBe("***CRET");
  });

  it("sends the same tools on every turn, from one tools array", async () => {
    const id = await scenario({ id: "tools-twice" });
    const req = (content: string): ChatRequest => ({
      model: id,
      messages: [{ role: "user", content }],
      tools,
      temperature: 0,
    });
    await client().chat.chat(req("one"));
    await client().chat.chat(req("two"));
    const recorded = await recordedRequests(fake.url, id);
    expect(recorded.map((r) => r.body)).toEqual([
      JSON.parse(JSON.stringify(req("one"))),
      JSON.parse(JSON.stringify(req("two"))),
    ]);
  });

  it("retries a 500 and answers once, after 2 attempts", async () => {
    const id = await scenario({ id: "500-then-200", faults: [{ on: { attempt: 1 }, respond: { status: 500 } }] });
    const retries: number[] = [];
    const { chat, sleeps } = client({ onRetry: (i) => retries.push(i.attempt) });
    const res = await chat.chat(request(id));
    expect(res.attempts).toBe(2);
    expect(res.choices).toHaveLength(1);
    expect(retries).toEqual([1]);
    // First backoff with random() = 0: min(0.5 s × 2^0, 8 s) × (1 − 0) = 500 ms.
    expect(sleeps).toEqual([500]);
    expect((await recordedRequests(fake.url, id)).map((r) => r.attempt)).toEqual([1, 2]);
  });

  it("waits for Retry-After on a 429", async () => {
    const id = await scenario({
      id: "429-retry-after",
      faults: [{ on: { attempt: 1 }, respond: { status: 429, headers: { "retry-after": "1" } } }],
    });
    const { chat, sleeps } = client();
    const res = await chat.chat(request(id));
    expect(res.attempts).toBe(2);
    expect(sleeps).toEqual([1000]);
  });

  it("waits for Retry-After with the real clock", async () => {
    const id = await scenario({
      id: "429-real-sleep",
      faults: [{ on: { attempt: 1 }, respond: { status: 429, headers: { "retry-after": "1" } } }],
    });
    const chat = createOpenAIClient({ allowLoopback: true, baseURL: fake.url, apiKey: API_KEY });
    const started = performance.now();
    await chat.chat(request(id));
    expect(performance.now() - started).toBeGreaterThanOrEqual(990);
    const [first, second] = await recordedRequests(fake.url, id);
    expect(second.at - first.at).toBeGreaterThanOrEqual(990);
  });

  it("throws RateLimitError with retryAfterMs once retries are exhausted", async () => {
    const id = await scenario({
      id: "429-always",
      faults: [{ respond: { status: 429, headers: { "retry-after-ms": "250" } } }],
    });
    const { chat, sleeps } = client({ maxRetries: 2 });
    const err = await failure(chat.chat(request(id)));
    expect(err).toMatchObject({
      name: "RateLimitError",
      kind: "rate_limit",
      status: 429,
      retryAfterMs: 250,
      attempts: 3,
    });
    expect(sleeps).toEqual([250, 250]);
  });

  it("times out a hanging request and gives APITimeoutError after the retries", async () => {
    const id = await scenario({ id: "hang", faults: [{ respond: { hang: true } }] });
    const { chat, sleeps } = client({ timeoutMs: 150, maxRetries: 1 });
    const started = performance.now();
    const err = await failure(chat.chat(request(id)));
    expect(err).toMatchObject({ name: "APITimeoutError", kind: "timeout", attempts: 2 });
    expect(err.retryable).toBe(true);
    expect(sleeps).toHaveLength(1);
    expect(performance.now() - started).toBeGreaterThanOrEqual(290);
    expect(await recordedRequests(fake.url, id)).toHaveLength(2);
  });

  it("times out a body that arrives too late (the timeout covers the whole exchange)", async () => {
    const id = await scenario({ id: "slow", delay_ms: 400 });
    const err = await failure(client({ timeoutMs: 100, maxRetries: 0 }).chat.chat(request(id)));
    expect(err.name).toBe("APITimeoutError");
  });

  it("gives APIConnectionError when nothing listens", async () => {
    const port = await closedPort();
    const { chat, sleeps } = client({ baseURL: `http://127.0.0.1:${port}/v1`, maxRetries: 1 });
    const err = await failure(chat.chat(request("any")));
    expect(err).toMatchObject({ name: "APIConnectionError", kind: "connection", attempts: 2 });
    expect(sleeps).toHaveLength(1);
  });

  it.each([
    [400, "BadRequestError", "bad_request"],
    [401, "AuthenticationError", "auth"],
    [403, "PermissionDeniedError", "auth"],
    [404, "NotFoundError", "bad_request"],
    [422, "UnprocessableEntityError", "bad_request"],
  ])("does not retry a %i (%s)", async (status, name, kind) => {
    const id = await scenario({ id: `status-${status}`, faults: [{ respond: { status } }] });
    const { chat, sleeps } = client();
    const err = await failure(chat.chat(request(id)));
    expect(err).toMatchObject({ name, kind, status, attempts: 1 });
    expect(sleeps).toEqual([]);
    expect(await recordedRequests(fake.url, id)).toHaveLength(1);
  });

  it.each([
    [408, "APIStatusError", "transient"],
    [409, "ConflictError", "transient"],
    [502, "InternalServerError", "transient"],
  ])("retries a %i (%s)", async (status, name, kind) => {
    const id = await scenario({ id: `status-${status}`, faults: [{ respond: { status } }] });
    const err = await failure(client({ maxRetries: 1 }).chat.chat(request(id)));
    expect(err).toMatchObject({ name, kind, status, attempts: 2 });
  });

  it("names a malformed JSON body APIResponseValidationError", async () => {
    const id = await scenario({
      id: "malformed",
      faults: [{ on: { attempt: 1 }, respond: { raw: '{"id": "x", "choices": [' } }],
    });
    const err = await failure(client({ maxRetries: 0 }).chat.chat(request(id)));
    expect(err).toMatchObject({ name: "APIResponseValidationError", kind: "transient", status: 200 });
    expect(err.message).toContain("not JSON");
    // …and it is retryable: the next attempt of the same request succeeds.
    expect((await client({ maxRetries: 1 }).chat.chat(request(id))).attempts).toBe(1);
  });

  it("names a 200 that is not a chat completion APIResponseValidationError", async () => {
    const id = await scenario({ id: "not-completion", faults: [{ respond: { body: { hello: "world" } } }] });
    const err = await failure(client({ maxRetries: 0 }).chat.chat(request(id)));
    expect(err.name).toBe("APIResponseValidationError");
  });

  it("classifies a 200 carrying an error object by its code (OpenRouter style)", async () => {
    const id = await scenario({
      id: "error-in-200",
      faults: [
        { respond: { body: { error: { code: 429, message: "upstream busy" } }, headers: { "retry-after": "2" } } },
      ],
    });
    const err = await failure(client({ maxRetries: 0 }).chat.chat(request(id)));
    expect(err).toMatchObject({ name: "RateLimitError", kind: "rate_limit", status: 429, retryAfterMs: 2000 });
  });

  it("passes empty choices through", async () => {
    const id = await scenario({ id: "empty-choices", faults: [{ respond: { empty_choices: true } }] });
    const res = await client().chat.chat(request(id));
    expect(res.choices).toEqual([]);
    // The endpoint's usage still comes through: the fake counts ~4 characters a token, so both parts are positive.
    const { prompt_tokens, completion_tokens, total_tokens } = res.usage!;
    expect(prompt_tokens).toBeGreaterThan(0);
    expect(completion_tokens).toBeGreaterThan(0);
    expect(total_tokens).toBe(prompt_tokens + completion_tokens);
  });

  it("passes prose and unknown tool names through for the engine to judge", async () => {
    const id = await scenario({
      id: "prose-and-stranger",
      faults: [
        { on: { turn: 0 }, respond: { content: "I think it is Paris." } },
        { on: { turn: 1 }, respond: { tool_name: "rm_rf" } },
      ],
    });
    const { chat } = client();
    const first = await chat.chat(request(id));
    expect(first.choices[0].message).toEqual({ role: "assistant", content: "I think it is Paris." });
    const second = await chat.chat(
      request(id, { messages: [...request(id).messages, { role: "assistant", content: "hmm" }] }),
    );
    expect(second.choices[0].message.tool_calls![0].function.name).toBe("rm_rf");
  });

  it("never puts the API key in an error message", async () => {
    const id = await scenario({
      id: "leaky",
      faults: [
        {
          respond: {
            status: 401,
            body: { error: { message: `Incorrect API key provided: ${API_KEY}. Header was Bearer ${API_KEY}` } },
          },
        },
      ],
    });
    const err = await failure(client().chat.chat(request(id)));
    expect(err.name).toBe("AuthenticationError");
    expect(err.message).toContain("Incorrect API key provided");
    expect(err.message).not.toContain(API_KEY);
    expect(err.message).not.toContain("0123456789abcdef");
    expect(JSON.stringify(err)).not.toContain(API_KEY);
    expect(String(err.stack)).not.toContain(API_KEY);
    expect(err.cause).toBeUndefined();
  });

  it("throws the caller's abort reason, without retrying", async () => {
    const id = await scenario({ id: "abort", faults: [{ respond: { hang: true } }] });
    const controller = new AbortController();
    const reason = new Error("canceled by test");
    setTimeout(() => controller.abort(reason), 50);
    const { chat, sleeps } = client({ timeoutMs: 5_000 });
    await expect(chat.chat(request(id), { signal: controller.signal })).rejects.toBe(reason);
    expect(sleeps).toEqual([]);
  });
});

describe("createOpenAIEmbeddingClient against the fake server", () => {
  const embedder = (opts: Partial<OpenAIClientOptions> = {}) => {
    const sleeps: number[] = [];
    const client = createOpenAIEmbeddingClient({
      allowLoopback: true,
      baseURL: fake.url,
      apiKey: API_KEY,
      random: () => 0,
      sleep: async (ms) => void sleeps.push(ms),
      ...opts,
    });
    return { client, sleeps };
  };

  it("asks for float vectors and returns one per input, in input order, with usage", async () => {
    const id = await scenario({ id: "emb-ok" });
    const { client } = embedder();
    const res = await client.embed({ model: id, input: ["alpha beta", "gamma", "alpha beta"], dimensions: 16 });
    expect(res.data.length).toBe(3);
    expect(res.data[0]).toEqual(res.data[2]);
    expect(res.data[0]).not.toEqual(res.data[1]);
    expect(res.usage!.prompt_tokens).toBeGreaterThan(0);
    expect(res.attempts).toBe(1);
    const [req] = await recordedRequests(fake.url, id);
    expect(req.body).toEqual({
      model: id,
      input: ["alpha beta", "gamma", "alpha beta"],
      encoding_format: "float",
      dimensions: 16,
    });
    expect(req.headers.authorization).toBe(`***${API_KEY.slice(-4)}`);
  });

  it("reorders vectors by their index", async () => {
    const body = {
      object: "list",
      data: [
        { index: 1, embedding: [0, 1] },
        { index: 0, embedding: [1, 0] },
      ],
    };
    const id = await scenario({ id: "emb-order", faults: [{ respond: { body } }] });
    expect((await embedder().client.embed({ model: id, input: ["a", "b"] })).data).toEqual([
      [1, 0],
      [0, 1],
    ]);
  });

  it("retries a 503 through the one policy, then answers", async () => {
    const id = await scenario({ id: "emb-503", faults: [{ on: { nth: 1 }, respond: { status: 503 } }] });
    const { client, sleeps } = embedder();
    const res = await client.embed({ model: id, input: ["x"] });
    expect(res.attempts).toBe(2);
    expect(sleeps).toEqual([500]);
  });

  it("names a wrong vector count or a non-numeric vector APIResponseValidationError, without the key", async () => {
    const short = await scenario({
      id: "emb-short",
      faults: [{ respond: { body: { data: [{ index: 0, embedding: [1] }] } } }],
    });
    const e1 = await failure(embedder({ maxRetries: 0 }).client.embed({ model: short, input: ["a", "b"] }));
    expect(e1.name).toBe("APIResponseValidationError");
    expect(e1.message).toContain("1 embeddings for 2 inputs");
    const bad = await scenario({
      id: "emb-bad",
      faults: [{ respond: { body: { data: [{ index: 0, embedding: ["x"] }] } } }],
    });
    const e2 = await failure(embedder({ maxRetries: 0 }).client.embed({ model: bad, input: ["a"] }));
    expect(e2.message).toContain("not a list of numbers");
    const auth = await scenario({
      id: "emb-401",
      faults: [{ respond: { status: 401, body: { error: { message: `bad key ${API_KEY}` } } } }],
    });
    const e3 = await failure(embedder().client.embed({ model: auth, input: ["a"] }));
    expect(e3.name).toBe("AuthenticationError");
    expect(e3.attempts).toBe(1);
    expect(e3.message).not.toContain(API_KEY);
  });
});

/** A port that was free a moment ago, so connecting to it is refused. */
async function closedPort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((r) => server.listen(0, "127.0.0.1", () => r()));
  const { port } = server.address() as { port: number };
  await new Promise<void>((r) => server.close(() => r()));
  return port;
}

describe("requestJson", () => {
  it("writes what JSON.stringify writes, also when tools and messages are reused", () => {
    const json = fc.jsonValue();
    const requests = fc.record(
      {
        model: fc.string(),
        messages: fc.array(
          fc.record({
            role: fc.constantFrom("system", "user", "assistant", "tool"),
            content: fc.option(fc.string(), { nil: null }),
          }),
        ),
        tools: fc.array(
          fc.record({
            type: fc.constant("function"),
            function: fc.record({ name: fc.string(), parameters: fc.dictionary(fc.string(), json) }),
          }),
        ),
        temperature: fc.option(fc.double({ noNaN: true, noDefaultInfinity: true }), { nil: undefined }),
        max_tokens: fc.option(fc.nat(), { nil: undefined }),
      },
      { requiredKeys: ["model", "messages"] },
    );
    fc.assert(
      fc.property(requests, (r) => {
        const request = r as unknown as ChatRequest;
        expect(requestJson(request)).toBe(JSON.stringify(request));
        // The second time, tools and messages come from the cache, as on a conversation's next turn.
        const next = { ...request, messages: [...request.messages, { role: "user" as const, content: "next" }] };
        expect(requestJson(next)).toBe(JSON.stringify(next));
      }),
    );
  });
});
