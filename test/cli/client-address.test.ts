// The e2e files' deliberate credential failures come from addresses of their own (test/browser/browser.ts
// `ownAddress`), which holds only while wrangler dev passes a client-set CF-Connecting-IP through to the
// Worker. Were it overwritten with 127.0.0.1, the second address below would share the first's throttle.
import { expect, inject, it } from "vitest";
import { SIGN_IN_LIMITS } from "../../src/auth/sign-in-limits.ts";
import { ownAddress } from "../browser/browser.ts";

it("wrangler dev counts failed checks by the client-set CF-Connecting-IP", async () => {
  const admin = (from: Record<string, string>) =>
    fetch(`${inject("assayUrl")}/v1/admin/tenants`, {
      headers: { Authorization: "Bearer not-the-operator-token", ...from },
    }).then(async (r) => {
      await r.body?.cancel();
      return r.status;
    });
  const first = ownAddress();
  const statuses: number[] = [];
  for (let i = 0; i <= SIGN_IN_LIMITS.failuresPerAddress; i++) statuses.push(await admin(first));
  expect(statuses).toEqual([...Array<number>(SIGN_IN_LIMITS.failuresPerAddress).fill(401), 429]);
  expect(await admin(ownAddress())).toBe(401);
});
