// Issue "A suite you can trust on any clone": a provider error says what happened. Status errors carry
// the OpenAI Python SDK's message (the original harness records it), connection errors name the host
// and the cause.
import { createServer } from "node:net";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createOpenAIClient, pythonStatusMessage } from "../../../src/providers/openai.ts";
import { ProviderError } from "../../../src/providers/types.ts";
import { registerScenario, startFakeOpenAI } from "../../support/fake-openai.ts";
import type { FakeOpenAI } from "../../support/fake-openai.ts";

let fake: FakeOpenAI;
beforeAll(async () => {
  fake = await startFakeOpenAI();
});
afterAll(() => fake.close());

const request = (model: string) => ({ model, messages: [{ role: "user" as const, content: "hi" }] });

async function failure(chat: ReturnType<typeof createOpenAIClient>, model = "m"): Promise<ProviderError> {
  const err = await chat.chat(request(model)).then(
    () => null,
    (e: unknown) => e,
  );
  expect(err).toBeInstanceOf(ProviderError);
  return err as ProviderError;
}

const noWait = { maxRetries: 0, sleep: async () => {} };

describe("status errors read as the OpenAI Python SDK writes them", () => {
  // Python: f"Error code: {status} - {body}" with body = json.loads(text), so str() of a dict:
  // single-quoted keys and strings, None for null, 1.0 kept a float, nested dicts the same way.
  it.each([
    [
      400,
      '{"error": {"message": "simulated bad request", "type": "invalid_request_error", "param": null, "code": null}}',
      "Error code: 400 - {'error': {'message': 'simulated bad request', 'type': 'invalid_request_error', 'param': None, 'code': None}}",
    ],
    [
      429,
      '{"error":{"message":"slow down","retry":1.0,"ok":false}}',
      "Error code: 429 - {'error': {'message': 'slow down', 'retry': 1.0, 'ok': False}}",
    ],
    [400, '{"error": "it\'s bad"}', `Error code: 400 - {'error': "it's bad"}`],
    [400, '"just a string"', "Error code: 400 - just a string"],
    [502, "  <html>Bad gateway</html>\n", "<html>Bad gateway</html>"],
    [503, "", "Error code: 503"],
  ])("%i %s", (status, body, expected) => {
    expect(pythonStatusMessage(status, body)).toBe(expected);
  });

  it("a 400 from the endpoint is a BadRequestError with that message", async () => {
    const body = { error: { message: "simulated bad request", type: "invalid_request_error", code: null } };
    await registerScenario(fake.url, { id: "py-400", faults: [{ respond: { status: 400, body } }] });
    const err = await failure(
      createOpenAIClient({ allowLoopback: true, baseURL: fake.url, apiKey: "sk-test-key-12345678", ...noWait }),
      "py-400",
    );
    expect(err).toMatchObject({ name: "BadRequestError", kind: "bad_request", status: 400 });
    expect(err.message).toBe(
      "Error code: 400 - {'error': {'message': 'simulated bad request', 'type': 'invalid_request_error', 'code': None}}",
    );
  });

  it("a 504 whose body says 'timed out' stays a server error, not a timeout", async () => {
    await registerScenario(fake.url, {
      id: "py-504",
      faults: [{ respond: { status: 504, raw: "upstream request timed out" } }],
    });
    const err = await failure(createOpenAIClient({ allowLoopback: true, baseURL: fake.url, ...noWait }), "py-504");
    expect(err).toMatchObject({
      name: "InternalServerError",
      kind: "transient",
      status: 504,
      message: "upstream request timed out",
    });
  });

  it("an error inside a 2xx body (OpenRouter's way) reads as that status would", async () => {
    await registerScenario(fake.url, {
      id: "py-in-band",
      faults: [{ respond: { body: { error: { code: 429, message: "upstream busy" } } } }],
    });
    const err = await failure(createOpenAIClient({ allowLoopback: true, baseURL: fake.url, ...noWait }), "py-in-band");
    expect(err).toMatchObject({
      name: "RateLimitError",
      status: 429,
      message: "Error code: 429 - {'error': {'code': 429, 'message': 'upstream busy'}}",
    });
  });

  it("keeps the status when the error body breaks off", async () => {
    // The answer's headers arrive, then its body stream fails: the status still classifies the error.
    const broken = async () =>
      new Response(new ReadableStream({ start: (c) => c.error(new Error("terminated")) }), { status: 503 });
    const err = await failure(
      createOpenAIClient({ allowLoopback: true, baseURL: "http://api.example.invalid/v1", fetch: broken, ...noWait }),
    );
    expect(err).toMatchObject({
      name: "InternalServerError",
      kind: "transient",
      status: 503,
      message: "Error code: 503",
    });
  });

  it("keeps Retry-After of an error status", async () => {
    await registerScenario(fake.url, {
      id: "py-429",
      faults: [{ respond: { status: 429, headers: { "retry-after": "3" } } }],
    });
    const err = await failure(createOpenAIClient({ allowLoopback: true, baseURL: fake.url, ...noWait }), "py-429");
    expect(err).toMatchObject({ name: "RateLimitError", retryAfterMs: 3000 });
  });
});

