// What the benchmarks that run through `wrangler dev` share: the fake model endpoint in a child process
// and a receiver for the runs' final webhooks.
import { spawn } from "node:child_process";
import { createServer } from "node:http";
import { join } from "node:path";

/** The fake endpoint in a child process (see fake-openai-process.ts), so the benchmark's own work cannot delay its answers. */
export async function startFakeServer(): Promise<{ url: string; close(): Promise<void> }> {
  const child = spawn(process.execPath, [join(import.meta.dirname, "fake-openai-process.ts")], {
    stdio: ["ignore", "pipe", "inherit"],
  });
  const url = await new Promise<string>((resolve, reject) => {
    child.stdout!.once("data", (d: Buffer) => resolve(d.toString().trim().split("\n")[0]));
    child.once("exit", (code) => reject(new Error(`fake server exited with ${code}`)));
  });
  return { url, close: async () => void child.kill() };
}

/**
 * Receives the runs' final webhooks: a wall time ends when the API tells its client the run is over, as
 * a client would learn it, with no polling load on the workerd under test.
 */
export async function startFinalHookReceiver(): Promise<{
  url: string;
  final(runId: string, timeoutMs?: number): Promise<void>;
  close(): void;
}> {
  const waiting = new Map<string, () => void>();
  const arrived = new Set<string>();
  const server = createServer((req, res) => {
    let body = "";
    req.on("data", (c) => (body += c));
    req.on("end", () => {
      res.writeHead(204).end();
      const runId = (JSON.parse(body) as { data?: { id?: string } }).data?.id;
      if (!runId) return;
      arrived.add(runId);
      waiting.get(runId)?.();
    });
  });
  await new Promise<void>((r) => server.listen(0, "127.0.0.1", r));
  const { port } = server.address() as { port: number };
  return {
    url: `http://127.0.0.1:${port}/hooks`,
    final: (runId, timeoutMs = 5 * 60_000) =>
      new Promise<void>((resolve, reject) => {
        if (arrived.has(runId)) return resolve();
        const timer = setTimeout(
          () => reject(new Error(`no final webhook for ${runId} within ${timeoutMs / 1000} s`)),
          timeoutMs,
        );
        waiting.set(runId, () => (clearTimeout(timer), resolve()));
      }),
    close: () => server.close(),
  };
}
