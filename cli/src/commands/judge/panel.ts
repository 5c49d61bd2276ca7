// A cross-judge panel and its items, read from the user's files, as the judge API's request.
//
// The panel YAML lists critics with cross-judge's Critic fields (name, model, vendor, temperature,
// max_tokens, system_prompt, prompt_template, base_url, timeout) or `yaml_path`, a versioned prompt
// file as Critic.from_yaml_prompt reads it; around them the Ensemble's settings (voting,
// voting_kwargs) and the API's run settings. Items are cross-judge's judge() arguments, one per line.
import { dirname, isAbsolute, resolve } from "node:path";
import type { JudgeRunRequest } from "@assay/sdk";
import { CliError } from "../../errors.ts";
import { isRecord, readJsonl, readYaml } from "../../io.ts";
import { YAML_DEFAULT_SYSTEM_PROMPT } from "../../../../src/engines/judge/critic.ts";
// The server's own vendor presets (a table, no code): which variable holds each vendor's key.
import { DEFAULT_VENDOR, VENDORS } from "../../../../src/providers/vendors.ts";

type Critic = JudgeRunRequest["critics"][number];
type Item = JudgeRunRequest["items"][number];
export type Panel = Omit<JudgeRunRequest, "items">;

const PANEL_KEYS = [
  "critics",
  "voting",
  "voting_kwargs",
  "labels",
  "contested_threshold",
  "seed",
  "concurrency",
  "webhook_url",
];
const CRITIC_KEYS = [
  "name",
  "model",
  "vendor",
  "base_url",
  "api_key_env",
  "temperature",
  "max_tokens",
  "timeout",
  "timeout_s",
  "weight",
  "prompt",
  "system_prompt",
  "prompt_template",
  "yaml_path",
  "simulator",
];
const ITEM_KEYS = ["id", "query_id", "query", "context", "meta", "expected"];

const isSim = (model: string) => model.startsWith("sim:");

function unknownKeys(obj: Record<string, unknown>, known: string[]): string[] {
  return Object.keys(obj).filter((k) => !known.includes(k));
}

/** A prompt file as cross-judge reads it: `version` and `description` are the user's, the texts are sent. */
async function readPromptFile(
  path: string,
  where: string,
): Promise<{ system_prompt: string; prompt_template: string }> {
  const doc = await readYaml(path).catch((err: CliError) => {
    throw new CliError(`${where}: ${err.message}`);
  });
  if (!isRecord(doc))
    throw new CliError(`${where}: ${path} is not a YAML mapping (version, system_prompt, user_prompt_template)`);
  const { system_prompt, user_prompt_template } = doc;
  if (system_prompt !== undefined && typeof system_prompt !== "string")
    throw new CliError(`${where}: ${path}: system_prompt must be text`);
  // cross-judge would send an empty user message; the API needs a template, so say so here.
  if (typeof user_prompt_template !== "string" || !user_prompt_template.trim()) {
    throw new CliError(`${where}: ${path} has no user_prompt_template`);
  }
  return { system_prompt: system_prompt ?? YAML_DEFAULT_SYSTEM_PROMPT, prompt_template: user_prompt_template };
}

/** Where a critic's key comes from: api_key_env, else its vendor's variable; none for sim:* and keyless endpoints. */
function keyVariable(raw: Record<string, unknown>, vendor: string | undefined): string | undefined {
  if (typeof raw.api_key_env === "string") return raw.api_key_env;
  return vendor ? VENDORS[vendor].envKey : undefined;
}

async function readCritic(
  raw: unknown,
  i: number,
  panelDir: string,
  env: NodeJS.ProcessEnv,
  missing: string[],
): Promise<Critic> {
  let where = `critics[${i}]`;
  if (!isRecord(raw)) throw new CliError(`${where} must be a mapping (name, model, …)`);
  if (typeof raw.name !== "string" || !raw.name) throw new CliError(`${where}: name is required`);
  where += ` ('${raw.name}')`;
  if (typeof raw.model !== "string" || !raw.model) throw new CliError(`${where}: model is required`);
  // Keys stay out of files that are committed and shared.
  if ("api_key" in raw)
    throw new CliError(
      `${where}: keep the key out of the panel file: put it in an environment variable and name it with api_key_env`,
    );
  const extra = unknownKeys(raw, CRITIC_KEYS);
  if (extra.length)
    throw new CliError(
      `${where}: unknown key ${extra.map((k) => `'${k}'`).join(", ")} (known: ${CRITIC_KEYS.join(", ")})`,
    );
  for (const k of ["vendor", "base_url", "api_key_env", "prompt", "system_prompt", "prompt_template", "yaml_path"]) {
    if (raw[k] !== undefined && typeof raw[k] !== "string") throw new CliError(`${where}: ${k} must be text`);
  }
  if (raw.timeout !== undefined && raw.timeout_s !== undefined)
    throw new CliError(`${where}: give timeout or timeout_s, not both`);

  const {
    name,
    model,
    vendor: rawVendor,
    base_url,
    api_key_env: _e,
    timeout,
    yaml_path,
    ...rest
  } = raw as Record<string, unknown> & { name: string; model: string };
  const critic: Record<string, unknown> = { ...rest, name, model };
  if (timeout !== undefined) critic.timeout_s = timeout;
  if (typeof yaml_path === "string") {
    if (rest.system_prompt !== undefined || rest.prompt_template !== undefined || rest.prompt !== undefined) {
      throw new CliError(`${where}: give yaml_path, prompt, or system_prompt / prompt_template, not several`);
    }
    Object.assign(
      critic,
      await readPromptFile(isAbsolute(yaml_path) ? yaml_path : resolve(panelDir, yaml_path), where),
    );
  }

  if (isSim(model)) {
    // The simulator needs no endpoint and no key; an endpoint given anyway is the API's to refuse.
    if (rawVendor !== undefined) critic.vendor = rawVendor;
    if (base_url !== undefined) critic.provider = { base_url };
    return critic as Critic;
  }
  let vendor = rawVendor as string | undefined;
  if (vendor !== undefined && !Object.hasOwn(VENDORS, vendor)) {
    // cross-judge: a vendor without preset is a custom endpoint, which needs its base_url.
    if (base_url === undefined) {
      throw new CliError(
        `${where}: unknown vendor '${vendor}' (known: ${Object.keys(VENDORS).join(", ")}); give base_url for another endpoint`,
      );
    }
    vendor = undefined;
  } else if (vendor === undefined && base_url === undefined) {
    vendor = DEFAULT_VENDOR;
  }
  const provider: { base_url?: string; api_key?: string } = {};
  if (base_url !== undefined) provider.base_url = base_url as string;
  const variable = keyVariable(raw, vendor);
  if (variable) {
    const key = env[variable];
    if (key) provider.api_key = key;
    else
      missing.push(
        `${variable} is not set (the key of critic '${name}'${raw.api_key_env ? ", named by api_key_env" : `, vendor ${vendor}`})`,
      );
  }
  if (vendor) critic.vendor = vendor;
  if (Object.keys(provider).length) critic.provider = provider;
  return critic as Critic;
}

