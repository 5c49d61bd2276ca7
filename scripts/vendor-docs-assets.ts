// Copies the Scalar API-reference bundle next to the Worker's static assets, so /docs renders with no CDN.
// Runs on `npm ci`/`npm install` (postinstall); the copy is gitignored.
import { copyFileSync, existsSync, mkdirSync } from "node:fs";
import { dirname, join } from "node:path";

const root = join(import.meta.dirname, "..");
const from = join(root, "node_modules/@scalar/api-reference/dist/browser/standalone.js");
const to = join(root, "public/docs/vendor/scalar.js");

if (!existsSync(from)) {
  console.warn(`vendor-docs-assets: ${from} is missing (production install?); /docs will have no script.`);
} else {
  mkdirSync(dirname(to), { recursive: true });
  copyFileSync(from, to);
}
