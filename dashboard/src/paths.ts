// Hash routes (`#/runs/run_…`): every page is the one document the Worker serves at `/`, so a reload or
// a shared link never asks the server for a path it does not have. Parsing and building them needs no
// DOM library (unit tests import this file); the hook that follows the hash is in route.ts.

export type Route =
  | { page: "runs" }
  | { page: "run"; id: string }
  | { page: "new"; evaluator: string }
  /** An evaluator's page of its own (vrty's playground): `#/<name>`. */
  | { page: "evaluator"; name: string }
  | { page: "connections" }
  | { page: "storage" }
  | { page: "compare"; base?: string; head?: string };

export function parseRoute(hash: string): Route {
  const parts = hash.replace(/^#\/?/, "").split("/").filter(Boolean).map(decodeURIComponent);
  if (parts[0] === "runs" && parts[1]) return { page: "run", id: parts[1] };
  if (parts[0] === "new" && parts[1]) return { page: "new", evaluator: parts[1] };
  if (parts[0] === "connections") return { page: "connections" };
  if (parts[0] === "storage") return { page: "storage" };
  if (parts[0] === "compare") return { page: "compare", base: parts[1], head: parts[2] };
  if (parts[0] && parts[0] !== "runs") return { page: "evaluator", name: parts[0] };
  return { page: "runs" };
}

export const href = {
  runs: () => "#/runs",
  run: (id: string) => `#/runs/${encodeURIComponent(id)}`,
  newRun: (evaluator: string) => `#/new/${encodeURIComponent(evaluator)}`,
  evaluatorPage: (name: string) => `#/${encodeURIComponent(name)}`,
  connections: () => "#/connections",
  storage: () => "#/storage",
  /** `#/compare`, `#/compare/<base>`, `#/compare/<base>/<head>`. */
  compare: (base?: string, head?: string) =>
    base ? `#/compare/${encodeURIComponent(base)}${head ? `/${encodeURIComponent(head)}` : ""}` : "#/compare",
};
