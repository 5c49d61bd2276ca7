// `assay prompts push|list`: the tenant's versioned prompts (/v1/prompts). `push` reads a prompt file as
// the originals write them: Heretix's rpl prompt YAML (version, system, user_template, paraphrases; its
// file name is the short name runs pick it by) or cross-judge's (version, description, system_prompt,
// user_prompt_template). Runs then name it as name@version: rpl's prompt_version, a critic's prompt.
import { basename } from "node:path";
import { Option, type Command } from "commander";
import { parse as parseYaml } from "yaml";
import { createPrompt, listPrompts, type CreatePromptRequest, type PromptSummary } from "@assay/sdk";
import { allPages } from "@assay/sdk/pages";
import { CliError, usageError } from "../errors.ts";
import { isRecord, readText } from "../io.ts";
import { printJson, table } from "../output.ts";
import { call, session } from "../session.ts";

// The server's rules for names and versions (path segments, never "@"); checked here too, so a bad one
// is a usage error before anything is sent.
const NAME = /^[A-Za-z0-9][A-Za-z0-9._-]{0,63}$/;
const VERSION = /^[A-Za-z0-9][A-Za-z0-9._+-]{0,63}$/;

const RPL_KEYS = ["version", "system", "user_template", "paraphrases", "schema", "description"];
const JUDGE_KEYS = ["version", "description", "system_prompt", "user_prompt_template"];

type PushOptions = { name?: string; promptVersion?: string; dryRun?: boolean };

/**
 * The file's name as the prompt's name, and a version if the name carries one: Heretix picks a bank by
 * its file name (`rpl_g5_v2.yaml`), cross-judge pins versions by convention in file names (`critic@v0.1.yaml`).
 */
function fromFileName(path: string): { name: string; version?: string } {
  const stem = basename(path).replace(/\.(ya?ml)$/i, "");
  const at = stem.indexOf("@");
  return at < 0 ? { name: stem } : { name: stem.slice(0, at), version: stem.slice(at + 1) };
}

const text = (path: string, doc: Record<string, unknown>, key: string, required: boolean): string | undefined => {
  const v = doc[key];
  if (v === undefined || v === null) {
    if (required) throw new CliError(`${path} has no ${key}`);
    return undefined;
  }
  if (typeof v !== "string") throw new CliError(`${path}: ${key} must be text`);
  return v;
};

/** The file as YAML, and again with every scalar as written (`version: 0.10` is the text "0.10", not 0.1). */
function parsed(path: string, source: string): [Record<string, unknown>, Record<string, unknown>] {
  let doc: unknown;
  let raw: unknown;
  try {
    doc = parseYaml(source);
    raw = parseYaml(source, { schema: "failsafe" });
  } catch (err) {
    throw new CliError(`${path} is not valid YAML: ${(err as Error).message.split("\n")[0].replace(/:\s*$/, "")}`);
  }
  if (!isRecord(doc) || !isRecord(raw)) {
    throw new CliError(
      `${path}: expected a prompt mapping (Heretix: version, system, user_template, paraphrases; cross-judge: version, system_prompt, user_prompt_template)`,
    );
  }
  return [doc, raw];
}

