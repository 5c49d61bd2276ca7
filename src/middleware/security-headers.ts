// The headers every response carries (issue 30), and the one copy of the pages' policy. Two paths serve
// this origin: the Worker (the API, `/`, `/docs`), which `securityHeaders` covers, and Workers static
// assets (`/app/…`, `/docs/vendor/…`), which answer before the Worker and carry the rules of
// `public/_headers`, written from this module at build time (scripts/write-asset-headers.ts). We chose
// `_headers` over `run_worker_first`: with the Worker first, every script, stylesheet and font of the
// dashboard would be a billed Worker invocation (and one more CPU/subrequest budget spent) only to copy
// three constant headers; `_headers` is applied by the assets service itself, free, in production and in
// `wrangler dev` alike. docs/headers.md has the whole picture.
import type { MiddlewareHandler } from "hono";

/**
 * The pages' policy: load and call nothing but this origin, and let no other origin frame them. Inline
 * styles are allowed (the dashboard's charts and the docs page's UI set them); inline scripts are not,
 * so a page's script is always a file of this origin.
 */
export const DASHBOARD_CSP =
  "default-src 'self'; script-src 'self'; style-src 'self' 'unsafe-inline'; img-src 'self' data: blob:; connect-src 'self'; " +
  "font-src 'self'; object-src 'none'; base-uri 'none'; form-action 'self'; frame-ancestors 'none'";

/** What every response carries, whatever its type: no content sniffing of JSON, NDJSON or a script. */
export const EVERY_RESPONSE_HEADERS: Readonly<Record<string, string>> = { "X-Content-Type-Options": "nosniff" };

/** What an HTML page carries on top: the policy (with its frame-ancestors) and no referrer to other sites. */
export const PAGE_HEADERS: Readonly<Record<string, string>> = {
  "Content-Security-Policy": DASHBOARD_CSP,
  "Referrer-Policy": "no-referrer",
};

/**
 * The text of `public/_headers` (Cloudflare's format: a URL pattern, then indented `Name: value` lines).
 * One rule for every asset: `_headers` cannot match on the Content-Type, and a policy on a script or a
 * stylesheet is inert, so every HTML file anyone adds under public/ is covered without a list to keep.
 */
export function assetHeadersFile(): string {
  const lines = Object.entries({ ...EVERY_RESPONSE_HEADERS, ...PAGE_HEADERS }).map(
    ([name, value]) => `  ${name}: ${value}`,
  );
  return [
    "# Written by scripts/write-asset-headers.ts from src/middleware/security-headers.ts; do not edit.",
    "/*",
    ...lines,
    "",
  ].join("\n");
}

function setAll(headers: Headers, values: Readonly<Record<string, string>>): void {
  for (const [name, value] of Object.entries(values)) headers.set(name, value);
}

/** Adds the headers to every response of the Worker: errors, 404s and 405s included (register it first). */
export const securityHeaders: MiddlewareHandler = async (c, next) => {
  await next();
  // A response passed through from a fetch (or the assets binding) has immutable headers: copy it first.
  try {
    c.res.headers.set("X-Content-Type-Options", "nosniff");
  } catch {
    c.res = new Response(c.res.body, c.res);
  }
  setAll(c.res.headers, EVERY_RESPONSE_HEADERS);
  // An SVG opened on its own (a reasoning-quality radar) is a document that could run script: it gets
  // the pages' policy too.
  if (/^(text\/html|image\/svg\+xml)/.test(c.res.headers.get("content-type") ?? ""))
    setAll(c.res.headers, PAGE_HEADERS);
};
