// Issue 14, item 7: the Idempotency-Key length limit was 255 characters on one create route and 200 on
// the others. It is one value (LIMITS.idempotencyKeyChars) on every route that creates runs.
import { describe, expect, it } from "vitest";
import { LIMITS } from "../../src/limits.ts";
import { call, newTenant, problem } from "./helpers.ts";

const CREATE_ROUTES = ["/v1/chain-determinism/runs", "/v1/rpl/runs", "/v1/judge/runs", "/v1/reasoning-quality/runs"];

describe("Idempotency-Key on the routes that create runs", () => {
  it.each(CREATE_ROUTES)(
    "%s takes a key of LIMITS.idempotencyKeyChars characters and refuses one more, naming the header",
    async (route) => {
      const { key } = await newTenant();
      // An empty body is refused whatever the key, so no run is made: the header's own error is what differs.
      const paths = async (idempotencyKey: string) => {
        const res = await call(route, {
          method: "POST",
          headers: {
            Authorization: `Bearer ${key}`,
            "Content-Type": "application/json",
            "Idempotency-Key": idempotencyKey,
          },
          body: "{}",
        });
        return (await problem(res, 400)).errors!.map((e) => e.path);
      };
      expect(LIMITS.idempotencyKeyChars).toBe(255);
      expect(await paths("k".repeat(LIMITS.idempotencyKeyChars))).not.toContain("idempotency-key");
      expect(await paths("k".repeat(LIMITS.idempotencyKeyChars + 1))).toContain("idempotency-key");
    },
  );
});
