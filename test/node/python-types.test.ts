import { readFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { PYTHON_TYPES, pythonTypes } from "../../scripts/generate-python.ts";

const OPENAPI = join(import.meta.dirname, "..", "..", "sdk", "openapi.json");

// If this fails, the API changed without `npm run sdk`: run it and commit python/src/assay_client/types.py.
describe("the committed Python types are up to date with the API", () => {
  const openapi = JSON.parse(readFileSync(OPENAPI, "utf8"));

  it("types.py is what scripts/generate-python.ts makes from sdk/openapi.json", () => {
    expect(readFileSync(PYTHON_TYPES, "utf8")).toBe(pythonTypes(openapi));
  });

  it("has one type per schema of the document, under the schema's name", () => {
    const text = readFileSync(PYTHON_TYPES, "utf8");
    const defined = new Set([...text.matchAll(/^(?:class (\w+)\(|(\w+): TypeAlias = )/gm)].map((m) => m[1] ?? m[2]));
    for (const name of Object.keys(openapi.components.schemas)) expect(defined, name).toContain(name);
  });
});
