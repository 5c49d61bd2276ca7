/**
 * The OpenAI-compatible `ChatClient`: any chat-completions endpoint (OpenAI, OpenRouter, Together,
 * vLLM, …) through the `openai` package. The package does the HTTP; this file
 *
 * - sends the `ChatRequest` as given (same fields, same key order),
 * - bounds each attempt by `timeoutMs`, covering connect, headers *and* body, and honours the caller's signal,
 * - reads the body itself, so a tool call's `function.arguments` stays the raw string the endpoint sent
 *   and OpenRouter's top-level `provider` survives,
 * - classifies every failure as a `ProviderError` in the Python SDK's vocabulary, scrubbed of secrets,
 * - leaves retrying to retry.ts (the package's own retries are off, so there is one loop, one policy).
 *
 * The API key lives only in the package client's closure: it is never put in a message, a cause, or
 * anything returned.
 */
import OpenAI, { APIConnectionError, APIConnectionTimeoutError, APIError, APIUserAbortError } from "openai";
import { parsePyJson, pyRepr } from "../engines/python/index.ts";
import { destinationProblem, endpointPolicy } from "../net/destination.ts";
import { DestinationRefused, guardedFetch } from "../net/guarded-fetch.ts";
import { redactText } from "../engines/redact/index.ts";
import { callDeadlineMs, checkRetryPolicy, DEFAULT_MAX_RETRIES, retrying } from "./retry.ts";
import type { RetryInfo, RetryPolicy } from "./retry.ts";
import type { CallGate } from "./gate.ts";
import { ProviderError } from "./types.ts";
import type {
  ChatClient,
  ChatRequest,
  ChatResponse,
  EmbeddingClient,
  EmbeddingResponse,
  ProviderErrorKind,
  ToolCall,
  Usage,
} from "./types.ts";

export type OpenAIClientOptions = {
  /** e.g. `https://api.openai.com/v1`, `https://openrouter.ai/api/v1`, `http://127.0.0.1:8000/v1`. */
  baseURL: string;
  /** The provider key. Optional for keyless endpoints (vLLM); then the conventional `"EMPTY"` is sent. */
  apiKey?: string;
  /** Per attempt, the whole exchange (connect, headers, body). */
  timeoutMs?: number;
  /** Retries after the first attempt, by the policy in retry.ts. */
  maxRetries?: number;
  /** A `fetch` to use instead of the global one (tests, or a Worker's service binding). */
  fetch?: typeof fetch;
  /** Injectable wait between retries; see `RetryPolicy.sleep`. */
  sleep?: (ms: number, signal?: AbortSignal) => Promise<void>;
  /** Injectable jitter source in [0, 1). */
  random?: () => number;
  /** Called before each retry's wait, e.g. to count retries. */
  onRetry?: (info: RetryInfo) => void;
  /** Admission before every attempt (an endpoint's shared limiter); see `RetryPolicy.gate`. */
  gate?: CallGate;
  /**
   * Whether requests may go to loopback hosts: the Worker's setting (`loopbackAllowed(env)`, local
   * development only). Required, so no caller gets loopback by forgetting it (tests run with it on).
   */
  allowLoopback: boolean;
};

/**
 * Makes an OpenAI-compatible client with retries (retry.ts) around single attempts.
 *
 * Failures, all `ProviderError` (names from the OpenAI Python SDK):
 * | cause | name | kind |
 * | --- | --- | --- |
 * | attempt exceeded `timeoutMs` | `APITimeoutError` | timeout |
 * | DNS, refused, reset | `APIConnectionError` | connection |
 * | endpoint or a redirect refused by the destination policy (nothing sent) | `APIConnectionError` | bad_request |
 * | 400 / 404 / 422 | `BadRequestError` / `NotFoundError` / `UnprocessableEntityError` | bad_request |
 * | 401 / 403 | `AuthenticationError` / `PermissionDeniedError` | auth |
 * | 408 / 409 | `APIStatusError` / `ConflictError` | transient |
 * | 429 | `RateLimitError` (+ `retryAfterMs`) | rate_limit |
 * | 5xx | `InternalServerError` | transient |
 * | other status | `APIStatusError` | bad_request |
 * | 2xx whose body is not JSON or has no `choices` array | `APIResponseValidationError` | transient |
 *
 * The last row is the Python SDK's name for "the API answered, but not with the expected shape".
 * It is retried, because in practice that is a truncated body or a proxy's error page, which the
 * next attempt usually fixes. A 2xx with `{"error": {...}}` and no choices (OpenRouter does this) is
 * classified by the error's numeric `code` as if it were that status. `choices: []` is *not* an
 * error: it is returned as is, and the engine decides what it means.
 *
 * `retryAfterMs` comes from `retry-after-ms`, else `retry-after` (seconds or an HTTP date), on any
 * status. If the caller's signal aborts, its `reason` is thrown (not a ProviderError) and nothing is retried.
 */
