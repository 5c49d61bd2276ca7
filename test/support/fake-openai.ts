/**
 * A fake OpenAI chat-completions server: a real HTTP server (node:http) for tests and benchmarks.
 * Start it in vitest's globalSetup (or a test file) and point the `openai` package at `url`.
 *
 * ## Endpoints
 * - `POST /v1/chat/completions`: the scenario is the request's `model` (= scenario id). An unknown
 *   model gets DEFAULT_SCENARIO (agent with 2 calls, no delay, no faults) and is recorded under its name.
 * - `POST /v1/embeddings`: the scenario is the request's `model` too; one vector per input (float
 *   lists, `index` in order): the scenario's `embedding` for every text if given, else a bag-of-words
 *   vector (each lower-cased word adds 1 to one of 16 dimensions by its FNV-1a hash). Faults apply
 *   with `turn` 0 and `attempt` counted per identical input list.
 * - `POST /_scenarios` with a `Scenario` as JSON: registers it (replacing one with the same id and
 *   forgetting its records). Answers 201 `{ id }`.
 * - `GET /_scenarios/:id/requests`: `{ id, requests: RecordedRequest[] }` in arrival order.
 * - `DELETE /_scenarios/:id`: forgets the scenario and its records. 204.
 * - `GET /_scenarios/:id/stats`: `ScenarioStats`, what the server sees of the scenario's requests now:
 *   `received` (all so far), `in_flight` (arrived and not yet answered, nor given up by the client),
 *   `max_in_flight` (the most in flight at once so far) and `held` (waiting for a release, below).
 * - `POST /_scenarios/:id/release`: answers the requests held by `hold_after` as they would have been
 *   answered (faults apply; `delay_ms` still counts from arrival) and holds no more. Answers 200
 *   `{ id, released }`.
 * Scenarios keep concurrent test files apart: give each test its own id (= model name).
 *
 * ## Rate limits
 * `rate_limit: { max_in_flight, status?, retry_after_ms?, drop_after?, then_max_in_flight? }` plays an
 * endpoint that accepts at most `max_in_flight` requests at once: a request arriving while that many
 * are being answered is refused at once with `status` (429 by default; 503 or 529 play an overloaded
 * endpoint) and, with `retry_after_ms`, the headers `retry-after-ms` and `retry-after` (whole seconds,
 * rounded up). After `drop_after` requests have arrived the limit becomes `then_max_in_flight` (a limit
 * that drops mid-run). Refused requests are recorded and counted like any other, and their answer
 * takes no `delay_ms`. The stats then say what the endpoint saw:
 * - `rate_limited`: requests refused;
 * - `max_admitted`: the most requests being answered (not refused) at once;
 * - `early`: requests that arrived before the `Retry-After` told to an earlier identical request (same
 *   turn and conversation, as `attempt` counts them) had passed, counted from when that answer was sent;
 * - `early_any`: requests of any conversation that arrived before the latest `Retry-After` told to anyone.
 *
 * ## Scenario
 * ```
 * { id: "my-test",
 *   agent?: { calls?: 2, pick?: "round_robin" | "first", answer?: "done" },
 *   text?: "…",                // the answer to a request without tools (default "ok")
 *   answers?: [{ contains, content }], // without tools: the first whose `contains` is in the last
 *                              // user message answers `content` (else `text`)
 *   delay_ms?: 0,              // every response is sent this long after its request arrived
 *   system_fingerprint?: "fp_fake", provider?: "…", // provider: top-level field, as OpenRouter sends
 *   record?: true,             // false: keep no request log (long benchmarks)
 *   embedding?: [1, 0],        // /v1/embeddings: this vector for every input
 *   hold_after?: 0,            // requests after the first N are held (recorded, in flight, not
 *                              // answered) until POST /_scenarios/:id/release; 0: every request
 *   echo_key?: true,           // fill the key placeholders below into the answer (a leaky endpoint)
 *   rate_limit?: { max_in_flight, status?, retry_after_ms?, drop_after?, then_max_in_flight? }, // above
 *   faults?: FaultRule[] }
 * ```
 *
 * ## Echoing the key
 * With `echo_key: true`, the scenario plays an endpoint that repeats the key it was sent (issue 14,
 * "Keys kept where they should not be"): in every string of the answer it gives (`text`,
 * `answers[].content`, `agent.answer`, and a fault's `body` strings, `raw`, `arguments`, `content`),
 * each placeholder becomes the bearer token of the request's `Authorization` header:
 * `{{key}}` as is, `{{key_json}}` JSON-escaped (for raw JSON texts: `raw`, `arguments`), `{{key_url}}`
 * URL-encoded, `{{key_head}}` / `{{key_tail}}` its first / second half. The body is then written as
 * usual, so a `{{key}}` in a `body` string reaches the client JSON-escaped, as a real error body would.
 * Without `echo_key`, placeholders are plain text.
 * The agent: "turn" = number of assistant messages already in the request. While turn < calls it
 * answers one tool call (tool picked round-robin by turn over the request's tools other than
 * `final_answer`, or always the first with `pick: "first"`), arguments built from the tool's required
 * parameters (`"v<turn>"` for strings, `<turn>` for numbers, the first enum value, `true`) and
 * serialised with a space after `:` and `,` so a client that re-serialises them is caught. Then it calls
 * `final_answer` with `{"answer": …}` if that tool is offered, else it answers `content` with finish_reason
 * "stop". Without tools it answers `text`.
 *
 * ## Faults
 * `faults` is a list of `{ on?: {turn?, attempt?, nth?}, respond: {…} }`; the first rule whose every
 * given condition holds applies (no `on` = every request).
 * - `turn`: the request's turn (above).
 * - `attempt`: 1-based count of identical requests: requests of this scenario with the same turn and the
 *   same conversation (a hash of `messages`). A client's retry is attempt 2; another replay of the same
 *   conversation is too, so give replays distinct conversations (or scenarios) where that matters.
 * - `nth`: 1-based count of all requests of the scenario.
 * `respond` (all optional, combinable where it makes sense):
 * - `status` + `body` (any JSON) + `headers`: an HTTP answer, e.g. `{status: 429, headers: {"retry-after": "1"}}`.
 *   A status ≥ 400 without `body` gets an OpenAI-style `{error: {message, type, code}}`.
 * - `hang: true`: never answers (until the client gives up or the server closes).
 * - `raw: "…"`: this text as the body, with content-type application/json (e.g. malformed JSON).
 * - `empty_choices: true`: a normal completion with `choices: []`.
 * - `tool_name: "x"`: the agent calls tool `x` instead (e.g. a name outside the registry).
 * - `arguments: "…"`: the raw `function.arguments` string of that tool call.
 * - `content: "…"`: prose, no tool calls (finish_reason "stop").
 * - `delay_ms`: overrides the scenario's delay for this response.
 *
 * Examples: 500 then 200 for the same request: `faults: [{on: {attempt: 1}, respond: {status: 500}}]`.
 * 429 with Retry-After then 200: `[{on: {attempt: 1}, respond: {status: 429, headers: {"retry-after": "1"}}}]`.
 *
 * Recorded requests: `{ nth, at (epoch ms), turn, attempt, fingerprint, headers, body }`; header names
 * lower-case, `authorization` redacted to `"***" + its last 4 characters`.
 *
 * Holding and the stats let a test wait on what the endpoint sees rather than on the clock: "both
 * lanes are inside a model call" is `held === 2`, "calls were served concurrently" is
 * `max_in_flight`. A request stops being in flight the moment its answer is written (before the
 * client can send its next one) or its connection closes, so `max_in_flight` never counts one
 * client's consecutive calls as simultaneous.
 *
 * This module imports node:http lazily inside `startFakeOpenAI`, so the control helpers
 * (`registerScenario`, …, plain `fetch`) can be imported from workerd tests too.
 */
