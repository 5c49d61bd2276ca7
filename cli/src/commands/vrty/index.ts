// `assay vrty`: vrty's command line (score one pair, print its JSON) and `assay vrty batch` (a JSONL file
// of pairs), scored by the server or, with --local, in-process by the same engine: no server, no network.
import type { Command } from "commander";
import { scoreVrty, scoreVrtyBatch, type VrtyBatchItem, type VrtyResult } from "@assay/sdk";
import { defaultIdf, score } from "../../../../src/engines/vrty/index.ts";
import { VrtyBatchPair, VrtyScoreRequest } from "../../../../src/evaluators/vrty/schemas.ts";
import { fieldErrors, invalidFieldsDetail } from "../../../../src/json/field-errors.ts";
import { checkJson, type JsonFieldProblem } from "../../../../src/json/strict-json.ts";
import { LIMITS } from "../../../../src/limits.ts";
import { CliError, problemLine, usageError } from "../../errors.ts";
import { gate, threshold } from "../../gate.ts";
import { isRecord, readText, writeText } from "../../io.ts";
import { call, session, type GlobalOptions, type Session } from "../../session.ts";

// The API's limits, from the one place the server reads them: `batch` splits a longer file into several
// requests and never sends one the server would refuse as a whole.
const BATCH_PAIRS = LIMITS.batchPairs;
const BULK_BODY_BYTES = LIMITS.bulkBodyBytes;
const JSON_DEPTH = LIMITS.jsonDepth;

type ItemError = NonNullable<VrtyBatchItem["error"]>;

/**
 * What the API finds wrong with a pair of a batch: its own schema and wording (the route validates each
 * pair with VrtyBatchPair and names the top `pair`), so --local reports a bad pair exactly as the server
 * does. Empty when the pair is valid.
 */
function pairProblems(raw: unknown): JsonFieldProblem[] {
  const parsed = VrtyBatchPair.safeParse(raw);
  return parsed.success ? [] : fieldErrors(parsed.error, "pair");
}

const invalid = (index: number, errors: JsonFieldProblem[]): ItemError => ({
  status: 400,
  title: "Validation failed",
  detail: `Pair ${index} has invalid fields.`,
  errors,
});

/** A batch item in the API's shape and key order: index, the pair's own id when it has a string one, then result or error. */
function item(index: number, raw: unknown, outcome: { result: VrtyResult } | { error: ItemError }): VrtyBatchItem {
  const id = isRecord(raw) && typeof raw.id === "string" ? raw.id : undefined;
  return { index, ...(id === undefined ? {} : { id }), ...outcome };
}

// ---- one pair ----------------------------------------------------------------------------------

type ScoreOptions = {
  prompt?: string;
  response?: string;
  promptFile?: string;
  responseFile?: string;
  pretty?: boolean;
  local?: boolean;
  idfTable?: string;
};

const STDIN = new Set(["-", "/dev/stdin"]);

/** Which of vrty's mutually exclusive, required pair was given: the text itself, or a file to read it from. */
function source(
  name: "prompt" | "response",
  value: string | undefined,
  file: string | undefined,
): { text: string } | { file: string } {
  if (value !== undefined && file !== undefined) throw usageError(`give --${name} or --${name}-file, not both`);
  if (value !== undefined) return { text: value };
  if (file !== undefined) return { file };
  throw usageError(`--${name} or --${name}-file is required`);
}

const read = async (src: { text: string } | { file: string }) => ("text" in src ? src.text : readText(src.file));

/** --local has no server: --server and a custom IDF table (stored on a server) make no sense with it. */
function checkLocal(opts: { local?: boolean; idfTable?: string }, globals: GlobalOptions): void {
  if (!opts.local) return;
  if (globals.server !== undefined) throw usageError("--local scores in-process: it takes no --server");
  if (opts.idfTable !== undefined && opts.idfTable !== "default") {
    throw usageError("--local has only the built-in IDF table; custom tables live on a server (drop --local)");
  }
}

async function scoreLocally(prompt: string, response: string): Promise<VrtyResult> {
  // The route's own body schema: a text past the API's limit reads the same with and without --local.
  const parsed = VrtyScoreRequest.safeParse({ prompt, response });
  if (!parsed.success) {
    const errors = fieldErrors(parsed.error);
    throw new CliError(
      problemLine({ status: 400, title: "Validation failed", detail: invalidFieldsDetail(errors), errors }),
    );
  }
  return score(prompt, response, await defaultIdf());
}

