// Bundles the CLI into dist/assay.js. The package's dependencies stay imports; everything else is
// bundled: our own code, including the server's pieces `assay vrty --local` runs (the vrty engine, its
// request schemas, the strict JSON reader), and zod, which those schemas are written in, at the very
// version the server is built with, so that --local words a bad pair as the API does. The package
// installs on its own.
import { readFileSync } from "node:fs";
import { fileURLToPath } from "node:url";
import { build, type BuildOptions } from "esbuild";

const { version, dependencies } = JSON.parse(
  readFileSync(new URL("./package.json", import.meta.url).pathname, "utf8"),
) as {
  version: string;
  dependencies: Record<string, string>;
};

/** How dist/assay.js is built; test/cli/toy-evaluator.test.ts builds a CLI with one more verb by the same options. */
export const options: BuildOptions = {
  entryPoints: [new URL("./src/main.ts", import.meta.url).pathname],
  outfile: new URL("./dist/assay.js", import.meta.url).pathname,
  bundle: true,
  platform: "node",
  format: "esm",
  target: "node22",
  define: { __VERSION__: JSON.stringify(version) },
  // A dependency's subpaths too (@assay/sdk/client).
  external: Object.keys(dependencies).flatMap((name) => [name, `${name}/*`]),
  sourcemap: "linked",
  logLevel: "warning",
};

if (process.argv[1] === fileURLToPath(import.meta.url)) await build(options);
