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
    // Effects run after the first paint: a hash that changed between that render and this line fired
    // its hashchange before anyone listened (a link followed at once after signing in did).
    onChange();
    return () => removeEventListener("hashchange", onChange);
  }, []);
  return route;
}
