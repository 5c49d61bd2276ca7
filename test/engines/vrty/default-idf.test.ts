import { readFileSync } from "node:fs";
import { join } from "node:path";
import { afterEach, describe, expect, it, vi } from "vitest";
import { DEFAULT_IDF_SHA256 } from "../../../src/engines/vrty/data/idf-default.sha256.ts";
import { loadVerifiedIdf } from "../../../src/engines/vrty/default-idf.ts";
import { defaultIdf, defaultIdfInfo, sha256Hex, type IdfTableData } from "../../../src/engines/vrty/index.ts";

const JSON_PATH = join(import.meta.dirname, "../../../src/engines/vrty/data/idf-default.json");

describe("defaultIdf", () => {
  afterEach(() => {
    vi.doUnmock("../../../src/engines/vrty/data/idf-default.sha256.ts");
    vi.resetModules();
  });

  it("verifies the bundled table against the committed sha256 and memoises it", async () => {
    const idf = await defaultIdf();
    expect(idf.sha256).toBe(DEFAULT_IDF_SHA256);
    expect(await defaultIdf()).toBe(idf);
    // The file bytes are the canonical JSON, so the file's own hash is the table's hash.
    expect(await sha256Hex(readFileSync(JSON_PATH, "utf8"))).toBe(DEFAULT_IDF_SHA256);
  });

  it("reports metadata for the routes", async () => {
    const info = await defaultIdfInfo();
    const raw = JSON.parse(readFileSync(JSON_PATH, "utf8")) as IdfTableData;
    expect(info).toMatchObject({
      sha256: DEFAULT_IDF_SHA256,
      n_docs: raw.n_docs,
      min_df: 2,
      n_terms: Object.keys(raw.idf).length,
    });
    expect(info.size_bytes).toBe(readFileSync(JSON_PATH).length);
  });

  it("throws VrtyDataError when the committed hash does not match", async () => {
    vi.resetModules();
    vi.doMock("../../../src/engines/vrty/data/idf-default.sha256.ts", () => ({ DEFAULT_IDF_SHA256: "0".repeat(64) }));
    const fresh = await import("../../../src/engines/vrty/default-idf.ts");
    await expect(fresh.defaultIdf()).rejects.toThrow(/^VrtyDataError: IDF table sha256 [0-9a-f]{64} does not match/);
  });

  it("throws VrtyDataError for a tampered table", async () => {
    const raw = JSON.parse(readFileSync(JSON_PATH, "utf8")) as IdfTableData;
    raw.idf.paris = raw.idf.paris + 1e-9;
    await expect(loadVerifiedIdf(raw, DEFAULT_IDF_SHA256)).rejects.toThrow(/^VrtyDataError:/);
  });
});