import type { IncomingMessage, Server, ServerResponse } from "node:http";

export type FaultRule = {
  on?: { turn?: number; attempt?: number; nth?: number };
  respond: {
    status?: number;
    body?: unknown;
    headers?: Record<string, string>;
    hang?: true;
    raw?: string;
    empty_choices?: true;
    tool_name?: string;
    arguments?: string;
    content?: string;
    delay_ms?: number;
  };
};

export type Scenario = {
  id: string;
  agent?: { calls?: number; pick?: "round_robin" | "first"; answer?: string };
  text?: string;
  answers?: { contains: string; content: string }[];
  delay_ms?: number;
  system_fingerprint?: string;
  provider?: string;
  record?: boolean;
  faults?: FaultRule[];
  /** `/v1/embeddings`: this vector for every input. */
  embedding?: number[];
  /** Requests after the first `hold_after` are held until `POST /_scenarios/:id/release` (0: every request). */
  hold_after?: number;
  /** Fill `{{key}}`, `{{key_json}}`, `{{key_url}}`, `{{key_head}}`, `{{key_tail}}` in the answer with the request's key. */
  echo_key?: true;
  /** An endpoint that refuses requests above an in-flight limit (see "Rate limits"). */
  rate_limit?: RateLimit;
};

export type RateLimit = {
  max_in_flight: number;
  /** The refusal's status: 429 (default), or 503 / 529 for an overloaded endpoint. */
  status?: number;
  /** Sent as `retry-after-ms` and `retry-after` (seconds, rounded up) with each refusal. */
  retry_after_ms?: number;
  /** After this many requests have arrived, the limit is `then_max_in_flight`. */
  drop_after?: number;
  then_max_in_flight?: number;
};

