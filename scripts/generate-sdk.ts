// Regenerates the SDK from the API's own route declarations: sdk/openapi.json, then sdk/src with
// @hey-api/openapi-ts. `npm run sdk` writes; test/node/sdk.test.ts fails when the committed files are stale.
import { existsSync, mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { createClient } from "@hey-api/openapi-ts";
import { createApp, OPENAPI_CONFIG } from "../src/app.ts";

export const SDK_DIR = join(import.meta.dirname, "..", "sdk");

/** The OpenAPI document exactly as the Worker serves it at /openapi.json, as committed text. */
export function openApiText(): string {
  return JSON.stringify(createApp().getOpenAPI31Document(OPENAPI_CONFIG), null, 2) + "\n";
}

/**
 * Files of sdk/src written by hand (what the OpenAPI document cannot say: following a run's events
 * across the server's reconnects; walking cursor-paged lists). The generator empties sdk/src; these are put back after it.
 */
export const HAND_WRITTEN = ["run-events.ts", "pages.ts"];

/** Writes sdk/openapi.json into `dir` and generates the client into `dir/src`. */
export async function generateSdk(dir = SDK_DIR): Promise<void> {
  mkdirSync(dir, { recursive: true });
  const spec = join(dir, "openapi.json");
  writeFileSync(spec, openApiText());
  const kept = HAND_WRITTEN.map((f) => join(dir, "src", f))
    .filter((p) => existsSync(p))
    .map((p) => [p, readFileSync(p, "utf8")] as const);
  await createClient({
    input: spec,
    // Explicit `.ts` specifiers (`./client/index.ts`), so Node 22 runs the sources as they are (type stripping)
    // where bare directory imports fail with ERR_UNSUPPORTED_DIR_IMPORT.
    output: { path: join(dir, "src"), module: { extension: ".ts" } },
    plugins: ["@hey-api/client-fetch", "@hey-api/typescript", "@hey-api/sdk"],
    logs: { level: "silent" },
  });
  for (const [p, text] of kept) writeFileSync(p, text);
}

if (import.meta.main) {
  await generateSdk();
  console.log(`SDK written to ${SDK_DIR}`);
}
