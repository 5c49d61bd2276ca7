// Suite files, in either layout: ours (the API's CreateSuiteRequest, a bare suite, or a suite as
// `GET /suites/{id}` returns it), or the harness's own queries (query_id, kb_id, target_term,
// query_type, question), whose user messages are rendered here as the harness renders them.
import { basename } from "node:path";
import type { CreateSuiteRequest } from "@assay/sdk";
import { pyJsonDumpsSorted } from "../../../../src/engines/chain-determinism/dataset-hash.ts";
import { parsePyJson } from "../../../../src/engines/python/lossless-json.ts";
import { CliError, usageError } from "../../errors.ts";
import { isRecord, readText } from "../../io.ts";

type SuiteBody = CreateSuiteRequest["suite"];
type Query = SuiteBody["queries"][number];

/** One query in the harness's layout (its queries.json), as the bench publishes them. */
export type HarnessQuery = {
  query_id: string;
  kb_id: string;
  target_term?: string | null;
  query_type?: string | null;
  question: string;
};

// The harness's fixed lines around each question (spec §2, "System prompt / user message").
const HINT = "(Use tool calls like `all_beliefs()` or `filter_beliefs(term=...)` to inspect contents.)";
const CLOSING = "Use the primitive tools to compute the answer; then call final_answer with just the value.";

/**
 * The harness's user message: the knowledge-base line, the hint line and, only for a non-empty
 * target term, the target line, joined by newlines; then a blank line, the question, a blank line
 * and the closing instruction.
 */
export function renderUserMessage(q: HarnessQuery): string {
  const lines = [`# Knowledge base id: ${q.kb_id}`, HINT];
  if (q.target_term) lines.push(`Target term mentioned in the question: '${q.target_term}'`);
  return lines.join("\n") + "\n\nQuestion: " + q.question + "\n\n" + CLOSING;
}

/** What a harness-layout file lacks: the system prompt, the tools and their stub responses. */
export type Registry = { system_prompt?: string; tools?: unknown[]; stubs?: Record<string, string> };

export type Parsed =
  | { layout: "request"; request: Record<string, unknown> }
  | { layout: "suite"; suite: Record<string, unknown> }
  | { layout: "harness"; queries: unknown[] };

/** A JSON file, or JSON Lines (one query a line, as datasets often ship). */
async function readJsonOrLines(path: string): Promise<unknown> {
  const text = await readText(path);
  try {
    return JSON.parse(text);
  } catch (whole) {
    const lines = text.split(/\r?\n/).filter((l) => l.trim() !== "");
    if (lines.length > 1) {
      try {
        return lines.map((l) => JSON.parse(l));
      } catch {
        // not JSON Lines either: report the file as JSON
      }
    }
    throw new CliError(`${path} is not valid JSON: ${(whole as Error).message}`);
  }
}

const isHarnessQuery = (q: unknown) => isRecord(q) && "question" in q && !("user" in q);

/** Which layout a suite file is in. */
export async function readSuiteFile(path: string): Promise<Parsed> {
  const value = await readJsonOrLines(path);
  if (Array.isArray(value) && value.length > 0 && value.every(isHarnessQuery))
    return { layout: "harness", queries: value };
  if (isRecord(value)) {
    if (isRecord(value.suite)) return { layout: "request", request: value };
    if (
      Array.isArray(value.queries) &&
      value.queries.length > 0 &&
      value.queries.every(isHarnessQuery) &&
      !("system_prompt" in value)
    ) {
      return { layout: "harness", queries: value.queries };
    }
    if ("system_prompt" in value || "queries" in value) return { layout: "suite", suite: value };
  }
  throw new CliError(
    `${path} is not a suite: expected our suite JSON ({"name", "suite": {system_prompt, tools, stubs, queries}}) ` +
      `or the harness's queries (a list of {query_id, kb_id, target_term, query_type, question})`,
  );
}

