// A wrangler dev of its own that serves the Worker with the toy evaluator added (test/fixtures/toy-sum):
// the CLI's and the dashboard's proof that a sixth evaluator is one folder and one line in each. The
// shared e2e server stays exactly what production deploys.
import { appendFileSync, mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { freePort, startWranglerDev, type DevServer } from "../../scripts/wrangler-dev.ts";

const root = join(import.meta.dirname, "..", "..");

/** Starts it (local state in memory); its output goes to test-artifacts/wrangler-dev-toy.txt. */
export async function startToyServer(): Promise<DevServer> {
  const logDir = join(root, "test-artifacts");
  mkdirSync(logDir, { recursive: true });
  const log = join(logDir, "wrangler-dev-toy.txt");
  writeFileSync(log, "");
  return startWranglerDev(
    await freePort(),
    "memory",
    (t) => appendFileSync(log, t),
    {},
    "test/fixtures/toy-sum/worker.ts",
  );
}