async function scoreOne(opts: ScoreOptions, cmd: Command): Promise<void> {
  const globals = cmd.optsWithGlobals<GlobalOptions>();
  // Every usage error before anything is read or sent.
  checkLocal(opts, globals);
  if (STDIN.has(opts.promptFile ?? "") && STDIN.has(opts.responseFile ?? "")) {
    throw usageError("standard input can be read once: give it to --prompt-file or --response-file, not both");
  }
  const promptSource = source("prompt", opts.prompt, opts.promptFile);
  const responseSource = source("response", opts.response, opts.responseFile);
  const s = opts.local ? undefined : session(cmd);
  const prompt = await read(promptSource);
  const response = await read(responseSource);
  let result: VrtyResult;
  if (!s) {
    // No session: --local needs neither ASSAY_URL nor a key, and opens no connection.
    result = await scoreLocally(prompt, response);
  } else {
    const body = { prompt, response, ...(opts.idfTable === undefined ? {} : { idf_table: opts.idfTable }) };
    result = await call(s, scoreVrty({ client: s.client, body }));
  }
  // The score's JSON as the API sends it (keys sorted, shortest round-trip numbers), so --local and the
  // server print the same bytes. --json asks for a machine-readable line and wins over --pretty.
  const indent = opts.pretty && !globals.json ? 2 : undefined;
  process.stdout.write(JSON.stringify(result, null, indent) + "\n");
}

// ---- a file of pairs -----------------------------------------------------------------------------

type BatchOptions = { in: string; out: string; local?: boolean; idfTable?: string; minComposite?: number };

/** A line of the input: its pair, or why it cannot even be sent (not JSON, repeated keys, too deep). */
type Entry = { index: number; raw: unknown; json: string } | { index: number; raw: unknown; error: ItemError };

function readEntries(content: string): Entry[] {
  const entries: Entry[] = [];
  content
    .replace(/^\uFEFF/, "")
    .split(/\r?\n/)
    .forEach((line, n) => {
      if (!line.trim()) return; // blank lines separate nothing in JSONL; they get no output line
      const index = entries.length;
      // The server's strict reader: JSON's grammar, then what JSON.parse lets through but the API refuses
      // in any body (a repeated key, nesting past its limit). The request body is level 1 and `pairs`
      // level 2, so a pair may nest JSON_DEPTH - 2 levels.
      const check = checkJson(line, { maxDepth: JSON_DEPTH - 2 });
      if (!check.ok && "syntax" in check) {
        const { message, column } = check.syntax;
        const detail = `Line ${n + 1} is not valid JSON: ${message} at column ${column}.`;
        entries.push({ index, raw: undefined, error: { status: 400, title: "Malformed JSON", detail, errors: [] } });
        return;
      }
      // Scanned, so neither too deep for JSON.parse nor hiding a repeated key.
      const raw: unknown = JSON.parse(line);
      if (!check.ok) entries.push({ index, raw, error: invalid(index, check.fields) });
      else entries.push({ index, raw, json: JSON.stringify(raw) });
    });
  return entries;
}

async function scoreLocalEntries(entries: Entry[]): Promise<VrtyBatchItem[]> {
  const idf = await defaultIdf();
  return entries.map((e) => {
    if ("error" in e) return item(e.index, e.raw, { error: e.error });
    const problems = pairProblems(e.raw);
    if (problems.length) return item(e.index, e.raw, { error: invalid(e.index, problems) });
    const pair = e.raw as { prompt: string; response: string };
    return item(e.index, e.raw, { result: score(pair.prompt, pair.response, idf) });
  });
}

/**
 * Scores the entries on the server, in as many requests as the API's limits need (pairs per request,
 * body bytes). Each request's results are numbered from 0; they are put back at their place in the file.
 */
async function scoreRemoteEntries(
  s: Session,
  entries: Entry[],
  idfTable: string | undefined,
): Promise<VrtyBatchItem[]> {
  const items: VrtyBatchItem[] = new Array(entries.length);
  const tail = idfTable === undefined ? "" : `,"idf_table":${JSON.stringify(idfTable)}`;
  const budget = BULK_BODY_BYTES - Buffer.byteLength(`{"pairs":[]${tail}}`);
  let chunk: { index: number; raw: unknown }[] = [];
  let bytes = 0;
  const send = async () => {
    if (!chunk.length) return;
    const body = { pairs: chunk.map((c) => c.raw), ...(idfTable === undefined ? {} : { idf_table: idfTable }) };
    const answer = await call(s, scoreVrtyBatch({ client: s.client, body }));
    if (answer.results.length !== chunk.length) {
      throw new CliError(`the server answered ${answer.results.length} results for ${chunk.length} pairs`);
    }
    answer.results.forEach((r, j) => {
      const { index, raw } = chunk[j];
      if (r.error) {
        const detail =
          r.error.detail === `Pair ${r.index} has invalid fields.`
            ? `Pair ${index} has invalid fields.`
            : r.error.detail;
        items[index] = item(index, raw, { error: { ...r.error, detail } });
      } else {
        items[index] = item(index, raw, { result: r.result! });
      }
    });
    chunk = [];
    bytes = 0;
  };
  for (const e of entries) {
    if ("error" in e) {
      items[e.index] = item(e.index, e.raw, { error: e.error });
      continue;
    }
    const size = Buffer.byteLength(e.json) + 1; // and its comma
    if (size > budget) {
      // No request can carry it. Only a pair far past the text limits is this big, so the API's own
      // schema names what is wrong with it.
      const problems = pairProblems(e.raw);
      items[e.index] = item(e.index, e.raw, {
        error: problems.length
          ? invalid(e.index, problems)
          : {
              status: 413,
              title: "Payload too large",
              detail: `Pair ${e.index} is ${size - 1} bytes of JSON, more than one request may carry.`,
              errors: [],
            },
      });
      continue;
    }
    if (chunk.length === BATCH_PAIRS || bytes + size > budget) await send();
    chunk.push({ index: e.index, raw: e.raw });
    bytes += size;
  }
  await send();
  return items;
}

