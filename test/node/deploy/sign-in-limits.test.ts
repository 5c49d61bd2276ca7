// Issue 30, "Sign-in and keys": the Rate Limiting bindings in wrangler.jsonc count failed credential
// checks at each location with the same bounds and window that this isolate counts with and that
// `Retry-After` states (src/auth/sign-in-limits.ts): an operator who changes one and not the other fails here.
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { parse, type ParseError } from "jsonc-parser";
import { describe, expect, it } from "vitest";
import { SIGN_IN_LIMITS } from "../../../src/auth/sign-in-limits.ts";

type RateLimitBinding = { name: string; namespace_id: string; simple: { limit: number; period: number } };

const errors: ParseError[] = [];
const config = parse(readFileSync(join(import.meta.dirname, "../../../wrangler.jsonc"), "utf8"), errors) as {
  ratelimits?: RateLimitBinding[];
};
const binding = (name: string) => config.ratelimits?.find((r) => r.name === name);

describe("wrangler.jsonc ratelimits", () => {
  it("parses", () => expect(errors).toEqual([]));

  it.each([
    ["AUTH_FAILURES_BY_ADDRESS", SIGN_IN_LIMITS.failuresPerAddress],
    ["AUTH_FAILURES_BY_PREFIX", SIGN_IN_LIMITS.failuresPerPrefix],
  ])("%s allows %i failures per window of sign-in-limits.ts", (name, limit) => {
    expect(binding(name)?.simple).toEqual({ limit, period: SIGN_IN_LIMITS.windowSeconds });
  });

  it("gives each binding a namespace of its own (ids are per account)", () => {
    const ids = (config.ratelimits ?? []).map((r) => r.namespace_id);
    expect(new Set(ids).size).toBe(ids.length);
    for (const id of ids) expect(id).toMatch(/^[1-9][0-9]*$/);
  });
});
