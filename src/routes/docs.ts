import { Scalar } from "@scalar/hono-api-reference";
import { createRouter } from "./router.ts";

/**
 * The API reference page. Its script is the Scalar bundle copied into `public/docs/vendor/` at install
 * time and served as a static asset by the Worker, so the page works with no network (no CDN, and the
 * default web fonts are turned off).
 */
export const SCALAR_BUNDLE_PATH = "/docs/vendor/scalar.js";

export const docs = createRouter();
docs.get(
  "/docs",
  Scalar({
    url: "/openapi.json",
    cdn: SCALAR_BUNDLE_PATH,
    pageTitle: "assay API reference",
    withDefaultFonts: false,
    hideClientButton: true,
  }),
);