/** Count, failures and the composite's mean and minimum over the pairs that were scored. */
function summarize(items: VrtyBatchItem[]) {
  const composites = items.flatMap((i) => (i.result ? [i.result.composite] : []));
  const scored = composites.length;
  return {
    pairs: items.length,
    scored,
    failed: items.length - scored,
    mean_composite: scored ? composites.reduce((a, b) => a + b, 0) / scored : null,
    min_composite: scored ? composites.reduce((a, b) => Math.min(a, b)) : null,
  };
}

async function scoreBatch(own: BatchOptions, cmd: Command): Promise<void> {
  // `vrty` has --local and --idf-table too, and commander gives a flag to the parent wherever it stands
  // (`vrty batch --local` included): read them from both levels.
  const globals = cmd.optsWithGlobals<GlobalOptions & BatchOptions>();
  const opts: BatchOptions = { ...own, local: globals.local, idfTable: globals.idfTable };
  checkLocal(opts, globals);
  // The session first: a wrong server or key is a usage error before any file is read.
  const s = opts.local ? undefined : session(cmd);
  const entries = readEntries(await readText(opts.in));
  const items = s ? await scoreRemoteEntries(s, entries, opts.idfTable) : await scoreLocalEntries(entries);
  await writeText(opts.out, items.map((i) => JSON.stringify(i) + "\n").join(""));

  const sum = summarize(items);
  const toStdout = opts.out === "-" || opts.out === "/dev/stdout";
  if (globals.json && !toStdout) {
    process.stdout.write(JSON.stringify({ ...sum, out: opts.out }) + "\n");
  } else {
    const f = (x: number | null) => (x === null ? "n/a" : x.toFixed(4));
    const where = toStdout ? "" : ` -> ${opts.out}`;
    process.stderr.write(
      `${sum.pairs} pairs: ${sum.scored} scored, ${sum.failed} failed; composite mean ${f(sum.mean_composite)}, min ${f(sum.min_composite)}${where}\n`,
    );
  }
  if (opts.minComposite !== undefined) {
    // The gate is on the mean over the scored pairs: one weak answer should not fail a suite whose
    // answers are good on the whole (vrty's calibration bands vary per prompt); bad lines are not in it.
    process.exitCode = gate([
      {
        flag: "--min-composite",
        metric: "mean_composite",
        value: sum.mean_composite,
        threshold: opts.minComposite,
        kind: "min",
      },
    ]);
  }
}

export function register(program: Command): void {
  const vrty = program
    .command("vrty")
    .description("score a (prompt, response) pair as vrty does and print its JSON; `vrty batch` scores a JSONL file")
    .option("--prompt <text>", "the prompt")
    .option("--prompt-file <path>", "read the prompt from a file (`-` or /dev/stdin: standard input)")
    .option("--response <text>", "the response to score")
    .option("--response-file <path>", "read the response from a file (`-` or /dev/stdin: standard input)")
    .option("--pretty", "indent the JSON")
    .option("--local", "score in-process with the built-in IDF table: no server, no key, no network")
    .option("--idf-table <id>", "a custom IDF table of the server (default: the built-in one)")
    .addHelpText(
      "after",
      "\nPrints the 9-key score JSON, as POST /v1/vrty/score returns it (--json: always one line).\nExit codes: 0 success, 1 I/O error (file, server, API error), 2 usage error.",
    )
    .action(scoreOne);

  vrty
    .command("batch")
    .description("score a JSONL file of {prompt, response, id?} pairs: one output line per pair, in order")
    .requiredOption("--in <path>", "the pairs, one JSON object per line (`-`: standard input)")
    .option("--out <path>", "where the results go, one JSON line per pair (`-`: standard output)", "-")
    .option("--local", "score in-process with the built-in IDF table: no server, no key, no network")
    .option("--idf-table <id>", "a custom IDF table of the server (default: the built-in one)")
    .option(
      "--min-composite <x>",
      "gate: exit 3 unless the mean composite of the scored pairs is at least x",
      threshold("--min-composite"),
    )
    .addHelpText(
      "after",
      "\nEach output line is the API's batch item: {index, id?, result} or {index, id?, error}; a bad line or pair\ngets an error item and the rest are scored. A summary goes to stderr (with --json and --out FILE: to stdout, as JSON).\nExit codes: 0 success, 1 I/O error, 2 usage error, 3 --min-composite failed.",
    )
    .action(scoreBatch);
}
