import { createRouter } from "./router.ts";

/**
 * The API reference page. Its script is the Scalar bundle copied into `public/docs/vendor/` at install
 * time and served as a static asset, so the page works with no network (no CDN, and the default web
 * fonts are turned off).
 */
export const SCALAR_BUNDLE_PATH = "/docs/vendor/scalar.js";

/** Scalar's configuration, read by its bundle from the page (its HTML API), not from an inline script. */
const SCALAR_CONFIG = { url: "/openapi.json", withDefaultFonts: false, hideClientButton: true };

const attribute = (s: string) => s.replace(/&/g, "&amp;").replace(/'/g, "&#39;").replace(/</g, "&lt;");

/**
 * The page carries the dashboard's policy like every page (middleware/security-headers.ts), which allows
 * no inline script: so not Scalar's own Hono page, whose configuration is an inline script. The bundle
 * reads it from the `api-reference` element instead; that element is an empty JSON data block, which a
 * browser never executes.
 */
const PAGE = `<!doctype html>
<html lang="en">
  <head>
    <meta charset="utf-8" />
    <meta name="viewport" content="width=device-width, initial-scale=1" />
    <title>assay API reference</title>
    <link rel="icon" href="data:," />
  </head>
  <body>
    <script id="api-reference" type="application/json" data-url="${SCALAR_CONFIG.url}" data-configuration='${attribute(JSON.stringify(SCALAR_CONFIG))}'></script>
    <script src="${SCALAR_BUNDLE_PATH}"></script>
  </body>
</html>
`;

export const docs = createRouter();
docs.get("/docs", (c) => c.html(PAGE));
