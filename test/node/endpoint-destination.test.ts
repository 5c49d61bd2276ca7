// Issue 14, item 4: a model call never goes where it must not, checked as it is sent: the endpoint
// itself before any request, and every redirect before it is followed. Nothing here leaves the
// machine: the servers are on loopback, and the fetch under the client refuses anything else.
import { createServer, type IncomingMessage, type Server } from "node:http";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { endpointPolicy } from "../../src/net/destination.ts";
import { DestinationRefused, guardedFetch } from "../../src/net/guarded-fetch.ts";
import { createOpenAIClient, createOpenAIEmbeddingClient } from "../../src/providers/openai.ts";
import { ProviderError } from "../../src/providers/types.ts";

type Seen = { method: string; url: string; authorization?: string; body: string };
type Answer = { status: number; headers?: Record<string, string>; body?: string };

/** A loopback server that records each request and answers it with `route(req)`. */
async function server(route: (req: IncomingMessage) => Answer) {
  const seen: Seen[] = [];
  const srv: Server = createServer((req, res) => {
    let body = "";
    req.on("data", (c) => (body += c));
    req.on("end", () => {
      seen.push({ method: req.method!, url: req.url!, authorization: req.headers.authorization, body });
      const r = route(req);
      res.writeHead(r.status, r.headers).end(r.body ?? "");
    });
  });
  await new Promise<void>((r) => srv.listen(0, "127.0.0.1", r));
  const port = (srv.address() as { port: number }).port;
  return { seen, port, close: () => new Promise<void>((r) => srv.close(() => r())) };
}

/**
 * The network under the client, for these tests: loopback only, and never following a redirect
 * itself, so even code that did not check a redirect could not reach the address it names.
 */
const requested: string[] = [];
const loopbackOnly: typeof fetch = async (input, init) => {
  const url = input instanceof Request ? input.url : String(input);
  requested.push(url);
  const host = new URL(url).hostname;
  if (host !== "127.0.0.1" && host !== "localhost") throw new Error(`test network: ${host} is off this machine`);
  return globalThis.fetch(input, { ...init, redirect: "manual" });
};

const completion = JSON.stringify({
  choices: [{ message: { role: "assistant", content: "ok" }, finish_reason: "stop" }],
});
const chatRequest = { model: "m", messages: [{ role: "user" as const, content: "hi" }] };
const noWait = { maxRetries: 0, sleep: async () => {} };

async function rejection(p: Promise<unknown>): Promise<ProviderError> {
  const err = await p.then(
    () => null,
    (e: unknown) => e,
  );
  expect(err).toBeInstanceOf(ProviderError);
  return err as ProviderError;
}

describe("an endpoint the policy refuses gets no request", () => {
  it.each([
    ["http://169.254.169.254/latest/meta-data", "metadata address 169.254.169.254 is not allowed", "169.254.169.254"],
    ["http://10.0.0.1:8000/v1", "private address 10.0.0.1 is not allowed", "10.0.0.1:8000"],
    ["http://[::ffff:a00:1]/v1", "private address ::ffff:a00:1 (10.0.0.1) is not allowed", "[::ffff:a00:1]"],
    ["http://user:secret@api.example.com/v1", "must not contain credentials", "api.example.com"],
    [
      "https://api.example.com/v1?api_key=sk-abc",
      "must not carry credentials in its query string (api_key)",
      "api.example.com",
    ],
  ])("%s", async (baseURL, problem, host) => {
    requested.length = 0;
    const sleeps: number[] = [];
    const chat = createOpenAIClient({
      baseURL,
      apiKey: "sk-test-key-12345678",
      allowLoopback: true,
      fetch: loopbackOnly,
      sleep: async (ms) => void sleeps.push(ms),
    });
    const err = await rejection(chat.chat(chatRequest));
    // Not retried (the policy does not change between attempts), and never sent.
    expect(err).toMatchObject({
      name: "APIConnectionError",
      kind: "bad_request",
      message: `Connection error: not sent to ${host}: ${problem}`,
    });
    expect(sleeps).toEqual([]);
    expect(requested).toEqual([]);
    const embed = createOpenAIEmbeddingClient({ baseURL, allowLoopback: true, fetch: loopbackOnly, ...noWait });
    expect((await rejection(embed.embed({ model: "e", input: ["x"] }))).message).toBe(
      `Connection error: not sent to ${host}: ${problem}`,
    );
    expect(requested).toEqual([]);
  });

  it("loopback is the Worker's setting: refused when not allowed, allowed when it is", async () => {
    const s = await server(() => ({ status: 200, headers: { "content-type": "application/json" }, body: completion }));
    try {
      const baseURL = `http://127.0.0.1:${s.port}/v1`;
      const refused = await rejection(
        createOpenAIClient({ baseURL, allowLoopback: false, fetch: loopbackOnly, ...noWait }).chat(chatRequest),
      );
      expect(refused.message).toBe(
        `Connection error: not sent to 127.0.0.1:${s.port}: loopback addresses are accepted only in local development`,
      );
      expect(s.seen).toEqual([]);
      const answer = await createOpenAIClient({ baseURL, allowLoopback: true, fetch: loopbackOnly, ...noWait }).chat(
        chatRequest,
      );
      expect(answer.choices[0].message.content).toBe("ok");
      expect(s.seen.map((r) => r.url)).toEqual(["/v1/chat/completions"]);
    } finally {
      await s.close();
    }
  });
});

