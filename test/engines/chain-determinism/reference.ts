// Shared by the chain-determinism parity tests: the reference data is read at run time from
// $REFERENCE_DIR/chain-determinism (default ../shared/reference, relative to the repo root) and is
// never copied into this repository.
import { readFileSync } from "node:fs";
import path from "node:path";
import { parsePyJson, toPlain, type PyPlain } from "../../../src/engines/chain-determinism/index.ts";

const ROOT = path.resolve(import.meta.dirname, "../../..");
export const REF_DIR = path.resolve(ROOT, process.env.REFERENCE_DIR ?? "../shared/reference", "chain-determinism");

export function refText(file: string): string {
  return readFileSync(path.join(REF_DIR, file), "utf8");
}

export function refJson<T = any>(file: string): T {
  return JSON.parse(refText(file)) as T;
}

/** Non-empty lines of a .jsonl file, raw, so a test can also read them losslessly. */
export function refLines(file: string): string[] {
  return refText(file).split("\n").filter((l) => l.trim() !== "");
}

/** Python-`json.loads`-faithful read into the stored form (keeps 1.0, big ints, NaN). */
export function lossless(text: string): PyPlain {
  const r = parsePyJson(text);
  if (!r.ok) throw new Error(`reference text is not JSON: ${r.error}`);
  return toPlain(r.value);
}