/** Checks one harness query and renders it into our query (its user message rendered). */
export function harnessQuery(q: unknown, i: number, path: string): Query {
  const where = `${path}: query ${i + 1}`;
  if (!isRecord(q)) throw new CliError(`${where} is not an object`);
  for (const key of ["query_id", "kb_id", "question"] as const) {
    if (typeof q[key] !== "string" || (key === "query_id" && q[key] === ""))
      throw new CliError(`${where}: ${key} must be a ${key === "query_id" ? "non-empty " : ""}string`);
  }
  for (const key of ["target_term", "query_type"] as const) {
    if (q[key] !== undefined && q[key] !== null && typeof q[key] !== "string")
      throw new CliError(`${where} (${q.query_id}): ${key} must be a string`);
  }
  const hq = q as HarnessQuery;
  return {
    query_id: hq.query_id,
    ...(typeof hq.query_type === "string" ? { query_type: hq.query_type } : {}),
    user: renderUserMessage(hq),
  };
}

/** Default suite name: the file's name without its extension. */
export function nameFromPath(path: string): string {
  if (path === "-" || path === "/dev/stdin") return "stdin";
  return basename(path).replace(/\.(jsonl?|ndjson)$/i, "") || "suite";
}

/**
 * The request that uploads a suite file. A harness-layout file needs the registry (system prompt,
 * tools, stubs); `registryHint` says how to give it, for the error when it is missing.
 */
export function suiteRequest(
  path: string,
  parsed: Parsed,
  opts: { name?: string; registry?: Registry; registryHint: string },
): CreateSuiteRequest {
  if (parsed.layout === "request") {
    const name =
      opts.name ??
      (typeof parsed.request.name === "string" && parsed.request.name.trim()
        ? parsed.request.name
        : nameFromPath(path));
    return { ...(parsed.request as CreateSuiteRequest), name };
  }
  if (parsed.layout === "suite") return { name: opts.name ?? nameFromPath(path), suite: parsed.suite as SuiteBody };
  const r = opts.registry ?? {};
  const missing = (["system_prompt", "tools", "stubs"] as const).filter((k) => r[k] === undefined);
  if (missing.length) {
    throw usageError(
      `${path} holds the harness's queries (kb_id, target_term, question) without the tool registry: ${opts.registryHint}`,
    );
  }
  return {
    name: opts.name ?? nameFromPath(path),
    suite: {
      system_prompt: r.system_prompt!,
      tools: r.tools as SuiteBody["tools"],
      stubs: r.stubs!,
      queries: parsed.queries.map((q, i) => harnessQuery(q, i, path)),
    },
  };
}

/** `--tools FILE`: the tool definitions as sent to the model (a list of `{type: "function", function}`). */
export async function readTools(path: string): Promise<unknown[]> {
  const value = await readJsonOrLines(path);
  const tools = isRecord(value) && Array.isArray(value.tools) ? value.tools : value;
  if (!Array.isArray(tools)) throw new CliError(`${path}: expected a JSON list of tool definitions`);
  return tools;
}

/**
 * `--stubs FILE`: tool name → the text the tool returns. A stub given as JSON (not a string) is
 * written as the harness writes its stubs: json.dumps with sorted keys and `", "` / `": "`.
 */
export async function readStubs(path: string): Promise<Record<string, string>> {
  const parsed = parsePyJson(await readText(path));
  if (!parsed.ok) throw new CliError(`${path} is not valid JSON: ${parsed.error}`);
  if (parsed.value.t !== "dict") throw new CliError(`${path}: expected a JSON object of tool name → stub response`);
  const stubs: Record<string, string> = {};
  for (const [name, v] of parsed.value.entries)
    Object.defineProperty(stubs, name, {
      value: v.t === "str" ? v.v : pyJsonDumpsSorted(v),
      enumerable: true,
      writable: true,
      configurable: true,
    });
  return stubs;
}

/** `--system-prompt FILE`: the text as it is, less the one final newline editors add. */
export async function readSystemPrompt(path: string): Promise<string> {
  return (await readText(path)).replace(/\r?\n$/, "");
}
