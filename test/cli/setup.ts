// The CLI's tests run the built `assay` against a real server: the Worker under `wrangler dev` (its
// D1, Durable Objects and Queues in workerd, local state in memory) and the fake model endpoint.
import { execFileSync } from "node:child_process";
import { appendFileSync, mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import type { TestProject } from "vitest/node";
import { freePort, startWranglerDev } from "../../scripts/wrangler-dev.ts";
import { startFakeOpenAI } from "../support/fake-openai.ts";

/** The query budget of one event-stream connection in these tests: a few polls each. */
export const EVENT_STREAM_E2E_QUERIES = 12;

export default async function ({ provide }: TestProject) {
  // The tests run what users run: the built SDK and CLI (npm ci builds them; this keeps them current).
  execFileSync("npm", ["run", "build", "--silent"], {
    cwd: new URL("../..", import.meta.url).pathname,
    stdio: "inherit",
  });
  const openai = await startFakeOpenAI({ port: 0 });
  // Everything wrangler prints (a line per request with its time, every error) goes to a test
  // artifact, so a wait that ends in a test's timeout can be read against what the server did.
  const logDir = join(import.meta.dirname, "..", "..", "test-artifacts");
  mkdirSync(logDir, { recursive: true });
  const log = join(logDir, "wrangler-dev-e2e.txt");
  writeFileSync(log, "");
  // Every event stream of these tests ends after a few polls (EVENT_STREAM_QUERY_BUDGET can only lower
  // the production budget), so the CLI and the dashboard follow each run across many reconnects.
  const dev = await startWranglerDev(await freePort(), "memory", (t) => appendFileSync(log, t), {
    EVENT_STREAM_QUERY_BUDGET: String(EVENT_STREAM_E2E_QUERIES),
  });
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
