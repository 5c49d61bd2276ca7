// The hook that follows the hash route; the routes themselves are in paths.ts.
import { useEffect, useState } from "preact/hooks";
import { parseRoute, type Route } from "./paths.ts";

export { href, parseRoute, type Route } from "./paths.ts";

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
