// Regenerates the SDK from the API's own route declarations: sdk/openapi.json, then sdk/src with
// @hey-api/openapi-ts. `npm run sdk` writes; test/node/sdk.test.ts fails when the committed files are stale.
import { mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { createClient } from "@hey-api/openapi-ts";
import { createApp, OPENAPI_CONFIG } from "../src/app.ts";

export const SDK_DIR = join(import.meta.dirname, "..", "sdk");

/** The OpenAPI document exactly as the Worker serves it at /openapi.json, as committed text. */
export function openApiText(): string {
  return JSON.stringify(createApp().getOpenAPI31Document(OPENAPI_CONFIG), null, 2) + "\n";
}

/** Writes sdk/openapi.json into `dir` and generates the client into `dir/src`. */
export async function generateSdk(dir = SDK_DIR): Promise<void> {
  mkdirSync(dir, { recursive: true });
  const spec = join(dir, "openapi.json");
  writeFileSync(spec, openApiText());
  await createClient({
    input: spec,
    // Explicit `.ts` specifiers (`./client/index.ts`), so Node 22 runs the sources as they are (type stripping)
    // where bare directory imports fail with ERR_UNSUPPORTED_DIR_IMPORT.
    output: { path: join(dir, "src"), module: { extension: ".ts" } },
    plugins: ["@hey-api/client-fetch", "@hey-api/typescript", "@hey-api/sdk"],
    logs: { level: "silent" },
  });
}

if (import.meta.main) {
  await generateSdk();
  console.log(`SDK written to ${SDK_DIR}`);
}
