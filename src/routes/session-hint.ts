// The dashboard's "someone may be signed in" hint (issue 30). The session cookie is HttpOnly, so the
// page cannot see whether it has one; without a hint its first load would ask GET /v1/session and get
// a 401 whenever nobody is signed in, which browsers log as a failed load. This second cookie says only
// that a sign-in happened in this browser and has not ended here: no secret, no tenant, readable by the
// page, which asks GET /v1/session only when it is present. It grants nothing: the session cookie
// alone authenticates, and GET /v1/session keeps answering 401 without one.
import { deleteCookie, setCookie } from "hono/cookie";
import type { Context } from "hono";

/** The cookie's name and its one value; the dashboard reads it (dashboard/src/session.tsx). */
export const SIGNED_IN_HINT = "assay_signed_in";

const https = (c: Context) => new URL(c.req.url).protocol === "https:";

/** Set beside the session cookie, for as long: on path `/`, so the dashboard's pages can read it. */
export function setSignedInHint(c: Context, maxAgeSeconds: number): void {
  setCookie(c, SIGNED_IN_HINT, "1", { path: "/", sameSite: "Strict", secure: https(c), maxAge: maxAgeSeconds });
}

export function clearSignedInHint(c: Context): void {
  deleteCookie(c, SIGNED_IN_HINT, { path: "/", secure: https(c) });
}
