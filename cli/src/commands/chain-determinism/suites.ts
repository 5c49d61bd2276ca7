// `assay suites upload|list|get|delete`: the chain-determinism suites of the API (queries, tools, stub
// responses, system prompt). The same verbs are `assay chain-determinism suite …`.
import type { Command } from "commander";
import {
  createChainDeterminismSuite,
  deleteChainDeterminismSuite,
  getChainDeterminismSuite,
  listChainDeterminismSuites,
  type CreateSuiteRequest,
  type Suite,
  type SuiteDetail,
} from "@assay/sdk";
import { allPages } from "@assay/sdk/pages";
import { usageError } from "../../errors.ts";
import { printJson, table } from "../../output.ts";
import { call, session, type Session } from "../../session.ts";
import { readStubs, readSuiteFile, readSystemPrompt, readTools, suiteRequest, type Registry } from "./suite-file.ts";

export const suiteId = (raw: string) => {
  if (!/^[A-Za-z0-9_-]+$/.test(raw)) throw usageError(`not a suite id: "${raw}"`);
  return raw;
};

export async function getSuite(s: Session, id: string): Promise<SuiteDetail> {
  return call(s, getChainDeterminismSuite({ client: s.client, path: { suite_id: id } }));
}

export async function uploadSuite(s: Session, request: CreateSuiteRequest): Promise<Suite> {
  return call(s, createChainDeterminismSuite({ client: s.client, body: request }));
}

type UploadOptions = {
  name?: string;
  tools?: string;
  stubs?: string;
  systemPrompt?: string;
  from?: string;
  dryRun?: boolean;
};

const REGISTRY_HINT =
  "give --tools FILE, --stubs FILE and --system-prompt FILE, or --from SUITE to take them from a suite";

/** The registry of a harness-layout upload: --from's suite, with --tools/--stubs/--system-prompt over it. */
async function registry(s: () => Session, opts: UploadOptions): Promise<Registry> {
  const base: Registry = {};
  if (opts.from) {
    const from = (await getSuite(s(), opts.from)).suite as Registry;
    Object.assign(base, { system_prompt: from.system_prompt, tools: from.tools, stubs: from.stubs });
  }
  if (opts.tools) base.tools = await readTools(opts.tools);
  if (opts.stubs) base.stubs = await readStubs(opts.stubs);
  if (opts.systemPrompt) base.system_prompt = await readSystemPrompt(opts.systemPrompt);
  return base;
}

/** The request a suite file uploads as (both layouts; see suite-file.ts). */
async function requestFor(path: string, opts: UploadOptions, s: () => Session): Promise<CreateSuiteRequest> {
  const parsed = await readSuiteFile(path);
  const registryFlags = opts.tools || opts.stubs || opts.systemPrompt || opts.from;
  if (parsed.layout !== "harness" && registryFlags) {
    throw usageError(
      "--tools, --stubs, --system-prompt and --from are for the harness's query layout; this file is a whole suite",
    );
  }
  return suiteRequest(path, parsed, {
    name: opts.name,
    registry: parsed.layout === "harness" ? await registry(s, opts) : undefined,
    registryHint: REGISTRY_HINT,
  });
}

function describeSuite(suite: Suite): string {
  return `suite ${suite.id} "${suite.name}": ${suite.n_queries} queries, ${suite.n_tools} tools, sha256 ${suite.sha256}\n`;
}

/** Adds upload, list, get and delete under `parent` (`assay suites`, `assay chain-determinism suite`). */
export function addSuiteVerbs(parent: Command): void {
  parent
    .command("upload")
    .description(
      "upload a suite file: our suite JSON, or the harness's queries (kb_id, target_term, question) with its tool registry",
    )
    .argument("<file>", "suite JSON, or the harness's queries as a JSON list or JSON Lines (- reads stdin)")
    .option("--name <name>", "the suite's name (default: the file's, else the file name)")
    .option("--tools <file>", "harness layout: the tool definitions (a JSON list, sent to the model as they are)")
    .option(
      "--stubs <file>",
      "harness layout: tool name → stub response (JSON values are written as the harness writes them)",
    )
    .option("--system-prompt <file>", "harness layout: the system prompt (a text file; its final newline is dropped)")
    .option("--from <suite>", "harness layout: take the system prompt, tools and stubs from this suite")
    .option("--dry-run", "print the request that would be uploaded (the API's CreateSuiteRequest) and upload nothing")
    .action(async (file: string, opts: UploadOptions, cmd: Command) => {
      if (opts.from) suiteId(opts.from);
      // The session is made only when needed: a dry run without --from needs no server.
      const s = () => session(cmd);
      const request = await requestFor(file, opts, s);
      if (opts.dryRun) return printJson(request);
      const session_ = s();
      const suite = await uploadSuite(session_, request);
      if (session_.json) return printJson(suite);
      process.stdout.write(describeSuite(suite));
    });

  parent
    .command("list")
    .description("the uploaded suites, newest first (the built-in `default` is always there too)")
    .action(async (_opts: unknown, cmd: Command) => {
      const s = session(cmd);
      const suites: Suite[] = await allPages((after) =>
        call(s, listChainDeterminismSuites({ client: s.client, query: { limit: 100, after } })),
      );
      if (s.json) return printJson(suites);
      if (!suites.length)
        return void process.stdout.write("no uploaded suites (the built-in `default` is always there)\n");
      process.stdout.write(
        table(
          ["id", "name", "queries", "tools", "created"],
          suites.map((x) => [x.id, x.name, x.n_queries, x.n_tools, x.created_at ?? ""]),
          ["left", "left", "right", "right"],
        ),
      );
    });

  parent
    .command("get")
    .description("one suite: its queries; with --json all of it, which `upload` takes back as it is")
    .argument("<suite>", "suite id (`default` for the built-in one)", suiteId)
    .action(async (id: string, _opts: unknown, cmd: Command) => {
      const s = session(cmd);
      const detail = await getSuite(s, id);
      if (s.json) return printJson(detail);
      const queries = (detail.suite.queries ?? []) as { query_id: string; query_type?: string }[];
      process.stdout.write(
        describeSuite(detail) +
          table(
            ["query", "type"],
            queries.map((q) => [q.query_id, q.query_type ?? ""]),
          ),
      );
    });

  parent
    .command("delete")
    .description("delete an uploaded suite (runs keep their own copy)")
    .argument("<suite>", "suite id", suiteId)
    .action(async (id: string, _opts: unknown, cmd: Command) => {
      const s = session(cmd);
      await call(s, deleteChainDeterminismSuite({ client: s.client, path: { suite_id: id } }));
      if (s.json) return printJson({ id, deleted: true });
      process.stdout.write(`suite ${id} deleted\n`);
    });
}

export function register(program: Command): void {
  addSuiteVerbs(
    program
      .command("suites")
      .description("chain-determinism suites: upload (ours or the harness's query layout), list, get, delete"),
  );
}
