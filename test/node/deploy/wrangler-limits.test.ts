// Issue 23, "From the README to a deployment": wrangler.jsonc states the per-invocation limits the code
// relies on, and they agree with the figures the code enforces (src/platform/limits.ts).
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { parse, type ParseError } from "jsonc-parser";
import { describe, expect, it } from "vitest";
import { limitOf } from "../../../src/platform/limits.ts";

const ROOT = join(import.meta.dirname, "../../..");
const errors: ParseError[] = [];
const config = parse(readFileSync(join(ROOT, "wrangler.jsonc"), "utf8"), errors) as {
  limits?: { cpu_ms?: number; subrequests?: number };
};

describe("wrangler.jsonc limits", () => {
  it("parses", () => expect(errors).toEqual([]));

  it("allows each invocation exactly the subrequests the code counts against", () => {
    expect(config.limits?.subrequests).toBe(limitOf("subrequestsPerInvocation"));
  });

  it("raises CPU per invocation above the 30 s default, within the platform's maximum", () => {
    const cpu = config.limits?.cpu_ms;
    expect(cpu).toBeGreaterThan(limitOf("cpuMsDefault"));
    expect(cpu).toBeLessThanOrEqual(limitOf("cpuMsMax"));
  });
});
