// The CLI's tests run the built `assay` against a real server: the Worker under `wrangler dev` (its
// D1, Durable Objects and Queues in workerd, local state in memory) and the fake model endpoint.
import { execFileSync } from "node:child_process";
import { appendFileSync, mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { createServer } from "node:net";
import type { TestProject } from "vitest/node";
import { startWranglerDev } from "../../scripts/wrangler-dev.ts";
import { startFakeOpenAI } from "../support/fake-openai.ts";

async function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const srv = createServer();
    srv.once("error", reject);
    srv.listen(0, "127.0.0.1", () => {
      const { port } = srv.address() as { port: number };
      srv.close(() => resolve(port));
    });
  });
}

export default async function ({ provide }: TestProject) {
  // The tests run what users run: the built SDK and CLI (npm ci builds them; this keeps them current).
  execFileSync("npm", ["run", "build", "--silent"], { cwd: new URL("../..", import.meta.url).pathname, stdio: "inherit" });
  const openai = await startFakeOpenAI({ port: 0 });
  // Everything wrangler prints (a line per request with its time, every error) goes to a test
  // artifact, so a wait that ends in a test's timeout can be read against what the server did.
  const logDir = join(import.meta.dirname, "..", "..", "test-artifacts");
  mkdirSync(logDir, { recursive: true });
  const log = join(logDir, "wrangler-dev-e2e.txt");
  writeFileSync(log, "");
  const dev = await startWranglerDev(await freePort(), "memory", (t) => appendFileSync(log, t));
  provide("assayUrl", dev.base);
  provide("fakeOpenAIUrl", openai.url);
  return async () => {
    await dev.stop();
    await openai.close();
  };
}

declare module "vitest" {
  export interface ProvidedContext {
    assayUrl: string;
    fakeOpenAIUrl: string;
  }
}
