// Issue 14: webhook delivery under faults. Item 7: one hanging receiver delayed other runs' deliveries
// (a Queue consumer batch waits for its slowest fetch, and locally the queue runs one batch at a time).
// Item 2: pending retries did not survive a restart of the local server (the Queue kept them in memory).
// Item 4: a destination the policy refuses is not sent to at delivery time either.
import { describe, expect, it, vi } from "vitest";
import { env } from "cloudflare:workers";
import { runInDurableObject } from "cloudflare:test";
import { openDb } from "../../src/db/client.ts";
import { insertRun } from "../../src/db/runs.ts";
import { newId } from "../../src/ids.ts";
import { deliverWebhook } from "../../src/runs/webhooks/deliver.ts";
import { configureHook, receivedHooks, releaseHook } from "../support/webhook-receiver.ts";
import { newTenant, send, startRun, waitForRun, WAIT } from "./helpers.ts";

type Delivery = {
  message_id: string;
  attempt: number;
  status: string;
  response_status: number | null;
  error: string | null;
};

async function deliveries(key: string, runId: string): Promise<Delivery[]> {
  return ((await (await send("GET", `/v1/runs/${runId}/webhook-deliveries`, key)).json()) as { data: Delivery[] }).data;
}

/** A tenant with a signing secret, and a fresh hook on the test receiver configured as given. */
async function hook(name: string, config: Parameters<typeof configureHook>[2] = {}) {
  const tenant = await newTenant();
  await send("POST", "/v1/webhooks/secret", tenant.key);
  const id = `${name}-${crypto.randomUUID()}`;
  await configureHook(env.WEBHOOK_RECEIVER_URL, id, config);
  return { ...tenant, id, url: `${env.WEBHOOK_RECEIVER_URL}/hooks/${id}` };
}

/** A small simulator run that sends its final event to `url`, once it has ended. */
async function runTo(key: string, url: string): Promise<string> {
  const run = await startRun(key, { model: "sim:agent", n_queries: 1, n_replays: 2, min_success: 2, webhook_url: url });
  await waitForRun(key, run.id);
  return run.id;
}

/** An ended run row that names `webhookUrl`, written directly (no coordinator, nothing sent). */
async function endedRun(tenantId: string, webhookUrl: string): Promise<string> {
  const id = newId("run");
  const now = new Date();
  await insertRun(openDb(env.DB), {
    id,
    tenantId,
    evaluator: "chain-determinism",
    status: "succeeded",
    config: { model: "sim:agent" },
    done: 1,
    failed: 0,
    total: 1,
    webhookUrl,
    createdAt: now,
    startedAt: now,
    finishedAt: now,
  });
  return id;
}

