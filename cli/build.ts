// Bundles the CLI into dist/assay.js. npm packages stay imports (they are the package's dependencies);
// our own code is bundled, including the vrty engine from ../src/engines (for `assay vrty --local`), so
// the package installs on its own.
import { build } from "esbuild";

await build({
  entryPoints: [new URL("./src/main.ts", import.meta.url).pathname],
  outfile: new URL("./dist/assay.js", import.meta.url).pathname,
  bundle: true,
  platform: "node",
  format: "esm",
  target: "node20",
  packages: "external",
  sourcemap: "linked",
  logLevel: "warning",
});
