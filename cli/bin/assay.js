#!/usr/bin/env node
// The built CLI is dist/assay.js (`npm ci` builds it; so does `npm run build -w cli`).
import("../dist/assay.js").catch((err) => {
  if (err && err.code === "ERR_MODULE_NOT_FOUND" && String(err.message).includes("dist/assay.js")) {
    console.error("assay: the CLI is not built yet; run `npm run build -w cli` (npm ci does it)");
    process.exit(1);
  }
  throw err;
});
