import { destinationProblem, type DestinationPolicy } from "./destination.ts";
import { charge } from "../platform/invocation.ts";

/** A request that the destination policy refused before anything was sent. */
export class DestinationRefused extends Error {
  constructor(message: string) {
    super(message);
    this.name = "DestinationRefused";
  }
}

const REDIRECTS = new Set([301, 302, 303, 307, 308]);
const NORMALIZED_METHODS = new Set(["DELETE", "GET", "HEAD", "OPTIONS", "POST", "PUT"]);
/** As browsers and the fetch standard: more redirects than this is an error. */
const MAX_REDIRECTS = 20;

/**
 * A `fetch` that sends nothing to a destination the policy refuses: it checks the URL of the request
 * and, following redirects itself, the URL of every redirect before requesting it (a redirect is the
 * classic way round a check made only on the URL given). Following does what the fetch standard
 * does: 303, and 301/302 after a POST, become a GET without a body; a redirect to another origin
 * drops the `Authorization` header, so a provider key never follows a redirect elsewhere. A caller
 * that asks for `redirect: "manual"` or `"error"` gets that, with the first URL checked.
 */
export function guardedFetch(policy: DestinationPolicy, inner: typeof fetch = globalThis.fetch): typeof fetch {
  return async (input, init) => {
    // A model call (a URL and a string body) is read as it is: a Request made of it would be one more
    // copy of the body per call, which a busy lane pays on every call.
    const first =
      input instanceof Request || !(init?.body == null || typeof init.body === "string")
        ? new Request(input, init)
        : plainRequest(input, init);
    const mode = init?.redirect ?? first.redirect;
    const signal = init?.signal ?? (input instanceof Request ? input.signal : undefined);
    const refuse = (url: string, redirected: boolean) => {
      const problem = destinationProblem(url, policy);
      // The host only: a refused URL may carry a credential in its query.
      if (problem)
        throw new DestinationRefused(`${redirected ? "redirected to" : "request to"} ${new URL(url).host}: ${problem}`);
    };
    refuse(first.url, false);
    // Every request sent, each redirect's too, is a subrequest of the running invocation.
    charge("subrequest");
    if (mode !== "follow") return inner(first instanceof Request ? first : new Request(first.url, init));
    let method = first.method;
    let headers = new Headers(first.headers);
    let body: ArrayBuffer | string | null =
      method === "GET" || method === "HEAD" ? null : first instanceof Request ? await first.arrayBuffer() : first.body;
    let url = first.url;
    for (let hops = 0; ; hops++) {
      const response = await inner(url, { method, headers, body, signal, redirect: "manual" });
      const location = REDIRECTS.has(response.status) ? response.headers.get("location") : null;
      if (location === null) return response;
      if (hops === MAX_REDIRECTS) throw new TypeError(`more than ${MAX_REDIRECTS} redirects`);
      await response.body?.cancel();
      const next = new URL(location, url).href;
      refuse(next, true);
      charge("subrequest");
      if (
        response.status === 303 ? method !== "GET" && method !== "HEAD" : response.status <= 302 && method === "POST"
      ) {
        method = "GET";
        body = null;
        headers = new Headers(headers);
        for (const name of ["content-type", "content-length", "content-encoding", "content-language"])
          headers.delete(name);
      }
      if (new URL(next).origin !== new URL(url).origin) {
        headers = new Headers(headers);
        headers.delete("authorization");
        headers.delete("cookie");
        headers.delete("proxy-authorization");
      }
      url = next;
    }
  };
}

/** What `new Request(url, init)` would read of a request with a string body or none, without making one. */
function plainRequest(input: string | URL, init: RequestInit | undefined) {
  // As the fetch standard normalizes a method: only these six, whatever their case.
  const given = init?.method ?? "GET";
  const method = NORMALIZED_METHODS.has(given.toUpperCase()) ? given.toUpperCase() : given;
  if ((method === "GET" || method === "HEAD") && init?.body != null)
    throw new TypeError(`a ${method} request cannot have a body`);
  return {
    url: new URL(input).href,
    method,
    headers: init?.headers,
    body: (init?.body ?? null) as string | null,
    redirect: init?.redirect ?? "follow",
  };
}