/** `GET /_scenarios/:id/stats`: the scenario's requests as the server sees them now. */
export type ScenarioStats = {
  id: string;
  received: number;
  in_flight: number;
  max_in_flight: number;
  held: number;
  /** Only with `rate_limit`: requests refused, the most admitted at once, and arrivals before a `Retry-After` (see "Rate limits"). */
  rate_limited?: number;
  max_admitted?: number;
  early?: number;
  early_any?: number;
};

export type RecordedRequest = {
  nth: number;
  at: number;
  turn: number;
  attempt: number;
  fingerprint: string;
  headers: Record<string, string>;
  body: unknown;
};

export type FakeOpenAI = { url: string; close(): Promise<void>; server: Server };

export const DEFAULT_SCENARIO: Omit<Scenario, "id"> = { agent: { calls: 2 } };

type State = {
  scenario: Scenario;
  nth: number;
  attempts: Map<string, number>;
  requests: RecordedRequest[];
  inFlight: number;
  maxInFlight: number;
  /** Wakes each held request; a request leaves the set when released or when its client gives up. */
  held: Set<() => void>;
  released: boolean;
  /** `rate_limit`: requests being answered (not refused), the most at once, refusals, and the Retry-After deadlines told. */
  admitted: number;
  maxAdmitted: number;
  rateLimited: number;
  told: Map<string, number>;
  toldAny: number;
  early: number;
  earlyAny: number;
};

type Tool = { type?: string; function?: { name?: string; parameters?: unknown } };
type Message = { role?: string; content?: unknown };

