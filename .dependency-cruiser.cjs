// The layers of DESIGN.md "Layers and what each may touch", checked by dependency-cruiser
// (`npm run lint:layers`, run by .ci/run before the tests). Only src/ and the generated SDK are cruised:
// test/, bench/ and scripts/ may import anything. Type-only imports count like any other
// (tsPreCompilationDeps), so a type cannot carry a layer or a cycle past the check.
//
// A violation that waits on code another change is moving is listed, one by one, in
// .dependency-cruiser-known-violations.json; the check ignores exactly those (--ignore-known) and says
// how many it ignored. Fix one, then remove its entry: never add an entry to get a change through.
/** @type {import('dependency-cruiser').IConfiguration} */
module.exports = {
  forbidden: [
    {
      name: "no-circular",
      comment:
        "No import cycles anywhere in src/, type-only ones included: a cycle makes load order and layering meaningless.",
      severity: "error",
      from: { path: "^src/" },
      to: { circular: true },
    },
    {
      name: "engines-import-only-engines",
      comment:
        "Engines are pure TypeScript that run in plain Node and in workerd: they import only engines (their model " +
        "interface is src/engines/model.ts). No npm package, no node: or cloudflare: module, nothing else from src/.",
      severity: "error",
      from: { path: "^src/engines/" },
      to: { pathNot: "^src/engines/" },
    },
    {
      name: "providers-below-the-platform",
      comment:
        "Providers implement the engines' model interface; they know nothing of runs, evaluators, storage or HTTP routes.",
      severity: "error",
      from: { path: "^src/providers/" },
      to: { path: "^src/(evaluators|routes|db|runs|middleware|reports)/|^src/(app|index)\\.ts$" },
    },
    {
      name: "evaluators-below-routes-and-the-run-platform",
      comment:
        "An evaluator plug-in is driven by the run platform (src/runs) and mounted by the app; of the platform it uses " +
        "only the contract it implements and what that offers (src/runs/plugin) and the stored results (src/runs/results). " +
        "Only its own routes (routes.ts, or a routes/ folder) are HTTP code: see the next rule.",
      severity: "error",
      from: { path: "^src/evaluators/", pathNot: "^src/evaluators/[^/]+/routes(\\.ts$|/)" },
      to: { path: "^src/(routes|middleware)/|^src/runs/(?!plugin/|results/)|^src/(app|index)\\.ts$" },
    },
    {
      name: "evaluator-routes-use-the-route-kit-only",
      comment:
        "A plug-in's own routes are the HTTP layer of that plug-in, mounted by the app beside its POST /runs: they are " +
        "built like every route group (src/routes/router.ts, src/routes/openapi.ts) and may use the middleware, but " +
        "never another route group, the app, or the run platform beyond what the plug-in itself may use.",
      severity: "error",
      from: { path: "^src/evaluators/[^/]+/routes(\\.ts$|/)" },
      to: { path: "^src/routes/(?!(router|openapi)\\.ts$)|^src/runs/(?!plugin/|results/)|^src/(app|index)\\.ts$" },
    },
    {
      name: "db-is-storage-only",
      comment: "src/db holds the drizzle schema and queries; the layers above import it, never the other way round.",
      severity: "error",
      from: { path: "^src/db/" },
      to: { path: "^src/(evaluators|routes|runs|middleware|providers|reports)/|^src/(app|index)\\.ts$" },
    },
    {
      name: "routes-reach-durable-objects-by-rpc-types-only",
      comment:
        "Routes are thin: they call a Durable Object through its binding's stub, so they may name its class and RPC " +
        "types (import type) but never run its code.",
      severity: "error",
      from: { path: "^src/routes/" },
      to: {
        path: "^src/runs/(coordinator|lanes)/|^src/runs/limiter/endpoint-|^src/runs/webhooks/sender\\.ts$",
        dependencyTypesNot: ["type-only"],
      },
    },
    {
      name: "run-platform-below-routes",
      comment:
        "The run platform (its Durable Objects, creation, events, results) is reached by the Worker; it does not import the HTTP layer.",
      severity: "error",
      from: { path: "^src/runs/" },
      to: { path: "^src/(routes|middleware)/|^src/app\\.ts$" },
    },
    {
      name: "only-the-worker-entry-imports-the-app",
      comment: "src/index.ts (the Worker's default export) mounts src/app.ts; nothing else imports either.",
      severity: "error",
      from: { path: "^src/", pathNot: "^src/index\\.ts$" },
      to: { path: "^src/(app|index)\\.ts$" },
    },
    {
      name: "sdk-is-a-client",
      comment: "The generated SDK is a client of the HTTP API like any other: nothing inside src/.",
      severity: "error",
      from: { path: "^sdk/" },
      to: { path: "^src/" },
    },
    {
      name: "cli-is-a-client",
      comment:
        "The CLI reaches the service through the SDK package only; of the server's code it may bundle the pure " +
        "engines (vrty --local scores in-process), the API's limits (to split a batch as the server would), the " +
        "strict JSON reader and its error wording and vrty's request schemas (so --local refuses a pair as the API " +
        "does, by the same code), and the judge's vendor table (which variable holds each vendor's key): plain " +
        "code and data, nothing that runs the platform.",
      severity: "error",
      from: { path: "^cli/" },
      to: {
        path: "^src/",
        pathNot: "^src/(engines/|json/|limits\\.ts$|evaluators/vrty/schemas\\.ts$|providers/vendors\\.ts$)",
      },
    },
    {
      name: "dashboard-is-a-client",
      comment: "The dashboard speaks to the API only through the SDK package: nothing of the server's code.",
      severity: "error",
      from: { path: "^dashboard/" },
      to: { path: "^(src|cli)/" },
    },
    {
      name: "evaluators-are-independent",
      comment:
        "An evaluator's folder never imports another evaluator's folder, on the server (src/evaluators/<name>/), in the " +
        "dashboard (dashboard/src/evaluators/<name>/) or in the CLI (cli/src/commands/<name>/): each plug-in is read, " +
        "added and removed alone; what two share lives outside both.",
      severity: "error",
      from: { path: "^(src/evaluators|dashboard/src/evaluators|cli/src/commands)/([^/]+)/" },
      to: { path: "^$1/[^/]+/", pathNot: "^$1/$2/" },
    },
    {
      name: "resolvable-imports",
      comment:
        "An import the cruiser cannot resolve could hide a layer violation; cloudflare: modules exist only in workerd.",
      severity: "error",
      from: { path: "^(src|sdk|cli|dashboard)/" },
      to: { couldNotResolve: true, pathNot: "^cloudflare:" },
    },
  ],
  options: {
    doNotFollow: { path: "node_modules" },
    tsPreCompilationDeps: true,
    tsConfig: { fileName: "tsconfig.json" },
    enhancedResolveOptions: {
      exportsFields: ["exports"],
      conditionNames: ["import", "require", "node", "default", "types"],
      extensions: [".ts", ".js", ".json"],
    },
    reporterOptions: { text: { highlightFocused: true } },
  },
};