export function createOpenAIClient(options: OpenAIClientOptions): ChatClient {
  const { sdk, secrets, timeoutMs, policy, host, refused } = setup(options);
  if (refused) return { chat: () => Promise.reject(refused) };
  return {
    chat: (request, opts = {}) =>
      retrying(
        () =>
          attempt(opts.signal, timeoutMs, secrets, host, async (signal) => {
            // The package's generic POST with a body we serialized (see requestJson): the request
            // `chat.completions.create` makes, minus re-serializing the tool registry every turn.
            const response = await sdk
              .post("/chat/completions", {
                body: requestJson(request),
                headers: JSON_CONTENT,
                signal,
                timeout: timeoutMs,
                maxRetries: 0,
              })
              .asResponse();
            return parseCompletion(await response.text(), response.status, response.headers, secrets);
          }),
        policy,
        opts.signal,
      ),
  };
}

/**
 * The OpenAI-compatible `EmbeddingClient` (`POST /embeddings`), with the same options, deadline, error
 * classes and retry policy as `createOpenAIClient`. Vectors are asked for as floats (the package would
 * otherwise ask for base64) and returned in input order; a body with the wrong number of vectors, or
 * a vector that is not all numbers of one length, is an `APIResponseValidationError` (retried).
 */
export function createOpenAIEmbeddingClient(options: OpenAIClientOptions): EmbeddingClient {
  const { sdk, secrets, timeoutMs, policy, host, refused } = setup(options);
  if (refused) return { embed: () => Promise.reject(refused) };
  return {
    embed: (request, opts = {}) =>
      retrying(
        () =>
          attempt(opts.signal, timeoutMs, secrets, host, async (signal) => {
            const body = {
              model: request.model,
              input: request.input,
              encoding_format: "float" as const,
              ...(request.dimensions ? { dimensions: request.dimensions } : {}),
            };
            const response = await sdk.embeddings
              .create(body, { signal, timeout: timeoutMs, maxRetries: 0 })
              .asResponse();
            return parseEmbeddings(await response.text(), response.status, request.input.length, secrets);
          }),
        policy,
        opts.signal,
      ),
  };
}

function setup(options: OpenAIClientOptions) {
  const {
    baseURL,
    apiKey,
    timeoutMs = 60_000,
    maxRetries = DEFAULT_MAX_RETRIES,
    fetch = globalThis.fetch,
    sleep,
    random,
    onRetry,
    gate,
  } = options;
  if (!(timeoutMs > 0)) throw new RangeError(`createOpenAIClient: timeoutMs must be positive, got ${timeoutMs}`);
  const policy: RetryPolicy = {
    maxRetries,
    sleep,
    random,
    onRetry,
    gate,
    deadline: { ms: callDeadlineMs(timeoutMs, maxRetries), attemptMs: timeoutMs },
  };
  checkRetryPolicy(policy);
  // The destination policy (net/destination.ts), before any request: a refused endpoint gets none,
  // and its calls fail at once, unretried, saying why. Every request and redirect is checked again
  // as it is sent (guardedFetch).
  const destinations = endpointPolicy(options.allowLoopback);
  const problem = destinationProblem(baseURL, destinations);
  const refused = problem
    ? new ProviderError({
        name: "APIConnectionError",
        kind: "bad_request",
        message: `Connection error: not sent to ${URL.canParse(baseURL) ? new URL(baseURL).host : "the endpoint"}: ${problem}`,
      })
    : null;
  const sdk = new OpenAI({
    baseURL,
    apiKey: apiKey || "EMPTY",
    // Off: retry.ts is the one retry loop. `organization`/`project` null so ambient env vars are not sent.
    maxRetries: 0,
    timeout: timeoutMs,
    organization: null,
    project: null,
    fetch: statusCapturingFetch(guardedFetch(destinations, fetch)),
  });
  return { sdk, secrets: apiKey ? [apiKey] : [], timeoutMs, policy, host: targetOf(baseURL), refused };
}

