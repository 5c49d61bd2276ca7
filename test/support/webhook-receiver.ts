/**
 * A webhook receiver for tests: a real HTTP server (node:http) that records every POST to
 * `/hooks/:id` and can fail the first N of them, to exercise retries.
 * - `POST /_hooks/:id` with `{fail_first?: number, status?: number}` configures it (default: accept all).
 * - `GET /_hooks/:id` answers `{ received: [{at, headers, body}] }`.
 * Like fake-openai.ts, node:http is imported only inside `startWebhookReceiver`, so the helpers
 * can be imported from workerd tests.
 */
import type { IncomingMessage } from "node:http";

export type Received = { at: number; status: number; headers: Record<string, string>; body: string };

export async function startWebhookReceiver(port = 0): Promise<{ url: string; close(): Promise<void> }> {
  const { createServer } = await import("node:http");
  const config = new Map<string, { fail_first: number; status: number }>();
  const received = new Map<string, Received[]>();
  const read = (req: IncomingMessage) =>
    new Promise<string>((resolve) => {
      let s = "";
      req.on("data", (c) => (s += c));
      req.on("end", () => resolve(s));
    });
  const server = createServer(async (req, res) => {
    const m = req.url?.match(/^\/(_hooks|hooks)\/([\w.-]+)$/);
    if (!m) return res.writeHead(404).end();
    const id = m[2];
    const body = await read(req);
    if (m[1] === "_hooks") {
      if (req.method === "POST") {
        const c = JSON.parse(body || "{}");
        config.set(id, { fail_first: c.fail_first ?? 0, status: c.status ?? 500 });
        return res.writeHead(204).end();
      }
      res.writeHead(200, { "content-type": "application/json" });
      return res.end(JSON.stringify({ received: received.get(id) ?? [] }));
    }
    const list = received.get(id) ?? [];
    const c = config.get(id) ?? { fail_first: 0, status: 500 };
    const status = list.length < c.fail_first ? c.status : 200;
    list.push({ at: Date.now(), status, headers: req.headers as Record<string, string>, body });
    received.set(id, list);
    res.writeHead(status).end();
  });
  await new Promise<void>((r) => server.listen(port, "127.0.0.1", r));
  const address = server.address();
  const url = `http://127.0.0.1:${typeof address === "object" && address ? address.port : port}`;
  return { url, close: () => new Promise<void>((r) => server.close(() => r())) };
}

export async function configureHook(baseUrl: string, id: string, c: { fail_first?: number; status?: number }): Promise<void> {
  await fetch(`${baseUrl}/_hooks/${id}`, { method: "POST", body: JSON.stringify(c) });
}

export async function receivedHooks(baseUrl: string, id: string): Promise<Received[]> {
  return ((await (await fetch(`${baseUrl}/_hooks/${id}`)).json()) as { received: Received[] }).received;
}
