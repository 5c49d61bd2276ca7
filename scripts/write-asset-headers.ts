// Writes public/_headers, the rules Workers static assets apply to every file they serve (the dashboard
// under /app/, the docs bundle), from the one copy of the policy in src/middleware/security-headers.ts.
// Runs in every `npm run build` (so postinstall, `npm start`, deploy and the e2e tests' setup); gitignored.
import { mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { assetHeadersFile } from "../src/middleware/security-headers.ts";

const dir = join(import.meta.dirname, "..", "public");
mkdirSync(dir, { recursive: true });
writeFileSync(join(dir, "_headers"), assetHeadersFile());
