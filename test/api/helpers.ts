import { TestRunner, vi } from "vitest";
import { env, exports } from "cloudflare:workers";
import { registerScenario, type Scenario } from "../support/fake-openai.ts";
import { receivedHooks } from "../support/webhook-receiver.ts";
import { openDb } from "../../src/db/client.ts";
import { insertRun } from "../../src/db/runs.ts";
import { newId } from "../../src/ids.ts";

export const ADMIN_TOKEN = "test-admin-token";

/** vi.waitFor options for conditions the Worker reaches on its own schedule (alarms, queues, lanes). */
export const WAIT = { timeout: 20_000, interval: 50 };

/** Sends a request through the Worker's own fetch handler, as a client would. */
export function call(path: string, init: RequestInit = {}): Promise<Response> {
  return exports.default.fetch(new Request(`http://assay.test${path}`, init));
}

/** A JSON request with a bearer token. */
export function send(method: string, path: string, token: string | undefined, body?: unknown): Promise<Response> {
  const headers: Record<string, string> = {};
  if (token) headers.Authorization = `Bearer ${token}`;
  if (body !== undefined) headers["Content-Type"] = "application/json";
  return call(path, { method, headers, body: body === undefined ? undefined : JSON.stringify(body) });
}

/** Creates a tenant through the operator API and returns its id and first key. */
export async function newTenant(name = "acme"): Promise<{ tenantId: string; key: string; keyId: string }> {
  const res = await send("POST", "/v1/admin/tenants", ADMIN_TOKEN, { name });
  if (res.status !== 201) throw new Error(`tenant creation failed: ${res.status} ${await res.text()}`);
  const body = (await res.json()) as { id: string; api_key: { id: string; key: string } };
  return { tenantId: body.id, key: body.api_key.key, keyId: body.api_key.id };
}

export type ProblemJson = {
  type: string;
  title: string;
  status: number;
  detail: string;
  request_id: string;
  errors?: { path: string; message: string }[];
};

/** Asserts-by-throwing that a response is problem+json with the status, and returns its body. */
export async function problem(res: Response, status: number): Promise<ProblemJson> {
  const text = await res.text();
  if (res.status !== status) throw new Error(`expected ${status}, got ${res.status}: ${text}`);
  const type = res.headers.get("content-type");
  if (type !== "application/problem+json") throw new Error(`expected problem+json, got ${type}`);
  const body = JSON.parse(text) as ProblemJson;
  if (body.status !== status) throw new Error(`body.status ${body.status} != ${status}`);
  if (body.request_id !== res.headers.get("x-request-id")) throw new Error("request_id does not match the header");
  return body;
}

export type RunJson = {
  id: string;
  status: string;
  progress: { done: number; failed: number; total: number };
  config: Record<string, unknown>;
  result: any;
  error: string | null;
  links: Record<string, string>;
};

/**
 * Polls a run through the API until it reaches a final state. It gives up after `timeoutMs`, or
 * just before the current test's own timeout if that comes first, and then fails with the run's
 * last state (status, progress, error), not a bare "Test timed out". The deadline is generous: a
 * run's speed is not what a test that waits for it checks, and a busy machine is slow.
 */
export async function waitForRun(key: string, id: string, timeoutMs = 120_000): Promise<RunJson> {
  const started = Date.now();
  const test = TestRunner.getCurrentTest();
  // One poll (a GET and a 100 ms pause) fits in the margin, so this fails before the runner does.
  const testEnds = test?.timeout ? (test.result?.startTime ?? started) + test.timeout - 300 : Infinity;
  const until = Math.min(started + timeoutMs, testEnds);
  for (;;) {
    const res = await send("GET", `/v1/runs/${id}`, key);
    if (res.status !== 200)
      throw new Error(`waitForRun: GET /v1/runs/${id} answered ${res.status}: ${await res.text()}`);
    const run = (await res.json()) as RunJson;
    if (["succeeded", "failed", "canceled"].includes(run.status)) return run;
    if (Date.now() > until) {
      const last = JSON.stringify({ status: run.status, progress: run.progress, error: run.error });
      throw new Error(`waitForRun: run ${id} did not end within ${Date.now() - started} ms; last seen ${last}`);
    }
    await new Promise((r) => setTimeout(r, 100));
  }
}

/** Creates a chain-determinism run and returns its JSON (asserting 202). */
export async function startRun(
  key: string,
  body: Record<string, unknown>,
  headers: Record<string, string> = {},
): Promise<RunJson> {
  const res = await call("/v1/chain-determinism/runs", {
    method: "POST",
    headers: { Authorization: `Bearer ${key}`, "Content-Type": "application/json", ...headers },
    body: JSON.stringify(body),
  });
  const text = await res.text();
  if (res.status !== 202) throw new Error(`run creation: ${res.status} ${text}`);
  return JSON.parse(text) as RunJson;
}

/** Creates a reasoning-quality run and returns its JSON (asserting 202). */
export async function startRq(key: string, body: Record<string, unknown>): Promise<RunJson> {
  const res = await send("POST", "/v1/reasoning-quality/runs", key, body);
  const text = await res.text();
  if (res.status !== 202) throw new Error(`rq run: ${res.status} ${text}`);
  return JSON.parse(text) as RunJson;
}

let scenarios = 0;
/** Registers a scenario with a fresh id on the fake OpenAI server and returns the id (the model name). */
export async function fakeScenario(s: Omit<Scenario, "id">, prefix = "scn"): Promise<string> {
  const id = `${prefix}-${Date.now()}-${scenarios++}`;
  await registerScenario(env.FAKE_OPENAI_URL, { id, ...s });
  return id;
}

/**
 * Writes a run row straight into D1, with no coordinator behind it: the state a crash between the
 * two writes of a create leaves (row stored, start never sent). `createdAt` places it before or
 * after the grace period a lost start is given.
 */
export async function insertRunRow(
  tenantId: string,
  row: {
    status?: "queued" | "running";
    createdAt?: Date;
    webhookUrl?: string | null;
    total?: number;
    done?: number;
  } = {},
): Promise<string> {
  const id = newId("run", (row.createdAt ?? new Date()).getTime());
  await insertRun(openDb(env.DB), {
    id,
    tenantId,
    evaluator: "chain-determinism",
    status: row.status ?? "queued",
    config: { model: "sim:agent" },
    done: row.done ?? 0,
    failed: 0,
    total: row.total ?? 4,
    webhookUrl: row.webhookUrl ?? null,
    createdAt: row.createdAt ?? new Date(),
    startedAt: row.status === "running" ? new Date() : null,
  });
  return id;
}

/** A tenant with a webhook secret, and a hook id (and its URL) on the test receiver. */
export async function tenantWithHook(name: string) {
  const tenant = await newTenant();
  await send("POST", "/v1/webhooks/secret", tenant.key);
  const hook = `${name}-${Date.now()}`;
  return { ...tenant, hook, url: `${env.WEBHOOK_RECEIVER_URL}/hooks/${hook}` };
}

/** The event types the receiver got on `hook`, once it has at least one. */
export async function hookEvents(hook: string): Promise<string[]> {
  return vi.waitFor(async () => {
    const got = await receivedHooks(env.WEBHOOK_RECEIVER_URL, hook);
    if (got.length === 0) throw new Error(`no delivery on ${hook} yet`);
    return got.map((h) => (JSON.parse(h.body) as { type: string }).type);
  }, WAIT);
}
