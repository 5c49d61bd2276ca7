// Shared by the parity tests: reference data is read at run time from $REFERENCE_DIR/<suite>
// (default ../shared/reference, relative to the repo root) and is never copied into this repository.
import { readFileSync } from "node:fs";
import path from "node:path";
import { parsePyJson, toPlain, type PyPlain } from "../../src/engines/chain-determinism/index.ts";

const ROOT = path.resolve(import.meta.dirname, "../..");
export const REFERENCE_ROOT = path.resolve(ROOT, process.env.REFERENCE_DIR ?? "../shared/reference");

/** Readers for one reference suite folder, e.g. `referenceFiles("rpl")`. */
export function referenceFiles(suite: string) {
  const dir = path.join(REFERENCE_ROOT, suite);
  const text = (file: string): string => readFileSync(path.join(dir, file), "utf8");
  return {
    dir,
    text,
    json: <T = any>(file: string): T => JSON.parse(text(file)) as T,
    /** Non-empty lines of a .jsonl file, raw, so a test can also read them losslessly. */
    lines: (file: string): string[] => text(file).split("\n").filter((l) => l.trim() !== ""),
  };
}

/** Python-`json.loads`-faithful read into the stored form (keeps 1.0, big ints, NaN). */
export function lossless(text: string): PyPlain {
  const r = parsePyJson(text);
  if (!r.ok) throw new Error(`reference text is not JSON: ${r.error}`);
  return toPlain(r.value);
}