/** Starts the server; `url` is the OpenAI base URL (`http://host:port/v1`). */
export async function startFakeOpenAI({
  port = 0,
  host = "127.0.0.1",
}: {
  port?: number;
  host?: string;
} = {}): Promise<FakeOpenAI> {
  const http = await import("node:http");
  const states = new Map<string, State>();
  const stateFor = (id: string, scenario?: Scenario): State => {
    let s = states.get(id);
    if (!s || scenario) {
      // A replaced scenario's held requests are answered rather than left hanging.
      if (s) release(s);
      s = {
        scenario: scenario ?? { id, ...DEFAULT_SCENARIO },
        nth: 0,
        attempts: new Map(),
        requests: [],
        inFlight: 0,
        maxInFlight: 0,
        held: new Set(),
        released: false,
        admitted: 0,
        maxAdmitted: 0,
        rateLimited: 0,
        told: new Map(),
        toldAny: 0,
        early: 0,
        earlyAny: 0,
      };
      states.set(id, s);
    }
    return s;
  };

  const server = http.createServer((req, res) => {
    handle(req, res).catch((err: unknown) => {
      if (!res.headersSent) send(res, 500, { error: { message: String(err), type: "fake_server_error" } });
    });
  });
  // Benchmarks open many keep-alive connections; nothing here should throttle them.
  server.keepAliveTimeout = 30_000;
  server.maxRequestsPerSocket = 0;

  async function handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const url = new URL(req.url ?? "/", "http://fake");
    const path = url.pathname;
    if (req.method === "POST" && path === "/_scenarios") {
      const scenario = JSON.parse(await readBody(req)) as Scenario;
      if (typeof scenario.id !== "string" || !scenario.id) return send(res, 400, { error: "id required" });
      stateFor(scenario.id, scenario);
      return send(res, 201, { id: scenario.id });
    }
    const m = /^\/_scenarios\/([^/]+)(\/requests|\/stats|\/release)?$/.exec(path);
    if (m) {
      const id = decodeURIComponent(m[1]);
      if (req.method === "GET" && m[2] === "/requests")
        return send(res, 200, { id, requests: states.get(id)?.requests ?? [] });
      if (req.method === "GET" && m[2] === "/stats") {
        const s = states.get(id);
        const stats: ScenarioStats = {
          id,
          received: s?.nth ?? 0,
          in_flight: s?.inFlight ?? 0,
          max_in_flight: s?.maxInFlight ?? 0,
          held: s?.held.size ?? 0,
          ...(s?.scenario.rate_limit
            ? { rate_limited: s.rateLimited, max_admitted: s.maxAdmitted, early: s.early, early_any: s.earlyAny }
            : {}),
        };
        return send(res, 200, stats);
      }
      if (req.method === "POST" && m[2] === "/release") {
        const s = states.get(id);
        return send(res, 200, { id, released: s ? release(s) : 0 });
      }
      if (req.method === "DELETE" && !m[2]) {
        states.delete(id);
        res.writeHead(204).end();
        return;
      }
    }
    if (req.method === "POST" && /\/chat\/completions$/.test(path)) return completion(req, res);
    if (req.method === "POST" && /\/embeddings$/.test(path)) return embeddings(req, res);
    send(res, 404, { error: { message: `no route ${req.method} ${path}`, type: "invalid_request_error" } });
  }

  /** Answers the scenario's held requests and holds no more; returns how many were held. */
  function release(state: State): number {
    state.released = true;
    const held = [...state.held];
    state.held.clear();
    for (const wake of held) wake();
    return held.length;
  }

  /**
   * Counts the request in flight until its answer is written (see `sendRaw`) or its connection
   * closes, whichever comes first.
   */
  function track(state: State, res: ServerResponse): void {
    state.inFlight++;
    state.maxInFlight = Math.max(state.maxInFlight, state.inFlight);
    let done = false;
    const leave = () => {
      if (done) return;
      done = true;
      state.inFlight--;
    };
    answered.set(res, leave);
    res.once("close", leave);
  }

  /** With `hold_after`, waits for the scenario's release (or the client giving up). */
  async function hold(state: State, res: ServerResponse, nth: number): Promise<void> {
    const after = state.scenario.hold_after;
    if (after === undefined || state.released || nth <= after) return;
    await new Promise<void>((resolve) => {
      const wake = () => {
        state.held.delete(wake);
        res.off("close", wake);
        resolve();
      };
      state.held.add(wake);
      res.once("close", wake);
    });
  }

  /** Records the request and finds the fault rule that applies to it (shared by both endpoints). */
  function arrive(
    state: State,
    req: IncomingMessage,
    res: ServerResponse,
    at: number,
    turn: number,
    fingerprint: string,
    body: unknown,
  ): { rule: FaultRule["respond"] | undefined; nth: number; key: string } {
    const key = `${turn}:${fingerprint}`;
    const attempt = (state.attempts.get(key) ?? 0) + 1;
    state.attempts.set(key, attempt);
    const nth = ++state.nth;
    track(state, res);
    if (state.scenario.record !== false)
      state.requests.push({ nth, at, turn, attempt, fingerprint, headers: recordedHeaders(req), body });
    const rule = state.scenario.faults?.find(
      ({ on = {} }) =>
        (on.turn === undefined || on.turn === turn) &&
        (on.attempt === undefined || on.attempt === attempt) &&
        (on.nth === undefined || on.nth === nth),
    )?.respond;
    return { rule, nth, key };
  }

  /**
   * With `rate_limit`: refuses the request if the endpoint is at its limit (true: answered), else
   * counts it admitted until its answer. Either way checks it against the Retry-After deadlines told.
   */
  function rateLimit(state: State, res: ServerResponse, key: string, nth: number): boolean {
    const limit = state.scenario.rate_limit;
    if (!limit) return false;
    const now = Date.now();
    if (now < (state.told.get(key) ?? 0)) state.early++;
    if (now < state.toldAny) state.earlyAny++;
    const max =
      limit.drop_after !== undefined && nth > limit.drop_after
        ? (limit.then_max_in_flight ?? limit.max_in_flight)
        : limit.max_in_flight;
    if (state.admitted >= max) {
      state.rateLimited++;
      const status = limit.status ?? 429;
      const headers: Record<string, string> = {};
      if (limit.retry_after_ms !== undefined) {
        headers["retry-after-ms"] = String(limit.retry_after_ms);
        headers["retry-after"] = String(Math.ceil(limit.retry_after_ms / 1000));
        // From the moment the answer is sent: the client cannot know before.
        const deadline = Date.now() + limit.retry_after_ms;
        state.told.set(key, Math.max(state.told.get(key) ?? 0, deadline));
        state.toldAny = Math.max(state.toldAny, deadline);
      }
      const type = status === 429 ? "rate_limit_exceeded" : "overloaded_error";
      send(
        res,
        status,
        {
          error: {
            message: status === 429 ? "Rate limit reached: too many requests in flight." : "Overloaded",
            type,
            code: status,
          },
        },
        headers,
      );
      return true;
    }
    state.admitted++;
    state.maxAdmitted = Math.max(state.maxAdmitted, state.admitted);
    let done = false;
    const leave = () => {
      if (done) return;
      done = true;
      state.admitted--;
    };
    const before = answered.get(res);
    answered.set(res, () => {
      leave();
      before?.();
    });
    res.once("close", leave);
    return false;
  }

  /** Sends a fault's HTTP answer; true if one was sent (or the request is left hanging). */
  async function fault(
    res: ServerResponse,
    rule: FaultRule["respond"] | undefined,
    delay: number,
    at: number,
  ): Promise<boolean> {
    if (rule?.hang) return true; // the socket stays open until the client aborts or close() destroys it
    // Counted from the request's arrival, so the server's own reading and parsing are not added to
    // the delay (under a burst of requests they would be, one after another).
    const wait = at + delay - Date.now();
    if (delay > 0 && wait > 0) await new Promise((r) => setTimeout(r, wait));
    if (res.destroyed) return true;
    const headers = rule?.headers ?? {};
    if (rule?.raw !== undefined) return (sendRaw(res, rule.status ?? 200, rule.raw, headers), true);
    if (rule?.body !== undefined) return (send(res, rule.status ?? 200, rule.body, headers), true);
    if (rule?.status !== undefined && rule.status >= 400) {
      return (
        send(
          res,
          rule.status,
          { error: { message: `fake error ${rule.status}`, type: "fake_error", code: rule.status } },
          headers,
        ),
        true
      );
    }
    return false;
  }

  async function embeddings(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const at = Date.now();
    const text = await readBody(req);
    let body: { model?: unknown; input?: unknown };
    try {
      body = JSON.parse(text);
    } catch {
      return send(res, 400, {
        error: { message: "We could not parse the JSON body of your request.", type: "invalid_request_error" },
      });
    }
    const model = typeof body.model === "string" ? body.model : "";
    const inputs = Array.isArray(body.input)
      ? body.input.map(String)
      : typeof body.input === "string"
        ? [body.input]
        : [];
    const state = stateFor(model);
    const arrived = arrive(state, req, res, at, 0, fnv1a(JSON.stringify(inputs)), body);
    const { nth } = arrived;
    const rule = echoKey(state.scenario, req, arrived.rule);
    await hold(state, res, nth);
    if (await fault(res, rule, rule?.delay_ms ?? state.scenario.delay_ms ?? 0, at)) return;
    const tokens = inputs.reduce((n, t) => n + Math.ceil(t.length / 4), 0);
    send(
      res,
      200,
      {
        object: "list",
        model,
        data: inputs.map((t, index) => ({
          object: "embedding",
          index,
          embedding: state.scenario.embedding ?? bagOfWords(t),
        })),
        usage: { prompt_tokens: tokens, total_tokens: tokens },
      },
      rule?.headers ?? {},
    );
  }

  async function completion(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const at = Date.now();
    const text = await readBody(req);
    let body: { model?: unknown; messages?: Message[]; tools?: Tool[] };
    try {
      body = JSON.parse(text);
    } catch {
      return send(res, 400, {
        error: { message: "We could not parse the JSON body of your request.", type: "invalid_request_error" },
      });
    }
    const model = typeof body.model === "string" ? body.model : "";
    const state = stateFor(model);
    const scenario = echoKey(state.scenario, req, state.scenario);
    const messages = Array.isArray(body.messages) ? body.messages : [];
    const turn = messages.filter((msg) => msg?.role === "assistant").length;
    const arrived = arrive(state, req, res, at, turn, fnv1a(JSON.stringify(messages)), body);
    const { nth } = arrived;
    if (rateLimit(state, res, arrived.key, nth)) return;
    const rule = echoKey(state.scenario, req, arrived.rule);
    await hold(state, res, nth);
    if (await fault(res, rule, rule?.delay_ms ?? scenario.delay_ms ?? 0, at)) return;
    const headers = rule?.headers ?? {};
    const choice = answer(scenario, body.tools, turn, rule, messages);
    const completionText = JSON.stringify(choice.message);
    send(
      res,
      rule?.status ?? 200,
      {
        id: `chatcmpl-fake-${nth}`,
        object: "chat.completion",
        created: Math.floor(at / 1000),
        model,
        system_fingerprint: scenario.system_fingerprint ?? "fp_fake",
        ...(scenario.provider ? { provider: scenario.provider } : {}),
        choices: rule?.empty_choices ? [] : [{ index: 0, ...choice, logprobs: null }],
        usage: {
          prompt_tokens: Math.ceil(text.length / 4),
          completion_tokens: Math.ceil(completionText.length / 4),
          total_tokens: Math.ceil(text.length / 4) + Math.ceil(completionText.length / 4),
        },
      },
      headers,
    );
  }

  await new Promise<void>((resolve, reject) => {
    server.once("error", reject);
    server.listen(port, host, () => resolve());
  });
  const address = server.address();
  const actualPort = typeof address === "object" && address ? address.port : port;
  return {
    url: `http://${host}:${actualPort}/v1`,
    server,
    close: () =>
      new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections(); // hanging requests included
      }),
  };
}

