// What chain_determinism_harness prints and writes, built from a run of the API: the console layout
// (header block, one `[i/N]` block per query, the closing summary), the summary JSON of `--out` and the
// per-replay JSONL of `--runs-out`.
import type { ChainDeterminismConfig, ChainDeterminismResult } from "@assay/sdk";
// Pure engine code (no platform): Python's json.loads grammar and json.dumps text. The CLI reads rows
// through parsePyJson rather than parseLossless/fromPlain, which need JSON.rawJSON (Node 21+).
import { pyJsonDumpsSorted } from "../../../../src/engines/chain-determinism/dataset-hash.ts";
import { parsePyJson, pyTruthy, type PyValue } from "../../../../src/engines/python/lossless-json.ts";
import { pyFloatRepr } from "../../../../src/engines/python/float.ts";
import { CliError } from "../../errors.ts";

/** The label column of the header block: `total calls: ` is the widest label. */
const label = (name: string) => `    ${`${name}:`.padEnd(13)}`;

export type SuiteInfo = { id: string; name: string; n_queries: number; query_ids: string[] };

/** The harness's header block, for a run of ours: model, queries, replays, total calls, then our settings. */
export function headerBlock(
  verb: string,
  runId: string,
  config: ChainDeterminismConfig,
  suite: SuiteInfo | null,
): string {
  const outOf = suite ? `  (out of ${suite.n_queries} in suite ${suite.id})` : "";
  const lines = [
    `==> assay chain-determinism ${verb}`,
    `${label("model")}${config.model}`,
    `${label("queries")}${config.n_queries}${outOf}`,
    `${label("replays")}${config.n_replays} per query`,
    `${label("total calls")}${config.n_queries * config.n_replays}`,
    `${label("temperature")}${pyFloatRepr(config.temperature)}`,
    `${label("concurrency")}${config.concurrency}`,
    `${label("endpoint")}${config.provider ? config.provider.base_url : "simulator (no network)"}`,
    `${label("suite")}${config.suite.id}  ${config.suite.name}`,
    `${label("run")}${runId}`,
  ];
  return lines.join("\n") + "\n";
}

/** One per-replay row of the NDJSON export: its exact text, and what the console needs from it. */
export type ExportRow = { line: string; query_id: string; run_idx: number; ok: boolean; displayKey: string };

function field(row: PyValue, key: string): PyValue | undefined {
  if (row.t !== "dict") return undefined;
  // Python's json.loads keeps the last of duplicate keys.
  for (let i = row.entries.length - 1; i >= 0; i--) if (row.entries[i][0] === key) return row.entries[i][1];
  return undefined;
}

/**
 * The harness's console `unique_sequences` key (spec §4): the tuple of `(name, json.dumps(args
 * default {}, sort_keys=True))` per call. Display only: it can disagree with `n_unique_sequences`
 * (which tells `1` from `1.0` inside args the same way, but not an absent `args` from `{}`).
 */
function displayKey(row: PyValue): string {
  const seq = field(row, "tool_call_sequence");
  const calls = seq?.t === "list" ? seq.items : [];
  return JSON.stringify(
    calls.map((call) => {
      const name = field(call, "name");
      const args = field(call, "args");
      return [name ? pyJsonDumpsSorted(name) : "null", args ? pyJsonDumpsSorted(args) : "{}"];
    }),
  );
}

/** Reads the NDJSON export, keeping each line's text as the API wrote it. */
export function parseExport(ndjson: string): ExportRow[] {
  return ndjson
    .split("\n")
    .filter((line) => line.trim() !== "")
    .map((line, i) => {
      const parsed = parsePyJson(line);
      if (!parsed.ok) throw new CliError(`the server's per-replay export has a bad line ${i + 1}: ${parsed.error}`);
      const row = parsed.value;
      const id = field(row, "query_id");
      const idx = field(row, "run_idx");
      return {
        line,
        query_id: id?.t === "str" ? id.v : "",
        run_idx: idx?.t === "int" ? Number(idx.v) : 0,
        // The harness counts a replay ok when it has no error_category.
        ok: !pyTruthy(field(row, "error_category") ?? { t: "null" }),
        displayKey: displayKey(row),
      };
    });
}

/**
 * The order the harness writes and prints in: queries in suite order (the first N), each query's
 * replays by run_idx. Without the suite (deleted since), queries in code-point order of their ids.
 */
