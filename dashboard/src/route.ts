// Hash routes (`#/runs/run_…`): every page is the one document the Worker serves at `/`, so a reload or
// a shared link never asks the server for a path it does not have.
import { useEffect, useState } from "preact/hooks";

export type Route =
  | { page: "runs" }
  | { page: "run"; id: string }
  | { page: "new"; evaluator: string }
  | { page: "vrty" }
  | { page: "connections" };

export function parseRoute(hash: string): Route {
  const parts = hash.replace(/^#\/?/, "").split("/").filter(Boolean).map(decodeURIComponent);
  if (parts[0] === "runs" && parts[1]) return { page: "run", id: parts[1] };
  if (parts[0] === "new" && parts[1]) return { page: "new", evaluator: parts[1] };
  if (parts[0] === "vrty") return { page: "vrty" };
  if (parts[0] === "connections") return { page: "connections" };
  return { page: "runs" };
}

export const href = {
  runs: () => "#/runs",
  run: (id: string) => `#/runs/${encodeURIComponent(id)}`,
  newRun: (evaluator: string) => `#/new/${encodeURIComponent(evaluator)}`,
  vrty: () => "#/vrty",
  connections: () => "#/connections",
};

export function navigate(to: string): void {
  location.hash = to;
}

export function useRoute(): Route {
  const [route, setRoute] = useState(() => parseRoute(location.hash));
  useEffect(() => {
    const onChange = () => setRoute(parseRoute(location.hash));
    addEventListener("hashchange", onChange);
    return () => removeEventListener("hashchange", onChange);
  }, []);
  return route;
}