type Choice = { message: Record<string, unknown>; finish_reason: string };

function answer(
  scenario: Scenario,
  tools: Tool[] | undefined,
  turn: number,
  rule: FaultRule["respond"] | undefined,
  messages: Message[],
): Choice {
  if (rule?.content !== undefined)
    return { message: { role: "assistant", content: rule.content }, finish_reason: "stop" };
  const named = (Array.isArray(tools) ? tools : []).filter((t) => typeof t?.function?.name === "string");
  if (named.length === 0) {
    const last = [...messages].reverse().find((m) => m?.role === "user");
    const userText = typeof last?.content === "string" ? last.content : "";
    const hit = scenario.answers?.find((a) => userText.includes(a.contains));
    return { message: { role: "assistant", content: hit?.content ?? scenario.text ?? "ok" }, finish_reason: "stop" };
  }
  const agent = { ...DEFAULT_SCENARIO.agent, ...scenario.agent };
  const calls = agent.calls ?? 2;
  const work = named.filter((t) => t.function!.name !== "final_answer");
  const final = named.find((t) => t.function!.name === "final_answer");
  let tool: Tool | undefined;
  let args: string;
  if (turn < calls && work.length > 0) {
    tool = agent.pick === "first" ? work[0] : work[turn % work.length];
    args = argumentsFor(tool.function!.parameters, turn);
  } else if (final) {
    tool = final;
    args = `{"answer": ${JSON.stringify(agent.answer ?? "done")}}`;
  } else {
    return { message: { role: "assistant", content: agent.answer ?? "done" }, finish_reason: "stop" };
  }
  const name = rule?.tool_name ?? tool.function!.name!;
  return {
    message: {
      role: "assistant",
      content: null,
      tool_calls: [{ id: `call_${turn}_0`, type: "function", function: { name, arguments: rule?.arguments ?? args } }],
    },
    finish_reason: "tool_calls",
  };
}