export function queryOrder(rows: ExportRow[], suite: SuiteInfo | null, nQueries: number): string[] {
  const present = new Set(rows.map((r) => r.query_id));
  const fromSuite = suite ? suite.query_ids.slice(0, nQueries).filter((id) => present.has(id)) : [];
  const rest = [...present].filter((id) => !fromSuite.includes(id)).sort((a, b) => (a < b ? -1 : a > b ? 1 : 0));
  return [...fromSuite, ...rest];
}

export function byQuery(rows: ExportRow[], order: string[]): Map<string, ExportRow[]> {
  const groups = new Map(order.map((id) => [id, [] as ExportRow[]]));
  for (const r of rows) groups.get(r.query_id)?.push(r);
  for (const g of groups.values()) g.sort((a, b) => a.run_idx - b.run_idx);
  return groups;
}

/** The harness's per-query block: a blank line, `  [i/N] <query id>`, `      ok=k/N  unique_sequences=u`. */
export function queryBlocks(groups: Map<string, ExportRow[]>): string {
  const n = groups.size;
  let out = "";
  let i = 0;
  for (const [id, rows] of groups) {
    const ok = rows.filter((r) => r.ok);
    const unique = new Set(ok.map((r) => r.displayKey)).size;
    out += `\n  [${++i}/${n}] ${id}\n      ok=${ok.length}/${rows.length}  unique_sequences=${unique}\n`;
  }
  return out;
}

/** `--runs-out`: the API's lines unchanged, in the order the harness writes its rows. */
export function runsJsonl(groups: Map<string, ExportRow[]>): string {
  return [...groups.values()]
    .flat()
    .map((r) => r.line + "\n")
    .join("");
}

/** A value json.dumps writes as a Python float (`0.0`, `1e-05`), where JSON.stringify would not. */
class PyFloat {
  readonly value: number;
  constructor(value: number) {
    this.value = value;
  }
}

const float = (x: number | null) => (x === null ? null : new PyFloat(x));

/** Python's `json.dumps(value, indent=2)`: ensure_ascii, `": "` between key and value, floats as repr. */
function dumpsIndent(value: unknown, indent = ""): string {
  if (value instanceof PyFloat) {
    const x = value.value;
    return Number.isNaN(x) ? "NaN" : Number.isFinite(x) ? pyFloatRepr(x) : x > 0 ? "Infinity" : "-Infinity";
  }
  if (value === null || value === undefined) return "null";
  if (typeof value === "boolean") return value ? "true" : "false";
  if (typeof value === "number") return String(value);
  if (typeof value === "string") return pyJsonDumpsSorted({ t: "str", v: value });
  const inner = indent + "  ";
  if (Array.isArray(value)) {
    if (value.length === 0) return "[]";
    return `[\n${value.map((v) => inner + dumpsIndent(v, inner)).join(",\n")}\n${indent}]`;
  }
  const entries = Object.entries(value as Record<string, unknown>).filter(([, v]) => v !== undefined);
  if (entries.length === 0) return "{}";
  return `{\n${entries.map(([k, v]) => `${inner}${pyJsonDumpsSorted({ t: "str", v: k })}: ${dumpsIndent(v, inner)}`).join(",\n")}\n${indent}}`;
}

/**
 * `--out`: the harness's summary, `{model, n_queries, n_replays, temperature, elapsed_s, **stats}` with
 * its keys, in its order (the stats' `n_queries` overwrites the first in place), written by json.dumps
 * with indent 2. Our additions to the result (modal share, first divergence, endpoint) are left out:
 * `--json` prints the whole run. `elapsed_s` is the run's time from creation to its end.
 */
export function summaryJson(result: ChainDeterminismResult, elapsedS: number): string {
  const summary = {
    model: result.model,
    n_queries: result.n_queries,
    n_replays: result.n_replays,
    temperature: float(result.temperature),
    elapsed_s: float(elapsedS),
    n_total: result.n_total,
    n_errors: result.n_errors,
    n_measurable: result.n_measurable,
    n_diverged: result.n_diverged,
    divergence_rate: float(result.divergence_rate),
    wilson_ci_95: (result.wilson_ci_95 as (number | null)[]).map(float),
    per_query: result.per_query.map((q) => ({
      query_id: q.query_id,
      n_total: q.n_total,
      n_success: q.n_success,
      diverged: q.diverged,
      status: q.status,
      n_unique_sequences: q.status === "measurable" ? q.n_unique_sequences : undefined,
    })),
  };
  return dumpsIndent(summary) + "\n";
}