/**
 * An answer that is not 2xx, with its body text. The package keeps only the body's `error` field of
 * such an answer, but the Python SDK's message (`Error code: 400 - {'error': {...}}`, which the
 * original harnesses record) is made from the whole body, so our `fetch` throws this instead and
 * `toProviderError` classifies it. Its message names only the status: the package sniffs the text of
 * a thrown error for "timed out", and a body saying so must not turn a 504 into a timeout.
 */
class HttpStatus extends Error {
  readonly status: number;
  readonly headers: Headers;
  readonly body: string;

  constructor(status: number, headers: Headers, body: string) {
    super(`HTTP ${status}`);
    this.status = status;
    this.headers = headers;
    this.body = body;
  }
}

function statusCapturingFetch(inner: typeof fetch): typeof fetch {
  return async (input, init) => {
    const response = await inner(input, init);
    if (response.ok) return response;
    // A body that breaks off still leaves the status, which is what classifies the error.
    throw new HttpStatus(response.status, response.headers, await response.text().catch(() => ""));
  };
}

/** Where a client's requests go, for messages: `host[:port]` and whether the connection uses TLS. */
type Target = { host: string; https: boolean };

function targetOf(baseURL: string): Target {
  try {
    const url = new URL(baseURL);
    return { host: url.host, https: url.protocol === "https:" };
  } catch {
    return { host: baseURL, https: false };
  }
}

/** One HTTP attempt under our own deadline, its failures classified as `ProviderError`s. */
async function attempt<T>(
  signal: AbortSignal | undefined,
  timeoutMs: number,
  secrets: string[],
  target: Target,
  exchange: (signal: AbortSignal) => Promise<T>,
): Promise<T> {
  if (signal?.aborted) throw signal.reason;
  // Our own deadline, because the package's timeout may stop at the response headers; aborting this
  // controller also cancels reading the body.
  const controller = new AbortController();
  let timedOut = false;
  const timer = setTimeout(() => {
    timedOut = true;
    controller.abort();
  }, timeoutMs);
  const onAbort = () => controller.abort(signal!.reason);
  signal?.addEventListener("abort", onAbort, { once: true });
  try {
    return await exchange(controller.signal);
  } catch (error) {
    if (signal?.aborted) throw signal.reason;
    if (timedOut) throw timeoutError(target, timeoutMs);
    throw toProviderError(error, secrets, target, timeoutMs);
  } finally {
    clearTimeout(timer);
    signal?.removeEventListener("abort", onAbort);
  }
}

const JSON_CONTENT = { "content-type": "application/json" };

/**
 * JSON already written for a tools array or a message: a replay sends the same registry on every
 * turn and its messages again on every later turn, so each is serialized once.
 */
const jsonCache = new WeakMap<object, string>();

function cachedJson(value: unknown): string {
  if (value === null || typeof value !== "object") return JSON.stringify(value) ?? "null";
  let json = jsonCache.get(value);
  if (json === undefined) jsonCache.set(value, (json = JSON.stringify(value)));
  return json;
}

/**
 * The request as `JSON.stringify` writes it: its own fields in its own order, `undefined` ones left
 * out, nothing added. Tools arrays and messages are cached by object, so neither may be changed
 * once sent (the engines only ever append new messages to a conversation).
 */
export function requestJson(request: ChatRequest): string {
  const parts: string[] = [];
  for (const [key, value] of Object.entries(request)) {
    if (value === undefined) continue;
    let json: string;
    if (key === "tools" && Array.isArray(value)) json = cachedJson(value);
    else if (key === "messages" && Array.isArray(value)) json = `[${value.map(cachedJson).join(",")}]`;
    else json = JSON.stringify(value);
    parts.push(`${JSON.stringify(key)}:${json}`);
  }
  return `{${parts.join(",")}}`;
}