/** Required parameters only, written with spaces (`{"q": "v1", "n": 1}`) so raw strings are recognisable. */
function argumentsFor(parameters: unknown, turn: number): string {
  const schema = (parameters ?? {}) as {
    properties?: Record<string, { type?: string; enum?: unknown[] }>;
    required?: string[];
  };
  const props = schema.properties ?? {};
  const parts = (schema.required ?? []).map((name) => {
    const p = props[name] ?? {};
    const value = p.enum?.length
      ? p.enum[0]
      : p.type === "integer" || p.type === "number"
        ? turn
        : p.type === "boolean"
          ? true
          : p.type === "array"
            ? []
            : p.type === "object"
              ? {}
              : `v${turn}`;
    return `${JSON.stringify(name)}: ${JSON.stringify(value)}`;
  });
  return `{${parts.join(", ")}}`;
}

/**
 * With the scenario's `echo_key`, a copy of `value` (the scenario or a fault's answer) whose strings
 * have the key placeholders filled with the request's bearer token; otherwise `value` itself.
 */
function echoKey<T>(scenario: Scenario, req: IncomingMessage, value: T): T {
  if (!scenario.echo_key || value === undefined) return value;
  const header = req.headers.authorization ?? "";
  const key = header.replace(/^Bearer\s+/i, "");
  const half = Math.ceil(key.length / 2);
  const forms: Record<string, string> = {
    key,
    key_json: JSON.stringify(key).slice(1, -1),
    key_url: encodeURIComponent(key),
    key_head: key.slice(0, half),
    key_tail: key.slice(half),
  };
  const fill = (v: unknown): unknown =>
    typeof v === "string"
      ? v.replace(/\{\{(key(?:_json|_url|_head|_tail)?)\}\}/g, (_, name: string) => forms[name])
      : Array.isArray(v)
        ? v.map(fill)
        : v !== null && typeof v === "object"
          ? Object.fromEntries(Object.entries(v).map(([k, x]) => [k, fill(x)]))
          : v;
  return fill(value) as T;
}