describe("connection errors name the host and the cause", () => {
  it("a refused port", async () => {
    // A port that was just free: listen on 0, read the port, close.
    const server = createServer();
    await new Promise<void>((r) => server.listen(0, "127.0.0.1", r));
    const port = (server.address() as { port: number }).port;
    await new Promise<void>((r) => server.close(() => r()));
    const err = await failure(
      createOpenAIClient({
        allowLoopback: true,
        baseURL: `http://127.0.0.1:${port}/v1`,
        apiKey: "sk-secret-never-shown",
        ...noWait,
      }),
    );
    expect(err).toMatchObject({ name: "APIConnectionError", kind: "connection" });
    expect(err.message).toMatch(
      new RegExp(`^Connection error: could not reach 127\\.0\\.0\\.1:${port} \\(connection refused`),
    );
    expect(err.message).not.toContain("sk-secret-never-shown");
  });

  it("a TLS handshake with a server that does not speak TLS", async () => {
    const plain = fake.url.replace(/^http:/, "https:");
    const err = await failure(createOpenAIClient({ allowLoopback: true, baseURL: plain, ...noWait }));
    expect(err.message).toMatch(/^Connection error: could not reach 127\.0\.0\.1:\d+ \(TLS handshake failed/);
  });

  // The runtimes' own failures for causes a test cannot produce on loopback without sending a DNS
  // query off the machine: Node's fetch error for a failed lookup, and workerd's messages (workerd
  // reports a refused or reset connection as "Network connection lost." and a failed DNS lookup or TLS
  // handshake as "internal error; reference = …", so those are named together).
  it.each([
    [
      "http://api.example.invalid/v1",
      new TypeError("fetch failed", {
        cause: Object.assign(new Error("getaddrinfo ENOTFOUND api.example.invalid"), { code: "ENOTFOUND" }),
      }),
      "api.example.invalid",
      "DNS lookup failed",
    ],
    [
      "http://api.example.invalid:8000/v1",
      new Error("Network connection lost."),
      "api.example.invalid:8000",
      "connection refused or closed by the host",
    ],
    [
      "http://api.example.invalid/v1",
      new Error("internal error; reference = abc123"),
      "api.example.invalid",
      "DNS lookup failed or host unreachable",
    ],
    [
      "https://api.example.invalid/v1",
      new Error("internal error; reference = abc123"),
      "api.example.invalid",
      "DNS lookup or TLS handshake failed",
    ],
  ])("%s: %s", async (baseURL, thrown, host, cause) => {
    const err = await failure(
      createOpenAIClient({ allowLoopback: true, baseURL, fetch: async () => Promise.reject(thrown), ...noWait }),
    );
    expect(err).toMatchObject({ name: "APIConnectionError", kind: "connection" });
    expect(err.message.startsWith(`Connection error: could not reach ${host} (${cause}`)).toBe(true);
  });

  it("a timeout names the host and the deadline", async () => {
    await registerScenario(fake.url, { id: "py-slow", delay_ms: 2_000 });
    const err = await failure(
      createOpenAIClient({ allowLoopback: true, baseURL: fake.url, timeoutMs: 50, ...noWait }),
      "py-slow",
    );
    expect(err).toMatchObject({ name: "APITimeoutError", kind: "timeout" });
    expect(err.message).toMatch(/^Request timed out: no answer from 127\.0\.0\.1:\d+ within 50 ms\.$/);
  });
});
