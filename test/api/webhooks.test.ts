import { describe, expect, it } from "vitest";
import { env } from "cloudflare:workers";
import { configureHook, receivedHooks } from "../support/webhook-receiver.ts";
import { newTenant, problem, send, startRun, waitForRun } from "./helpers.ts";

/** Standard Webhooks verification, written independently of src/runs/webhooks/sign.ts. */
async function verify(secret: string, id: string, timestamp: string, body: string, header: string): Promise<boolean> {
  const key = await crypto.subtle.importKey(
    "raw",
    Uint8Array.from(atob(secret.slice("whsec_".length)), (c) => c.charCodeAt(0)),
    { name: "HMAC", hash: "SHA-256" },
    false,
    ["verify"],
  );
  const sig = Uint8Array.from(atob(header.split(",")[1]), (c) => c.charCodeAt(0));
  return crypto.subtle.verify("HMAC", key, sig, new TextEncoder().encode(`${id}.${timestamp}.${body}`));
}

async function waitFor<T>(f: () => Promise<T>, ok: (t: T) => boolean, timeoutMs = 15_000): Promise<T> {
  const until = Date.now() + timeoutMs;
  for (;;) {
    const v = await f();
    if (ok(v)) return v;
    if (Date.now() > until) throw new Error(`condition not met: ${JSON.stringify(v)}`);
    await new Promise((r) => setTimeout(r, 100));
  }
}

type Delivery = { message_id: string; attempt: number; status: string; response_status: number | null; event: string };

describe("webhooks", () => {
  it("shows the secret once, then only whether it exists", async () => {
    const { key } = await newTenant();
    expect(await (await send("GET", "/v1/webhooks/secret", key)).json()).toEqual({ exists: false, created_at: null });
    const created = (await (await send("POST", "/v1/webhooks/secret", key)).json()) as { secret: string };
    expect(created.secret).toMatch(/^whsec_[A-Za-z0-9+/]{43}=$/);
    const info = (await (await send("GET", "/v1/webhooks/secret", key)).json()) as Record<string, unknown>;
    expect(info.exists).toBe(true);
    expect(JSON.stringify(info)).not.toContain(created.secret.slice(6));
    const rows = await env.DB.prepare("SELECT * FROM webhook_secrets").all();
    expect(JSON.stringify(rows.results)).not.toContain(created.secret.slice(6));
  });

  it("refuses a webhook_url before the tenant has a secret", async () => {
    const { key } = await newTenant();
    const p = await problem(
      await send("POST", "/v1/chain-determinism/runs", key, {
        model: "sim:agent",
        webhook_url: `${env.WEBHOOK_RECEIVER_URL}/hooks/x`,
      }),
      400,
    );
    expect(p.errors![0].path).toBe("webhook_url");
  });

  it("signs run.succeeded, retries a failing receiver with backoff, records every attempt, and re-sends", async () => {
    const { key } = await newTenant();
    const { secret } = (await (await send("POST", "/v1/webhooks/secret", key)).json()) as { secret: string };
    const hook = `h-${Date.now()}`;
    await configureHook(env.WEBHOOK_RECEIVER_URL, hook, { fail_first: 1, status: 503 });
    const created = await startRun(key, {
      model: "sim:agent",
      n_queries: 1,
      n_replays: 2,
      min_success: 2,
      webhook_url: `${env.WEBHOOK_RECEIVER_URL}/hooks/${hook}`,
    });
    await waitForRun(key, created.id);

    const received = await waitFor(
      () => receivedHooks(env.WEBHOOK_RECEIVER_URL, hook),
      (r) => r.length >= 2,
    );
    expect(received.map((r) => r.status)).toEqual([503, 200]);
    // WEBHOOK_BACKOFF_SECONDS is 1 in tests: the second attempt comes at least a second later.
    expect(received[1].at - received[0].at).toBeGreaterThanOrEqual(1000);
    const ok = received[1];
    expect(ok.headers["webhook-id"]).toBe(received[0].headers["webhook-id"]);
    expect(
      await verify(
        secret,
        ok.headers["webhook-id"],
        ok.headers["webhook-timestamp"],
        ok.body,
        ok.headers["webhook-signature"],
      ),
    ).toBe(true);
    expect(
      await verify(
        secret,
        ok.headers["webhook-id"],
        ok.headers["webhook-timestamp"],
        ok.body + " ",
        ok.headers["webhook-signature"],
      ),
    ).toBe(false);
    const payload = JSON.parse(ok.body);
    expect(payload.type).toBe("run.succeeded");
    expect(payload.data.id).toBe(created.id);
    expect(payload.data.status).toBe("succeeded");

    const deliveries = await waitFor(
      async () =>
        ((await (await send("GET", `/v1/runs/${created.id}/webhook-deliveries`, key)).json()) as { data: Delivery[] })
          .data,
      (d) => d.length >= 2,
    );
    expect(deliveries.map((d) => [d.attempt, d.status, d.response_status])).toEqual([
      [2, "succeeded", 200],
      [1, "failed", 503],
    ]);

    const resend = await send("POST", `/v1/runs/${created.id}/webhook-deliveries/resend`, key);
    expect(resend.status).toBe(202);
    const again = await waitFor(
      () => receivedHooks(env.WEBHOOK_RECEIVER_URL, hook),
      (r) => r.length >= 3,
    );
    expect(again[2].headers["webhook-id"]).toBe(ok.headers["webhook-id"]);
    expect(again[2].status).toBe(200);
  });

  it("refuses plain http to non-loopback hosts, naming webhook_url", async () => {
    const { key } = await newTenant();
    await send("POST", "/v1/webhooks/secret", key);
    const bad = await problem(
      await send("POST", "/v1/chain-determinism/runs", key, {
        model: "sim:agent",
        webhook_url: "http://hooks.example.com/x",
      }),
      400,
    );
    expect(bad.errors![0]).toEqual({ path: "webhook_url", message: "must use https" });
  });
});