/**
 * Reads a panel file. Every critic's key is read from the environment here, so a missing one stops
 * the command (one line naming every variable) before anything is sent.
 */
export async function readPanel(path: string, env: NodeJS.ProcessEnv = process.env): Promise<Panel> {
  const doc = await readYaml(path);
  // A bare list is a panel of critics with the default settings.
  const panel = Array.isArray(doc) ? { critics: doc } : doc;
  if (!isRecord(panel)) throw new CliError(`${path}: a panel is a mapping with critics (or a list of critics)`);
  const extra = unknownKeys(panel, PANEL_KEYS);
  if (extra.length)
    throw new CliError(
      `${path}: unknown key ${extra.map((k) => `'${k}'`).join(", ")} (known: ${PANEL_KEYS.join(", ")})`,
    );
  if (!Array.isArray(panel.critics) || panel.critics.length === 0)
    throw new CliError(`${path}: critics must list at least one critic`);

  const panelDir = path === "-" || path === "/dev/stdin" ? process.cwd() : dirname(resolve(path));
  const missing: string[] = [];
  const critics: Critic[] = [];
  for (const [i, raw] of panel.critics.entries()) {
    try {
      critics.push(await readCritic(raw, i, panelDir, env, missing));
    } catch (err) {
      if (err instanceof CliError) throw new CliError(`${path}: ${err.message}`, err.exitCode);
      throw err;
    }
  }
  if (missing.length) throw new CliError(missing.join("; "));

  const out: Panel = { critics };
  const { voting, voting_kwargs } = panel;
  if (voting_kwargs !== undefined && !isRecord(voting_kwargs))
    throw new CliError(`${path}: voting_kwargs must be a mapping`);
  // cross-judge: Ensemble(voting="majority", voting_kwargs={...}); the API takes one object.
  if (typeof voting === "string")
    out.voting = { strategy: voting as NonNullable<Panel["voting"]>["strategy"], ...voting_kwargs };
  else if (isRecord(voting)) out.voting = { ...voting, ...voting_kwargs } as Panel["voting"];
  else if (voting !== undefined) throw new CliError(`${path}: voting must be a strategy name or a mapping`);
  else if (voting_kwargs !== undefined) out.voting = { ...voting_kwargs } as Panel["voting"];
  for (const k of ["labels", "contested_threshold", "seed", "concurrency", "webhook_url"] as const) {
    if (panel[k] !== undefined) (out as Record<string, unknown>)[k] = panel[k];
  }
  return out;
}

/**
 * Reads the items, one JSON object per line as cross-judge's judge() takes them: `query`, `query_id`
 * (or `id`; default the first 80 characters of the query, as cross-judge does), `context`; `meta` is
 * the caller's and is not sent; `expected` (a known label) is ours.
 */
export async function readItems(path: string): Promise<Item[]> {
  const rows = await readJsonl(path);
  if (!rows.length) throw new CliError(`${path}: no items`);
  return rows.map((row, i) => {
    const where = `${path} item ${i + 1}`;
    if (!isRecord(row)) throw new CliError(`${where}: each line is a JSON object with a query`);
    const extra = unknownKeys(row, ITEM_KEYS);
    if (extra.length)
      throw new CliError(
        `${where}: unknown key ${extra.map((k) => `'${k}'`).join(", ")} (known: ${ITEM_KEYS.join(", ")})`,
      );
    if (typeof row.query !== "string" || !row.query) throw new CliError(`${where}: query must be non-empty text`);
    if (row.id !== undefined && row.query_id !== undefined)
      throw new CliError(`${where}: give id or query_id, not both`);
    const id = row.id ?? row.query_id ?? Array.from(row.query).slice(0, 80).join("");
    if (typeof id !== "string")
      throw new CliError(`${where}: ${row.id !== undefined ? "id" : "query_id"} must be text`);
    const item: Item = { id, query: row.query };
    if (row.context !== undefined) {
      if (!isRecord(row.context)) throw new CliError(`${where}: context must be an object`);
      item.context = row.context;
    }
    if (row.expected !== undefined) item.expected = row.expected as string;
    return item;
  });
}