function recordedHeaders(req: IncomingMessage): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [name, value] of Object.entries(req.headers)) {
    if (value === undefined) continue;
    const v = Array.isArray(value) ? value.join(", ") : value;
    out[name] = name === "authorization" ? `***${v.slice(-4)}` : v;
  }
  return out;
}

function readBody(req: IncomingMessage): Promise<string> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    req.on("data", (c: Buffer) => chunks.push(c));
    req.on("end", () => resolve(Buffer.concat(chunks).toString("utf8")));
    req.on("error", reject);
  });
}

function send(res: ServerResponse, status: number, body: unknown, headers: Record<string, string> = {}): void {
  sendRaw(res, status, JSON.stringify(body), headers);
}

/** How a model request leaves the in-flight count once answered (set by `track`). */
const answered = new WeakMap<ServerResponse, () => void>();

function sendRaw(res: ServerResponse, status: number, text: string, headers: Record<string, string> = {}): void {
  if (res.destroyed) return;
  // Before the answer is written, so the client's next request can never overlap this one in the count.
  answered.get(res)?.();
  res.writeHead(status, { "content-type": "application/json", "content-length": Buffer.byteLength(text), ...headers });
  res.end(text);
}

function bagOfWords(text: string): number[] {
  const v = new Array<number>(16).fill(0);
  for (const w of text.toLowerCase().split(/[^a-z0-9]+/)) if (w) v[parseInt(fnv1a(w), 16) % 16] += 1;
  return v;
}

