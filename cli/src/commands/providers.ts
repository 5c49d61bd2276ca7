// `assay providers add|list|delete`: the tenant's saved provider connections (/v1/providers), which runs
// name instead of sending a key. The key is read from an environment variable, never from a flag, so it
// never lands in the shell's history or in `ps`; the server never shows it again.
import { type Command, Option } from "commander";
import {
  createProviderConnection,
  deleteProviderConnection,
  listProviderConnections,
  replaceProviderConnection,
  type ProviderConnection,
} from "@assay/sdk";
import { allPages } from "@assay/sdk/pages";
import { CliError, usageError } from "../errors.ts";
import { printJson, table } from "../output.ts";
import { call, session } from "../session.ts";

/** The key's variable when --api-key-env names none: the one the OpenAI tools read. */
export const DEFAULT_KEY_ENV = "OPENAI_API_KEY";

// The server's rule for names (they are path segments); checked here too, so a bad one is a usage error.
const connectionName = (raw: string) => {
  if (!/^[A-Za-z0-9][A-Za-z0-9._-]{0,63}$/.test(raw))
    throw usageError(`not a connection name: "${raw}" (1 to 64 letters, digits, '.', '_' or '-')`);
  return raw;
};

/** The key of a connection from `variable`; unset or empty is an error naming the variable. */
export function keyFromEnv(variable: string, env: NodeJS.ProcessEnv = process.env): string {
  const key = env[variable];
  if (!key)
    throw new CliError(`${variable} is not set: the key is read from it (--api-key-env names another variable)`);
  return key;
}

/** What people see of a connection's key: never the key, at most its last four characters. */
function keyShown(p: ProviderConnection): string {
  if (!p.has_api_key) return "none";
  return p.api_key_last4 ? `…${p.api_key_last4}` : "saved";
}

export function register(program: Command): void {
  const providers = program
    .command("providers")
    .description(
      "saved provider connections: an endpoint and its key, stored once (encrypted), named by runs as provider.connection",
    );

  providers
    .command("add")
    .description("save a connection; its key is read from an environment variable and never shown again")
    .argument("<name>", "the connection's name, as runs will write it", connectionName)
    .requiredOption("--base-url <url>", "the OpenAI-compatible endpoint, e.g. https://openrouter.ai/api/v1")
    .addOption(
      new Option("--api-key-env <var>", "the environment variable that holds the key").default(DEFAULT_KEY_ENV),
    )
    .option(
      "--replace",
      "replace the endpoint and key of a connection of that name (rotates its key) instead of refusing",
    )
    .action(async (name: string, opts: { baseUrl: string; apiKeyEnv: string; replace?: boolean }, cmd: Command) => {
      const api_key = keyFromEnv(opts.apiKeyEnv);
      const s = session(cmd);
      const saved = opts.replace
        ? await call(
            s,
            replaceProviderConnection({ client: s.client, path: { name }, body: { base_url: opts.baseUrl, api_key } }),
          )
        : await call(
            s,
            createProviderConnection({ client: s.client, body: { name, base_url: opts.baseUrl, api_key } }),
          );
      if (s.json) return printJson(saved);
      process.stdout.write(
        `saved provider connection ${saved.name}: ${saved.base_url} (key ${keyShown(saved)}, from ${opts.apiKeyEnv})\n`,
      );
    });

  providers
    .command("list")
    .description("the saved connections, newest first (names, endpoints; never the keys)")
    .action(async (_opts: unknown, cmd: Command) => {
      const s = session(cmd);
      const all: ProviderConnection[] = await allPages((after) =>
        call(s, listProviderConnections({ client: s.client, query: { limit: 100, after } })),
      );
      if (s.json) return printJson({ data: all });
      if (!all.length) return void process.stdout.write("no provider connections\n");
      process.stdout.write(
        table(
          ["name", "base_url", "key", "updated"],
          all.map((p) => [p.name, p.base_url, keyShown(p), p.updated_at]),
        ),
      );
    });

  providers
    .command("delete")
    .description("delete a connection and its key (runs already started keep theirs)")
    .argument("<name>", "the connection's name", connectionName)
    .action(async (name: string, _opts: unknown, cmd: Command) => {
      const s = session(cmd);
      await call(s, deleteProviderConnection({ client: s.client, path: { name } }));
      if (s.json) return printJson({ name, deleted: true });
      process.stdout.write(`deleted provider connection ${name}\n`);
    });
}
