// `assay admin tenants create|list|quotas`, `assay admin keys create|list|revoke`: the operator's commands
// (/v1/admin/*), authenticated with the deployment's ADMIN_TOKEN instead of a tenant's key. This is how
// a new deployment gets its first tenant and key. The token is read from the environment, never from a
// flag, so it stays out of shell history and `ps`; a new key's secret is printed once, as the API
// returns it once.
import { type Command, Option } from "commander";
import { createClient } from "@assay/sdk/client";
import {
  adminCreateKey,
  adminCreateTenant,
  adminGetTenantQuotas,
  adminListKeys,
  adminListTenants,
  adminRevokeKey,
  adminSetTenantQuotas,
  type ApiKey,
  type CreatedApiKey,
  type Quotas,
  type Tenant,
  type TenantQuotasUpdate,
} from "@assay/sdk";
import { allPages } from "@assay/sdk/pages";
import { usageError } from "../errors.ts";
import { printJson, table } from "../output.ts";
import { call, isLocalDefault, serverFor, type GlobalOptions, type Session } from "../session.ts";

/** The operator token `npm start` puts in .dev.vars (.dev.vars.example): valid on the local dev server only. */
export const LOCAL_ADMIN_TOKEN = "assay-local-admin-token";

/** A session whose credential is the operator token: ADMIN_TOKEN, or the local one for the local default server. */
export function adminSessionFor(options: GlobalOptions, env: NodeJS.ProcessEnv = process.env): Session {
  const server = serverFor(options, env);
  const token = env.ADMIN_TOKEN || (isLocalDefault(server) ? LOCAL_ADMIN_TOKEN : undefined);
  if (!token) throw usageError(`set ADMIN_TOKEN to the operator token of ${server} (the Worker secret ADMIN_TOKEN)`);
  return { client: createClient({ baseUrl: server, auth: () => token }), server, json: Boolean(options.json) };
}

const adminSession = (cmd: Command) => adminSessionFor(cmd.optsWithGlobals<GlobalOptions>());

// The API's id shapes (`ten_…`, `key_…`); checked here so a slip is a usage error, not a 404.
const idOf = (prefix: string) => (raw: string) => {
  if (!new RegExp(`^${prefix}_[A-Za-z0-9]+$`).test(raw))
    throw usageError(`not a ${prefix === "ten" ? "tenant" : "key"} id: "${raw}" (${prefix}_…)`);
  return raw;
};

/** People's lines for a new key: the secret on stdout, the warning that it is shown once on stderr. */
function printNewKey(key: CreatedApiKey): void {
  process.stdout.write(`API key ${key.id} ("${key.name}") of tenant ${key.tenant_id}:\n${key.key}\n`);
  process.stderr.write(
    "This key is shown only now and cannot be shown again: store it (e.g. as ASSAY_API_KEY in a secret store).\n",
  );
}

/** The quotas' flags, in the API's order: `--runs-per-minute` sets `runs_per_minute`. */
const QUOTA_FLAGS: [keyof Quotas, string, string][] = [
  ["runs_per_minute", "--runs-per-minute", "runs created in any 60 s"],
  ["concurrent_runs", "--concurrent-runs", "runs not ended (queued or running) at once"],
  ["units_per_day", "--units-per-day", "units of the runs created in one UTC day"],
  ["stored_bytes", "--stored-bytes", "bytes stored (as `assay usage` counts them)"],
  ["heavy_reads_per_minute", "--heavy-reads-per-minute", "comparisons, exports and reports in any 60 s"],
];

/**
 * A quota's value: a whole number of at least 0, or `default` (back to the service's default, sent as
 * null; kept as the word here, since commander takes a null from a parser for "no value").
 */
function quotaValue(flag: string) {
  return (raw: string): number | "default" => {
    if (raw === "default") return raw;
    const n = Number(raw);
    if (raw.trim() === "" || !Number.isSafeInteger(n) || n < 0)
      throw usageError(`${flag} must be a whole number of at least 0, or "default", got "${raw}"`);
    return n;
  };
}

const camel = (flag: string) => flag.slice(2).replace(/-(\w)/g, (_m, c: string) => c.toUpperCase());

const keyRow = (k: ApiKey) => [k.id, k.name, `${k.prefix}…`, k.created_at, k.revoked_at ?? ""];