const timeoutError = (target: Target, timeoutMs: number) =>
  new ProviderError({
    name: "APITimeoutError",
    kind: "timeout",
    message: `Request timed out: no answer from ${target.host} within ${timeoutMs} ms.`,
  });

function toProviderError(error: unknown, secrets: string[], target: Target, timeoutMs: number): ProviderError {
  if (error instanceof ProviderError) return error;
  // A redirect the destination policy refused was never requested: not a network failure, and the
  // same redirect would be refused on every try, so it is a bad request (not retried) saying why.
  const refused = causeOf(error, DestinationRefused);
  if (refused)
    return new ProviderError({
      name: "APIConnectionError",
      kind: "bad_request",
      message: `Connection error: destination refused, not sent: ${refused.message}`,
    });
  const status = causeOf(error, HttpStatus);
  if (status)
    return statusError(status.status, pythonStatusMessage(status.status, status.body), status.headers, secrets);
  if (error instanceof APIConnectionTimeoutError) return timeoutError(target, timeoutMs);
  if (
    error instanceof APIError &&
    typeof error.status === "number" &&
    !(error instanceof APIConnectionError) &&
    !(error instanceof APIUserAbortError)
  ) {
    return statusError(error.status, error.message, error.headers, secrets);
  }
  // A connection failure: wrapped by the package, or a fetch or runtime failure it did not wrap.
  return new ProviderError({
    name: "APIConnectionError",
    kind: "connection",
    message: scrubSecrets(connectionMessage(target, error), secrets),
  });
}

/** An error and its causes, outermost first (a few levels: runtimes nest them). */
function causeChain(error: unknown): Error[] {
  const chain: Error[] = [];
  for (let e: unknown = error; e instanceof Error && chain.length < 5; e = e.cause) chain.push(e);
  return chain;
}

function causeOf<E extends Error>(error: unknown, type: new (...args: never[]) => E): E | undefined {
  return causeChain(error).find((e): e is E => e instanceof type);
}

/**
 * The OpenAI Python SDK's message for an error status: `Error code: 400 - {'error': {...}}`, the
 * body parsed as JSON and written as Python's `str()` of it (so `None`, `True`, `1.0`, single
 * quotes); a body that is not JSON as its stripped text, or `Error code: 400` when empty.
 */
export function pythonStatusMessage(status: number, body: string): string {
  const text = body.trim();
  const parsed = parsePyJson(text);
  if (!parsed.ok) return text || `Error code: ${status}`;
  const v = parsed.value;
  return `Error code: ${status} - ${v.t === "str" ? v.v : pyRepr(v)}`;
}

/**
 * "Connection error: could not reach api.example.com:8443 (connection refused or closed by the host;
 * Network connection lost)": the host and, as far as the runtime tells, the cause. workerd reports a
 * refused or reset connection as "Network connection lost." and both a failed DNS lookup and a
 * failed TLS handshake as "internal error; reference = …", so those causes are named together; Node
 * (the CLI, tests) gives error codes that tell them apart.
 */
function connectionMessage(target: Target, error: unknown): string {
  const chain = causeChain(error);
  const details = [...new Set(chain.map((e) => e.message.replace(/\.$/, "")).filter(Boolean))];
  const all = details.join(" ");
  const codes = chain
    .map((e) => (e as { code?: unknown }).code)
    .filter((c) => typeof c === "string")
    .join(" ");
  let cause = "network error";
  if (/ECONNREFUSED|connection refused/i.test(codes + all)) cause = "connection refused";
  else if (/ENOTFOUND|EAI_AGAIN|getaddrinfo|DNS/i.test(codes + all)) cause = "DNS lookup failed";
  else if (/CERT|SSL|TLS|certificate|wrong version number|self[- ]signed/i.test(codes + all))
    cause = "TLS handshake failed";
  else if (/ETIMEDOUT|timed? ?out/i.test(codes + all)) cause = "connection timed out";
  else if (/ECONNRESET|socket hang up|Network connection lost|other side closed/i.test(codes + all))
    cause = "connection refused or closed by the host";
  else if (/internal error; reference/i.test(all))
    cause = target.https ? "DNS lookup or TLS handshake failed" : "DNS lookup failed or host unreachable";
  const detail = details.filter((m) => m !== "Connection error" && m !== "fetch failed");
  return `Connection error: could not reach ${target.host} (${cause}${detail.length ? `; ${detail.join(": ")}` : ""})`;
}

