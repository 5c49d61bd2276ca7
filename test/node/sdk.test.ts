import { mkdtempSync, readdirSync, readFileSync, rmSync, statSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, relative } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { generateSdk, HAND_WRITTEN, openApiText, SDK_DIR } from "../../scripts/generate-sdk.ts";

function files(dir: string): string[] {
  return readdirSync(dir).flatMap((name) => {
    const p = join(dir, name);
    return statSync(p).isDirectory() ? files(p) : [p];
  });
}

// If one of these fails, the API changed without `npm run sdk`: run it and commit sdk/.
describe("the committed SDK is up to date with the API", () => {
  const tmp = mkdtempSync(join(tmpdir(), "assay-sdk-"));
  afterAll(() => rmSync(tmp, { recursive: true, force: true }));

  it("sdk/openapi.json is the document the routes declare", () => {
    expect(readFileSync(join(SDK_DIR, "openapi.json"), "utf8")).toBe(openApiText());
  });

  it("sdk/src is what the generator makes from it", async () => {
    await generateSdk(tmp);
    const fresh = files(join(tmp, "src"))
      .map((p) => relative(tmp, p))
      .sort();
    const handWritten = new Set(HAND_WRITTEN.map((f) => join("src", f)));
    const committed = files(join(SDK_DIR, "src"))
      .map((p) => relative(SDK_DIR, p))
      .filter((p) => !handWritten.has(p))
      .sort();
    expect(committed).toEqual(fresh);
    for (const f of fresh) expect(readFileSync(join(SDK_DIR, f), "utf8"), f).toBe(readFileSync(join(tmp, f), "utf8"));
  });
});
