/**
 * A webhook receiver for tests: a real HTTP server (node:http) that records every POST to
 * `/hooks/:id` and can fail the first N of them, to exercise retries.
 * - `POST /_hooks/:id` with `{fail_first?: number, status?: number, hold?: boolean}` configures it
 *   (default: accept all). `hold` keeps every delivery unanswered (a hanging receiver) until
 *   `POST /_hooks/:id/release` or until the sender gives up.
 * - `GET /_hooks/:id` answers `{ received: [{at, status, headers, body, ended_at?, outcome?}] }`.
 * Like fake-openai.ts, node:http is imported only inside `startWebhookReceiver`, so the helpers
 * can be imported from workerd tests.
 */
import type { IncomingMessage } from "node:http";

export type Received = {
  at: number;
  status: number;
  headers: Record<string, string>;
  body: string;
  /** A held delivery: when it ended, and whether it was answered (`released`) or given up by the sender (`aborted`). */
  ended_at?: number;
  outcome?: "released" | "aborted";
};

export async function startWebhookReceiver(port = 0): Promise<{ url: string; close(): Promise<void> }> {
  const { createServer } = await import("node:http");
  const config = new Map<string, { fail_first: number; status: number; hold: boolean }>();
  const received = new Map<string, Received[]>();
  /** Held deliveries by hook: answering one releases it. */
  const held = new Map<string, Set<() => void>>();
  const read = (req: IncomingMessage) =>
    new Promise<string>((resolve) => {
      let s = "";
      req.on("data", (c) => (s += c));
      req.on("end", () => resolve(s));
    });
  const server = createServer(async (req, res) => {
    const m = req.url?.match(/^\/(_hooks|hooks)\/([\w.-]+)(\/release)?$/);
    if (!m) return res.writeHead(404).end();
    const id = m[2];
    const body = await read(req);
    if (m[1] === "_hooks") {
      if (req.method === "POST" && m[3]) {
        const waiting = [...(held.get(id) ?? [])];
        held.delete(id);
        const c = config.get(id);
        if (c) c.hold = false;
        for (const answer of waiting) answer();
        res.writeHead(200, { "content-type": "application/json" });
        return res.end(JSON.stringify({ released: waiting.length }));
      }
      if (req.method === "POST") {
        const c = JSON.parse(body || "{}");
        config.set(id, { fail_first: c.fail_first ?? 0, status: c.status ?? 500, hold: c.hold ?? false });
        return res.writeHead(204).end();
      }
      res.writeHead(200, { "content-type": "application/json" });
      return res.end(JSON.stringify({ received: received.get(id) ?? [] }));
    }
    const list = received.get(id) ?? [];
    const c = config.get(id) ?? { fail_first: 0, status: 500, hold: false };
    const status = list.length < c.fail_first ? c.status : 200;
    const entry: Received = { at: Date.now(), status, headers: req.headers as Record<string, string>, body };
    list.push(entry);
    received.set(id, list);
    if (!c.hold) return res.writeHead(status).end();
    const waiting = held.get(id) ?? new Set<() => void>();
    held.set(id, waiting);
    const answer = () => {
      waiting.delete(answer);
      entry.ended_at = Date.now();
      entry.outcome = "released";
      res.writeHead(status).end();
    };
    waiting.add(answer);
    // The sender gave up (its timeout): the delivery ends unanswered.
    res.on("close", () => {
      if (!waiting.delete(answer)) return;
      entry.ended_at = Date.now();
      entry.outcome = "aborted";
    });
  });
  await new Promise<void>((r) => server.listen(port, "127.0.0.1", r));
  const address = server.address();
  const url = `http://127.0.0.1:${typeof address === "object" && address ? address.port : port}`;
  return { url, close: () => new Promise<void>((r) => server.close(() => r())) };
}

export async function configureHook(
  baseUrl: string,
  id: string,
  c: { fail_first?: number; status?: number; hold?: boolean },
): Promise<void> {
  await fetch(`${baseUrl}/_hooks/${id}`, { method: "POST", body: JSON.stringify(c) });
}

/** Answers the hook's held deliveries and holds no more; returns how many were held. */
export async function releaseHook(baseUrl: string, id: string): Promise<number> {
  return ((await (await fetch(`${baseUrl}/_hooks/${id}/release`, { method: "POST" })).json()) as { released: number })
    .released;
}

export async function receivedHooks(baseUrl: string, id: string): Promise<Received[]> {
  return ((await (await fetch(`${baseUrl}/_hooks/${id}`)).json()) as { received: Received[] }).received;
}