describe("webhook delivery", () => {
  it("one hanging receiver does not hold up another run's delivery", async () => {
    const slow = await hook("hang", { hold: true });
    await runTo(slow.key, slow.url);
    // The slow receiver has the request and holds it (until the sender gives up after 10 s, or release).
    await vi.waitFor(async () => expect(await receivedHooks(env.WEBHOOK_RECEIVER_URL, slow.id)).toHaveLength(1), WAIT);

    const other = await hook("other");
    await runTo(other.key, other.url);
    const [delivered] = await vi.waitFor(async () => {
      const got = await receivedHooks(env.WEBHOOK_RECEIVER_URL, other.id);
      expect(got).toHaveLength(1);
      return got;
    }, WAIT);
    // By the receiver's own clock: the other run's event arrived while the slow request was still held.
    const [held] = await receivedHooks(env.WEBHOOK_RECEIVER_URL, slow.id);
    expect(held.ended_at ?? Infinity).toBeGreaterThan(delivered.at);
    expect(delivered.status).toBe(200);
    await releaseHook(env.WEBHOOK_RECEIVER_URL, slow.id);
  });

  it("a pending retry survives a crash that loses everything in memory, and goes on counting attempts", async () => {
    const down = await hook("down", { fail_first: 100, status: 503 });
    const runId = await runTo(down.key, down.url);
    const first = await vi.waitFor(async () => {
      const got = await receivedHooks(env.WEBHOOK_RECEIVER_URL, down.id);
      expect(got).toHaveLength(1);
      return got[0];
    }, WAIT);
    // The next attempt is in the sender's storage, with its alarm.
    const sender = env.WEBHOOKS.getByName(first.headers["webhook-id"]);
    await vi.waitFor(
      async () => expect(await sender.status()).toMatchObject({ next: 2, last: 8, due: expect.any(Number) }),
      WAIT,
    );
    // Reset the object at once, as a crash or a restart of the local server does: its memory is gone.
    const crashedAt = Date.now();
    await runInDurableObject(sender, (_, state) => state.abort("crashed by the test")).catch(() => {});

    // Whichever attempt comes first after the crash (the retry may have gone out just before it), it is
    // the same message, and the recorded attempts go on 1, 2, 3, … with no gap and no restart.
    await vi.waitFor(async () => {
      const got = await receivedHooks(env.WEBHOOK_RECEIVER_URL, down.id);
      expect(got.some((h) => h.at > crashedAt)).toBe(true);
    }, WAIT);
    const got = await receivedHooks(env.WEBHOOK_RECEIVER_URL, down.id);
    expect(new Set(got.map((h) => h.headers["webhook-id"]))).toEqual(new Set([first.headers["webhook-id"]]));
    const list = await vi.waitFor(async () => {
      const d = await deliveries(down.key, runId);
      expect(d.length).toBeGreaterThanOrEqual(got.length);
      return d;
    }, WAIT);
    const attempts = list.map((d) => d.attempt).reverse();
    expect(attempts).toEqual(attempts.map((_, i) => i + 1));
    expect(list.every((d) => d.status === "failed" && d.response_status === 503)).toBe(true);
    // Let the series end: the receiver accepts the next attempt.
    await configureHook(env.WEBHOOK_RECEIVER_URL, down.id, {});
  });

  it("a re-send while an attempt is in flight is sent after it, as a new series", async () => {
    const slow = await hook("resend", { hold: true });
    const runId = await endedRun(slow.tenantId, slow.url);
    const messageId = newId("msg");
    const sender = env.WEBHOOKS.getByName(messageId);
    await sender.send({ runId, messageId, event: "run.succeeded" });
    await vi.waitFor(async () => expect(await receivedHooks(env.WEBHOOK_RECEIVER_URL, slow.id)).toHaveLength(1), WAIT);
    await sender.send({ runId, messageId, event: "run.succeeded" });
    expect(await releaseHook(env.WEBHOOK_RECEIVER_URL, slow.id)).toBe(1);
    await vi.waitFor(async () => expect(await deliveries(slow.key, runId)).toHaveLength(2), WAIT);
    expect((await deliveries(slow.key, runId)).map((d) => [d.attempt, d.status, d.message_id])).toEqual([
      [2, "succeeded", messageId],
      [1, "succeeded", messageId],
    ]);
    // The first series ended with its delivery; the re-send's series is 8 attempts from attempt 2.
    expect(await sender.status()).toMatchObject({ next: 3, last: 9, due: null, series: 2 });
  });

  it("does not send to a destination the policy refuses at delivery time: one failed attempt saying why, no retry", async () => {
    const { tenantId, key } = await hook("refused");
    // Refused whatever the setting, so the sender (with the tests' development setting) refuses it too.
    const runId = await endedRun(tenantId, "https://10.0.0.1/hook");
    const messageId = newId("msg");
    await env.WEBHOOKS.getByName(messageId).send({ runId, messageId, event: "run.succeeded" });
    const [attempt] = await vi.waitFor(async () => {
      const d = await deliveries(key, runId);
      expect(d).toHaveLength(1);
      return d;
    }, WAIT);
    expect(attempt).toMatchObject({
      attempt: 1,
      status: "failed",
      response_status: null,
      error: "not sent: webhook_url private address 10.0.0.1 is not allowed",
    });
    expect(await env.WEBHOOKS.getByName(messageId).status()).toMatchObject({ next: 2, due: null });
  });

  it("under the production setting, a loopback receiver is refused before anything is sent", async () => {
    const local = await hook("local");
    const runId = await endedRun(local.tenantId, local.url);
    const production = { ...env, ALLOW_LOOPBACK_DESTINATIONS: undefined } as unknown as Env;
    expect(await deliverWebhook(production, { runId, messageId: newId("msg"), event: "run.succeeded" }, 1)).toBe(
      "refused",
    );
    expect(await deliveries(local.key, runId)).toMatchObject([
      {
        attempt: 1,
        status: "failed",
        error: "not sent: webhook_url loopback addresses are accepted only in local development",
      },
    ]);
    expect(await receivedHooks(env.WEBHOOK_RECEIVER_URL, local.id)).toEqual([]);
    // The development setting sends it.
    expect(await deliverWebhook(env, { runId, messageId: newId("msg"), event: "run.succeeded" }, 1)).toBe("delivered");
    expect(await receivedHooks(env.WEBHOOK_RECEIVER_URL, local.id)).toHaveLength(1);
  });
});
