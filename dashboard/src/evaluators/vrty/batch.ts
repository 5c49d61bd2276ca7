// A JSONL file of {prompt, response, id?} as batches for POST /v1/vrty/score/batch: read line by line
// (a line that is not JSON is reported with its number and never sent), cut at the API's 1,000 pairs
// and 16 MiB per request, and the answers put back together in file order. Pure.
import type { VrtyBatchItem, VrtyResult } from "@assay/sdk";

/** The API's limits for one batch request (docs/limits.md). */
export const MAX_PAIRS = 1000;
export const MAX_BODY_BYTES = 16 * 1024 * 1024;

export type Line = { line: number; pair: unknown };
export type Parsed = { pairs: Line[]; errors: { line: number; message: string }[] };

/** Each non-blank line as one JSON value (the API validates its fields, pair by pair). */
export function parseJsonl(text: string): Parsed {
  const pairs: Line[] = [];
  const errors: Parsed["errors"] = [];
  text.split(/\r\n|\n|\r/).forEach((raw, i) => {
    if (raw.trim() === "") return;
    try {
      pairs.push({ line: i + 1, pair: JSON.parse(raw) });
    } catch (e) {
      // The parser's own "(line 1 column 2)" counts within the line: the file's line is given apart.
      errors.push({
        line: i + 1,
        message: `not JSON (${(e as Error).message.replace(/ \(line \d+ column \d+\)$/, "")})`,
      });
    }
  });
  return { pairs, errors };
}

const encoder = new TextEncoder();

/**
 * Consecutive chunks of at most `maxPairs` whose request body stays under `maxBytes` (its JSON, with
 * room for the envelope). A single pair larger than that still goes alone: the API answers for it.
 */
export function chunk<T extends { pair: unknown }>(
  lines: readonly T[],
  maxPairs = MAX_PAIRS,
  maxBytes = MAX_BODY_BYTES,
): T[][] {
  const envelope = 64; // {"pairs":[…],"idf_table":"…"} around the pairs
  const out: T[][] = [];
  let current: T[] = [];
  let bytes = envelope;
  for (const l of lines) {
    const size = encoder.encode(JSON.stringify(l.pair) ?? "null").length + 1;
    if (current.length > 0 && (current.length >= maxPairs || bytes + size > maxBytes)) {
      out.push(current);
      current = [];
      bytes = envelope;
    }
    current.push(l);
    bytes += size;
  }
  if (current.length) out.push(current);
  return out;
}

export type Scored = { line: number; id?: string; prompt: string; response: string; result: VrtyResult };
export type Refused = { line: number; id?: string; message: string };

/** One chunk's answer matched to its lines by `index`: the scored pairs and the refused ones. */
export function collect(
  lines: readonly Line[],
  results: readonly VrtyBatchItem[],
): { scored: Scored[]; refused: Refused[] } {
  const scored: Scored[] = [];
  const refused: Refused[] = [];
  for (const r of results) {
    const l = lines[r.index];
    const pair = (l.pair && typeof l.pair === "object" ? l.pair : {}) as { prompt?: unknown; response?: unknown };
    if (r.result) {
      scored.push({
        line: l.line,
        id: r.id,
        prompt: String(pair.prompt ?? ""),
        response: String(pair.response ?? ""),
        result: r.result,
      });
    } else {
      const fields = r.error?.errors?.map((e) => `${e.path}: ${e.message}`).join("; ");
      refused.push({ line: l.line, id: r.id, message: fields || r.error?.detail || "refused" });
    }
  }
  return { scored, refused };
}