const STATUS_CLASSES: Record<number, [string, ProviderErrorKind]> = {
  400: ["BadRequestError", "bad_request"],
  401: ["AuthenticationError", "auth"],
  403: ["PermissionDeniedError", "auth"],
  404: ["NotFoundError", "bad_request"],
  408: ["APIStatusError", "transient"],
  409: ["ConflictError", "transient"],
  422: ["UnprocessableEntityError", "bad_request"],
  429: ["RateLimitError", "rate_limit"],
};

function statusError(status: number, message: string, headers: Headers | undefined, secrets: string[]): ProviderError {
  const [name, kind] =
    STATUS_CLASSES[status] ??
    (status >= 500 ? ["InternalServerError", "transient"] : ["APIStatusError", "bad_request"]);
  return new ProviderError({
    name,
    kind,
    status,
    message: scrubSecrets(message || `HTTP ${status}`, secrets),
    retryAfterMs: retryAfterMs(headers),
  });
}

/** `retry-after-ms` (non-standard, OpenAI), else `retry-after` as seconds or an HTTP date. */
export function retryAfterMs(headers: Headers | undefined, now: number = Date.now()): number | undefined {
  const ms = headers?.get("retry-after-ms");
  if (ms && Number.isFinite(Number(ms)) && Number(ms) >= 0) return Number(ms);
  const value = headers?.get("retry-after")?.trim();
  if (!value) return undefined;
  if (/^\d+(\.\d+)?$/.test(value)) return Number(value) * 1000;
  const date = Date.parse(value);
  return Number.isNaN(date) ? undefined : Math.max(0, date - now);
}

function invalidResponse(status: number, why: string, text: string, secrets: string[]): ProviderError {
  const snippet = text.length > 200 ? `${text.slice(0, 200)}…` : text;
  return new ProviderError({
    name: "APIResponseValidationError",
    kind: "transient",
    status,
    message: scrubSecrets(`The endpoint answered ${status} but ${why}: ${JSON.stringify(snippet)}`, secrets),
  });
}

const isObject = (v: unknown): v is Record<string, unknown> => typeof v === "object" && v !== null && !Array.isArray(v);

function parseCompletion(text: string, status: number, headers: Headers, secrets: string[]): ChatResponse {
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch {
    throw invalidResponse(status, "the body is not JSON", text, secrets);
  }
  if (!isObject(json)) throw invalidResponse(status, "the body is not a JSON object", text, secrets);
  if (!Array.isArray(json.choices)) {
    if (isObject(json.error)) {
      const code = json.error.code;
      // OpenRouter answers 2xx with the error in the body; it reads as that status would.
      if (typeof code === "number" && code >= 400)
        return throwError(statusError(code, pythonStatusMessage(code, text), headers, secrets));
    }
    throw invalidResponse(status, "the body is not a chat completion (no choices array)", text, secrets);
  }
  const choices = json.choices.map((choice, i) => {
    if (!isObject(choice) || !isObject(choice.message)) {
      throw invalidResponse(status, `choices[${i}] has no message object`, text, secrets);
    }
    const m = choice.message;
    const message: ChatResponse["choices"][number]["message"] = {
      ...(typeof m.role === "string" ? { role: m.role } : {}),
      content: typeof m.content === "string" ? m.content : null,
    };
    if (Array.isArray(m.tool_calls)) message.tool_calls = m.tool_calls.map(toToolCall);
    return {
      message,
      finish_reason: typeof choice.finish_reason === "string" ? choice.finish_reason : null,
    };
  });
  const response: ChatResponse = { choices };
  if (typeof json.id === "string") response.id = json.id;
  if (typeof json.model === "string") response.model = json.model;
  if (typeof json.system_fingerprint === "string" || json.system_fingerprint === null) {
    response.system_fingerprint = json.system_fingerprint;
  }
  if (typeof json.provider === "string") response.provider = json.provider;
  const usage = toUsage(json.usage);
  if (usage) response.usage = usage;
  return response;
}

