// Bundles the CLI into dist/assay.js. npm packages stay imports (they are the package's dependencies);
// our own code is bundled, including the vrty engine from ../src/engines (for `assay vrty --local`), so
// the package installs on its own.
import { readFileSync } from "node:fs";
import { build } from "esbuild";

const { version } = JSON.parse(readFileSync(new URL("./package.json", import.meta.url).pathname, "utf8")) as { version: string };

await build({
  entryPoints: [new URL("./src/main.ts", import.meta.url).pathname],
  outfile: new URL("./dist/assay.js", import.meta.url).pathname,
  bundle: true,
  platform: "node",
  format: "esm",
  target: "node22",
  define: { __VERSION__: JSON.stringify(version) },
  packages: "external",
  sourcemap: "linked",
  logLevel: "warning",
});