/** FNV-1a 32-bit, hex: enough to tell conversations apart. */
function fnv1a(text: string): string {
  let h = 0x811c9dc5;
  for (let i = 0; i < text.length; i++) {
    h ^= text.charCodeAt(i);
    h = Math.imul(h, 0x01000193);
  }
  return (h >>> 0).toString(16).padStart(8, "0");
}

// ---- control helpers (plain fetch; usable from Node and workerd) ----

const origin = (baseURL: string) => new URL(baseURL).origin;

/** Registers (or replaces) a scenario on the fake server whose OpenAI base URL is `baseURL`. */
export async function registerScenario(baseURL: string, scenario: Scenario): Promise<void> {
  const res = await fetch(`${origin(baseURL)}/_scenarios`, {
    method: "POST",
    headers: { "content-type": "application/json" },
    body: JSON.stringify(scenario),
  });
  if (res.status !== 201) throw new Error(`registerScenario: ${res.status} ${await res.text()}`);
  await res.text();
}

/** The requests the scenario received so far, in arrival order. */
export async function recordedRequests(baseURL: string, id: string): Promise<RecordedRequest[]> {
  const res = await fetch(`${origin(baseURL)}/_scenarios/${encodeURIComponent(id)}/requests`);
  return ((await res.json()) as { requests: RecordedRequest[] }).requests;
}

/** The scenario's requests as the server sees them now (received, in flight, the most at once, held). */
export async function scenarioStats(baseURL: string, id: string): Promise<ScenarioStats> {
  const res = await fetch(`${origin(baseURL)}/_scenarios/${encodeURIComponent(id)}/stats`);
  return (await res.json()) as ScenarioStats;
}

/** Answers the scenario's held requests (see `hold_after`) and holds no more; returns how many were held. */
export async function releaseScenario(baseURL: string, id: string): Promise<number> {
  const res = await fetch(`${origin(baseURL)}/_scenarios/${encodeURIComponent(id)}/release`, { method: "POST" });
  if (res.status !== 200) throw new Error(`releaseScenario: ${res.status} ${await res.text()}`);
  return ((await res.json()) as { released: number }).released;
}

export async function deleteScenario(baseURL: string, id: string): Promise<void> {
  const res = await fetch(`${origin(baseURL)}/_scenarios/${encodeURIComponent(id)}`, { method: "DELETE" });
  await res.text();
}