function parseEmbeddings(text: string, status: number, expected: number, secrets: string[]): EmbeddingResponse {
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch {
    throw invalidResponse(status, "the body is not JSON", text, secrets);
  }
  if (!isObject(json) || !Array.isArray(json.data))
    throw invalidResponse(status, "the body is not an embeddings list (no data array)", text, secrets);
  if (json.data.length !== expected)
    throw invalidResponse(status, `it holds ${json.data.length} embeddings for ${expected} inputs`, text, secrets);
  const data: number[][] = new Array(expected);
  json.data.forEach((row, i) => {
    const index = isObject(row) && typeof row.index === "number" ? row.index : i;
    const vector = isObject(row) ? row.embedding : undefined;
    if (
      !Array.isArray(vector) ||
      vector.length === 0 ||
      !vector.every((x) => typeof x === "number" && Number.isFinite(x))
    ) {
      throw invalidResponse(status, `data[${i}].embedding is not a list of numbers`, text, secrets);
    }
    if (!Number.isInteger(index) || index < 0 || index >= expected || data[index])
      throw invalidResponse(status, `data[${i}].index is not a distinct input position`, text, secrets);
    data[index] = vector as number[];
  });
  if (data.some((v) => v.length !== data[0].length))
    throw invalidResponse(status, "its embeddings differ in length", text, secrets);
  const response: EmbeddingResponse = { data };
  if (typeof json.model === "string") response.model = json.model;
  if (isObject(json.usage)) {
    const prompt = typeof json.usage.prompt_tokens === "number" ? json.usage.prompt_tokens : 0;
    response.usage = {
      prompt_tokens: prompt,
      total_tokens: typeof json.usage.total_tokens === "number" ? json.usage.total_tokens : prompt,
    };
  }
  return response;
}

const throwError = (e: Error): never => {
  throw e;
};

/**
 * `arguments` is kept exactly as received when it is a string (or null). A non-conforming endpoint
 * that sends an object gets it JSON-serialised, the only way to honour the string contract.
 */
function toToolCall(raw: unknown): ToolCall {
  const tc = isObject(raw) ? raw : {};
  const fn = isObject(tc.function) ? tc.function : {};
  const args = fn.arguments;
  return {
    id: typeof tc.id === "string" ? tc.id : "",
    type: "function",
    function: {
      name: typeof fn.name === "string" ? fn.name : "",
      arguments: typeof args === "string" || args === null ? args : args === undefined ? null : JSON.stringify(args),
    },
  };
}

function toUsage(raw: unknown): Usage | undefined {
  if (!isObject(raw)) return undefined;
  const num = (v: unknown) => (typeof v === "number" && Number.isFinite(v) ? v : 0);
  const prompt = num(raw.prompt_tokens);
  const completion = num(raw.completion_tokens);
  const total = typeof raw.total_tokens === "number" ? raw.total_tokens : prompt + completion;
  return { prompt_tokens: prompt, completion_tokens: completion, total_tokens: total };
}

/**
 * Removes secrets from text that may be shown or stored: the given secrets in every form an endpoint
 * may echo them (src/engines/redact: as is, JSON-escaped at any depth, Python-repr'd, URL-encoded,
 * in parts of 12+ characters; a key under 8 characters only where it stands alone), then,
 * defensively, anything shaped like a key: `Bearer …`, `sk-…`, `api_key=…`.
 */
export function scrubSecrets(text: string, secrets: readonly string[] = []): string {
  return redactText(text, secrets)
    .replace(/\bBearer\s+[^\s"',;]+/gi, "Bearer [REDACTED]")
    .replace(/\bsk-[A-Za-z0-9_\-*.]{4,}/g, "sk-[REDACTED]")
    .replace(/\bassay_sk_[A-Za-z0-9_-]+/g, "assay_sk_[REDACTED]")
    .replace(/(api[_-]?key["']?\s*[:=]\s*["']?)[^\s"',;&}]+/gi, "$1[REDACTED]");
}