export function register(program: Command): void {
  const admin = program
    .command("admin")
    .description(
      "operator commands: tenants and their API keys, with the deployment's ADMIN_TOKEN (environment variable)",
    );

  const tenants = admin.command("tenants").description("tenants: each with its own runs, keys and settings");
  tenants
    .command("create")
    .description("create a tenant and its first API key; the key is printed once")
    .argument("<name>", "the tenant's name (1 to 200 characters)")
    .action(async (name: string, _opts: unknown, cmd: Command) => {
      const s = adminSession(cmd);
      const created = await call(s, adminCreateTenant({ client: s.client, body: { name } }));
      if (s.json) return printJson(created);
      process.stdout.write(`created tenant ${created.id} ("${created.name}")\n`);
      printNewKey(created.api_key);
    });
  tenants
    .command("list")
    .description("every tenant, newest first")
    .action(async (_opts: unknown, cmd: Command) => {
      const s = adminSession(cmd);
      const list = await allPages<Tenant>((after) =>
        call(s, adminListTenants({ client: s.client, query: { limit: 100, after } })),
      );
      if (s.json) return printJson({ data: list });
      if (!list.length) return void process.stdout.write("no tenants\n");
      process.stdout.write(
        table(
          ["id", "name", "created"],
          list.map((t) => [t.id, t.name, t.created_at]),
        ),
      );
    });

  const quotas = tenants
    .command("quotas")
    .description(
      "a tenant's quotas (docs/quotas.md); with flags, set them (`default` returns one to the service's default)",
    )
    .argument("<tenant_id>", "the tenant (ten_…)", idOf("ten"));
  for (const [, flag, what] of QUOTA_FLAGS)
    quotas.option(`${flag} <n>`, `${what}: a number, or "default"`, quotaValue(flag));
  quotas.action(async (tenantId: string, opts: Record<string, number | "default" | undefined>, cmd: Command) => {
    const s = adminSession(cmd);
    const body: TenantQuotasUpdate = {};
    for (const [name, flag] of QUOTA_FLAGS) {
      const value = opts[camel(flag)];
      if (value !== undefined) body[name] = value === "default" ? null : value;
    }
    const path = { tenant_id: tenantId };
    const q = Object.keys(body).length
      ? await call(s, adminSetTenantQuotas({ client: s.client, path, body }))
      : await call(s, adminGetTenantQuotas({ client: s.client, path }));
    if (s.json) return printJson(q);
    const rows = QUOTA_FLAGS.map(([name]) => [
      name,
      String(q.quotas[name]),
      q.overrides[name] === undefined ? "default" : `set (default ${q.defaults[name]})`,
    ]);
    process.stdout.write(`quotas of tenant ${q.tenant_id}:\n` + table(["quota", "limit", "source"], rows));
  });

  const keys = admin
    .command("keys")
    .description("a tenant's API keys (a tenant manages its own with its key: /v1/keys)");
  keys
    .command("create")
    .description("create an API key for a tenant; the key is printed once")
    .argument("<tenant-id>", "the tenant (ten_…)", idOf("ten"))
    .addOption(new Option("--name <name>", "a name to tell the key apart").default("default"))
    .action(async (tenantId: string, opts: { name: string }, cmd: Command) => {
      const s = adminSession(cmd);
      const created = await call(
        s,
        adminCreateKey({ client: s.client, path: { tenant_id: tenantId }, body: { name: opts.name } }),
      );
      if (s.json) return printJson(created);
      printNewKey(created);
    });
  keys
    .command("list")
    .description("a tenant's keys, newest first: names and prefixes, never the secrets")
    .argument("<tenant-id>", "the tenant (ten_…)", idOf("ten"))
    .action(async (tenantId: string, _opts: unknown, cmd: Command) => {
      const s = adminSession(cmd);
      const list = await allPages<ApiKey>((after) =>
        call(s, adminListKeys({ client: s.client, path: { tenant_id: tenantId }, query: { limit: 100, after } })),
      );
      if (s.json) return printJson({ data: list });
      if (!list.length) return void process.stdout.write("no keys\n");
      process.stdout.write(table(["id", "name", "prefix", "created", "revoked"], list.map(keyRow)));
    });
  keys
    .command("revoke")
    .description("revoke any API key (it stops working everywhere within 120 s, at once on the server that answers)")
    .argument("<key-id>", "the key (key_…)", idOf("key"))
    .action(async (keyId: string, _opts: unknown, cmd: Command) => {
      const s = adminSession(cmd);
      const revoked = await call(s, adminRevokeKey({ client: s.client, path: { key_id: keyId } }));
      if (s.json) return printJson(revoked);
      process.stdout.write(`revoked API key ${revoked.id} ("${revoked.name}") of tenant ${revoked.tenant_id}\n`);
    });
}
