// Issue 30: the signed-out dashboard asked GET /v1/session and got a 401, which Chromium logs as an error.
// Signing in now also sets a hint the page can read (no secret, grants nothing); signing out clears it;
// GET /v1/session still answers 401 to anyone without a session, as documented.
import { describe, expect, it } from "vitest";
import { call, newTenant, problem } from "./helpers.ts";

const ORIGIN = "http://assay.test";

function cookieNamed(res: Response, name: string): string | undefined {
  return res.headers.getSetCookie().find((c) => c.startsWith(`${name}=`));
}

describe("the dashboard's sign-in hint", () => {
  it("is set readable by the page's scripts beside the session, holds no secret, and sign-out clears it", async () => {
    const { key } = await newTenant("hint-acme");
    const signIn = await call("/v1/session", {
      method: "POST",
      headers: { "Content-Type": "application/json", Origin: ORIGIN },
      body: JSON.stringify({ api_key: key }),
    });
    expect(signIn.status).toBe(201);
    const { csrf_token } = (await signIn.json()) as { csrf_token: string };
    const hint = cookieNamed(signIn, "assay_signed_in")!;
    const session = cookieNamed(signIn, "assay_session")!;
    expect(hint.split("; ")).toEqual(
      expect.arrayContaining(["assay_signed_in=1", "Path=/", "SameSite=Strict", "Max-Age=43200"]),
    );
    expect(hint).not.toContain("HttpOnly");
    // Only the session cookie authenticates: the hint alone is nobody.
    expect((await call("/v1/session", { headers: { Cookie: "assay_signed_in=1" } })).status).toBe(401);
    const sessionCookie = session.split(";")[0];
    const signOut = await call("/v1/session", {
      method: "DELETE",
      headers: { Cookie: `${sessionCookie}; assay_signed_in=1`, Origin: ORIGIN, "X-CSRF-Token": csrf_token },
    });
    expect(signOut.status).toBe(204);
    const cleared = cookieNamed(signOut, "assay_signed_in")!;
    expect(cleared.split("; ")).toEqual(expect.arrayContaining(["assay_signed_in=", "Path=/", "Max-Age=0"]));
  });

  it("leaves GET /v1/session as documented: 401 problem+json without a session", async () => {
    const body = await problem(await call("/v1/session"), 401);
    expect(body.type).toBe("/problems/unauthenticated");
  });
});