describe("redirects are checked before they are followed", () => {
  let origin: Awaited<ReturnType<typeof server>>;
  let other: Awaited<ReturnType<typeof server>>;
  beforeAll(async () => {
    other = await server(() => ({ status: 200, headers: { "content-type": "application/json" }, body: completion }));
    origin = await server((req): Answer => {
      const to = new URL(req.url!, "http://x").searchParams.get("to");
      const status = Number(new URL(req.url!, "http://x").searchParams.get("status") ?? 307);
      return to
        ? { status, headers: { location: to } }
        : { status: 200, headers: { "content-type": "application/json" }, body: completion };
    });
  });
  afterAll(async () => {
    await origin.close();
    await other.close();
  });

  it("a model endpoint that redirects to a metadata address: the redirect is not followed", async () => {
    requested.length = 0;
    const target = "http://169.254.169.254/latest/meta-data/iam";
    const baseURL = `http://127.0.0.1:${origin.port}/v1`;
    const chat = createOpenAIClient({
      baseURL,
      apiKey: "sk-test-key-12345678",
      allowLoopback: true,
      fetch: guardedRedirectProbe(target),
      ...noWait,
    });
    const err = await rejection(chat.chat(chatRequest));
    expect(err.name).toBe("APIConnectionError");
    expect(err.message).toContain("redirected to 169.254.169.254: metadata address 169.254.169.254 is not allowed");
    expect(requested.every((u) => new URL(u).hostname === "127.0.0.1")).toBe(true);
  });

  // Issue 30: a refused redirect was reported as "network error" and retried against the origin.
  it.each([
    [
      "metadata",
      "http://169.254.169.254/latest/meta-data/iam",
      "redirected to 169.254.169.254: metadata address 169.254.169.254 is not allowed",
    ],
    [
      "private",
      "http://10.0.0.1:8000/v1/chat/completions",
      "redirected to 10.0.0.1:8000: private address 10.0.0.1 is not allowed",
    ],
  ])(
    "a redirect to a %s address is reported as a refused destination and not retried: the origin gets one request",
    async (_, target, refusal) => {
      requested.length = 0;
      origin.seen.length = 0;
      const sleeps: number[] = [];
      const baseURL = `http://127.0.0.1:${origin.port}/v1`;
      // The default retry budget (2 retries): a network error would be tried three times.
      const chat = createOpenAIClient({
        baseURL,
        apiKey: "sk-test-key-12345678",
        allowLoopback: true,
        fetch: guardedRedirectProbe(target),
        sleep: async (ms) => void sleeps.push(ms),
      });
      const err = await rejection(chat.chat(chatRequest));
      expect(err).toMatchObject({
        name: "APIConnectionError",
        kind: "bad_request",
        message: `Connection error: destination refused, not sent: ${refusal}`,
      });
      expect(err.retryable).toBe(false);
      expect(err.message).not.toContain("network error");
      expect(sleeps).toEqual([]);
      expect(origin.seen.map((r) => r.url)).toEqual([`/v1/chat/completions?to=${encodeURIComponent(target)}`]);
      expect(requested.map((u) => new URL(u).hostname)).toEqual(["127.0.0.1"]);
    },
  );

  it.each([
    ["http://10.0.0.1/x", "redirected to 10.0.0.1: private address 10.0.0.1 is not allowed"],
    ["http://0xa9fea9fe/latest", "redirected to 169.254.169.254: metadata address 169.254.169.254 is not allowed"],
    [
      "http://metadata.google.internal/computeMetadata/v1/",
      "redirected to metadata.google.internal: metadata host metadata.google.internal is not allowed",
    ],
    ["gopher://127.0.0.1:25/x", "redirected to 127.0.0.1:25: must use http or https"],
  ])("guardedFetch refuses a redirect to %s without requesting it", async (to, message) => {
    requested.length = 0;
    const url = `http://127.0.0.1:${origin.port}/start?to=${encodeURIComponent(to)}`;
    const err = await guardedFetch(
      endpointPolicy(true),
      loopbackOnly,
    )(url).then(
      () => null,
      (e: unknown) => e,
    );
    expect(err).toBeInstanceOf(DestinationRefused);
    expect((err as Error).message).toBe(message);
    expect(requested).toEqual([url]);
  });

  it("guardedFetch checks the first request too", async () => {
    requested.length = 0;
    const url = `http://127.0.0.1:${origin.port}/start`;
    await expect(guardedFetch(endpointPolicy(false), loopbackOnly)(url)).rejects.toThrow(
      `request to 127.0.0.1:${origin.port}: loopback addresses are accepted only in local development`,
    );
    expect(requested).toEqual([]);
  });

  it("follows an allowed redirect as fetch would: 307 keeps the POST and its body, another origin loses the Authorization", async () => {
    const guarded = guardedFetch(endpointPolicy(true), loopbackOnly);
    const to = `http://localhost:${other.port}/next`; // localhost is another origin than 127.0.0.1
    origin.seen.length = 0;
    other.seen.length = 0;
    const res = await guarded(`http://127.0.0.1:${origin.port}/start?to=${encodeURIComponent(to)}`, {
      method: "POST",
      body: '{"a":1}',
      headers: { authorization: "Bearer sk-secret-12345678", "content-type": "application/json" },
    });
    expect(res.status).toBe(200);
    expect(origin.seen).toMatchObject([
      { method: "POST", body: '{"a":1}', authorization: "Bearer sk-secret-12345678" },
    ]);
    expect(other.seen).toEqual([{ method: "POST", url: "/next", authorization: undefined, body: '{"a":1}' }]);
  });

  it("a same-origin redirect keeps the Authorization; 303 becomes a GET without a body", async () => {
    const guarded = guardedFetch(endpointPolicy(true), loopbackOnly);
    origin.seen.length = 0;
    const to = `http://127.0.0.1:${origin.port}/final`;
    const res = await guarded(`http://127.0.0.1:${origin.port}/start?status=303&to=${encodeURIComponent(to)}`, {
      method: "POST",
      body: "x",
      headers: { authorization: "Bearer k-12345678" },
    });
    expect(res.status).toBe(200);
    expect(origin.seen.map((r) => [r.method, r.url, r.authorization, r.body])).toEqual([
      ["POST", `/start?status=303&to=${encodeURIComponent(to)}`, "Bearer k-12345678", "x"],
      ["GET", "/final", "Bearer k-12345678", ""],
    ]);
  });
});

/** The loopback-only network, with every chat request of the endpoint answered by a 307 to `target`. */
function guardedRedirectProbe(target: string): typeof fetch {
  return (input, init) => {
    const url = new URL(input instanceof Request ? input.url : String(input));
    if (url.pathname.endsWith("/chat/completions")) url.searchParams.set("to", target);
    return loopbackOnly(url.href, init);
  };
}