/** The request a prompt file pushes as: its layout decides the kind; --name and --prompt-version win over the file. */
export async function promptRequest(
  path: string,
  opts: PushOptions,
  warn: (line: string) => void,
): Promise<CreatePromptRequest> {
  const source = await readText(path);
  const [doc, raw] = parsed(path, source);
  const isRpl = ["system", "user_template", "paraphrases"].some((k) => k in doc);
  const isJudge = ["system_prompt", "user_prompt_template"].some((k) => k in doc);
  if (isRpl === isJudge) {
    throw new CliError(
      `${path}: ${isRpl ? "mixes" : "has neither"} Heretix's rpl keys (system, user_template, paraphrases) ${isRpl ? "and" : "nor"} cross-judge's (system_prompt, user_prompt_template)`,
    );
  }
  const known = isRpl ? RPL_KEYS : JUDGE_KEYS;
  for (const key of Object.keys(doc))
    if (!known.includes(key)) warn(`${path}: ignored key '${key}' (read: ${known.join(", ")})`);

  const file = fromFileName(path);
  const name = opts.name ?? file.name;
  if (!NAME.test(name))
    throw usageError(`not a prompt name: "${name}" (1 to 64 letters, digits, '.', '_' or '-'); give one with --name`);
  const written = raw.version;
  const version = opts.promptVersion ?? (typeof written === "string" && written !== "" ? written : file.version);
  if (version === undefined) throw new CliError(`${path} has no version; give one with --prompt-version`);
  if (!VERSION.test(version))
    throw usageError(
      `not a prompt version: "${version}" (1 to 64 letters, digits, '.', '_', '+' or '-'); give one with --prompt-version`,
    );
  const description = text(path, doc, "description", false);

  if (isRpl) {
    const paraphrases = doc.paraphrases;
    // Heretix: a missing key is an error, and so is an empty paraphrase list.
    if (!Array.isArray(paraphrases) || paraphrases.length === 0)
      throw new CliError(`${path}: paraphrases must be a non-empty list`);
    paraphrases.forEach((p, i) => {
      if (typeof p !== "string") throw new CliError(`${path}: paraphrase ${i} must be text`);
    });
    return {
      kind: "rpl",
      name,
      version,
      system: text(path, doc, "system", true)!,
      user_template: text(path, doc, "user_template", true)!,
      paraphrases: paraphrases as string[],
      ...(doc.schema !== undefined ? { schema: text(path, doc, "schema", true)! } : {}),
      ...(description !== undefined ? { description } : {}),
    };
  }
  // cross-judge would send an empty user message without a template; the API needs one, so say so here.
  const template = text(path, doc, "user_prompt_template", true)!;
  const system = text(path, doc, "system_prompt", false);
  return {
    kind: "judge",
    name,
    version,
    user_prompt_template: template,
    // Without one, the server applies cross-judge's default ("You are a careful judge.").
    ...(system !== undefined ? { system_prompt: system } : {}),
    ...(description !== undefined ? { description } : {}),
  };
}

export function register(program: Command): void {
  const prompts = program
    .command("prompts")
    .description("your versioned prompts: rpl banks and judge critic prompts, named by runs as name@version");

  prompts
    .command("push")
    .description("push a prompt file as name@version: Heretix's rpl prompt YAML or cross-judge's critic prompt YAML")
    .argument("<file>", "the prompt YAML (- reads stdin)")
    .option("--name <name>", "the prompt's name (default: the file's name without .yaml, up to an '@')")
    // Not `--version`: the program's own -V/--version is recognised anywhere on the line. Heretix's CLI
    // calls it --prompt-version too.
    .option(
      "--prompt-version <version>",
      "the version (default: the file's `version`, else what follows '@' in its name)",
    )
    .option("--dry-run", "print the request that would be pushed (the API's CreatePromptRequest) and push nothing")
    .action(async (file: string, opts: PushOptions, cmd: Command) => {
      const request = await promptRequest(file, opts, (line) => process.stderr.write(`assay: ${line}\n`));
      if (opts.dryRun) return printJson(request);
      const s = session(cmd);
      const pending = createPrompt({ client: s.client, body: request });
      const prompt = await call(s, pending);
      if (s.json) return printJson(prompt);
      // 201: stored now; 200: this name@version was already stored with the same content.
      const again = (await pending).response?.status === 200;
      process.stdout.write(
        `${again ? "already pushed" : "pushed"} ${prompt.ref} (${prompt.kind}, sha256 ${prompt.sha256})\n`,
      );
    });

  prompts
    .command("list")
    .description("your prompt versions, newest first")
    .addOption(new Option("--kind <kind>", "only rpl banks or only judge prompts").choices(["rpl", "judge"]))
    .action(async (opts: { kind?: "rpl" | "judge" }, cmd: Command) => {
      const s = session(cmd);
      const all: PromptSummary[] = await allPages((after) =>
        call(s, listPrompts({ client: s.client, query: { limit: 100, after, kind: opts.kind } })),
      );
      if (s.json) return printJson({ data: all });
      if (!all.length) return void process.stdout.write("no prompts (push one with `assay prompts push FILE`)\n");
      process.stdout.write(
        table(
          ["ref", "kind", "sha256", "created"],
          all.map((p) => [p.ref, p.kind, p.sha256.slice(0, 12), p.created_at]),
        ),
      );
    });
}
