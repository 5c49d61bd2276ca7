// `npm run provision`: creates, in the Cloudflare account wrangler is logged in to, the resources
// wrangler.jsonc names (the D1 database, the KV namespace, the R2 bucket and the queue) and writes the
// ids of the D1 database and the KV namespace into wrangler.jsonc in place of the placeholders, keeping
// its comments. A resource that already exists is adopted, not created again, so the script may be run
// again after a failure half-way. `-- --dry-run` prints the commands and changes it would make, and
// runs nothing. The steps around it (login, migrations, secrets, deploy) are in docs/deploy.md.
import { spawnSync } from "node:child_process";
import { readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { applyEdits, modify, parse, type JSONPath, type ParseError } from "jsonc-parser";

const root = join(import.meta.dirname, "..");
export const CONFIG = join(root, "wrangler.jsonc");

export type Resource =
  | { kind: "d1"; binding: string; name: string; id: string; path: JSONPath }
  | { kind: "kv"; binding: string; title: string; id: string; path: JSONPath }
  | { kind: "r2"; binding: string; name: string }
  | { kind: "queue"; name: string };

/** What one wrangler command printed, and how it ended. */
export type Outcome = { status: number | null; stdout: string; stderr: string };
export type Wrangler = (args: string[]) => Outcome;

type Config = {
  name: string;
  d1_databases?: { binding: string; database_name: string; database_id: string }[];
  kv_namespaces?: { binding: string; id: string }[];
  r2_buckets?: { binding: string; bucket_name: string }[];
  queues?: { producers?: { queue: string }[]; consumers?: { queue: string }[] };
};

function parseConfig(text: string): Config {
  const errors: ParseError[] = [];
  const config = parse(text, errors, { allowTrailingComma: true }) as Config;
  if (errors.length)
    throw new Error(`wrangler.jsonc does not parse (${errors.length} error(s), first at offset ${errors[0].offset})`);
  return config;
}

/** The local-only ids the repository ships with (all zeros): local development and tests need no account. */
export const isPlaceholder = (id: string | undefined) => !id || /^[0-]+$/.test(id);

/**
 * The KV namespace's title: the Worker's name and the binding, as wrangler's own automatic provisioning
 * names resources (`assay-key-cache`), so two deployments in one account (with two Worker names) do not
 * collide.
 */
export const kvTitle = (worker: string, binding: string) => `${worker}-${binding.toLowerCase().replaceAll("_", "-")}`;

/** Every resource wrangler.jsonc binds that has to exist in the account before a deploy. */
export function resourcesOf(text: string): Resource[] {
  const c = parseConfig(text);
  const queues = new Set([...(c.queues?.producers ?? []), ...(c.queues?.consumers ?? [])].map((q) => q.queue));
  return [
    ...(c.d1_databases ?? []).map(
      (d, i): Resource => ({
        kind: "d1",
        binding: d.binding,
        name: d.database_name,
        id: d.database_id,
        path: ["d1_databases", i, "database_id"],
      }),
    ),
    ...(c.kv_namespaces ?? []).map(
      (k, i): Resource => ({
        kind: "kv",
        binding: k.binding,
        title: kvTitle(c.name, k.binding),
        id: k.id,
        path: ["kv_namespaces", i, "id"],
      }),
    ),
    ...(c.r2_buckets ?? []).map((b): Resource => ({ kind: "r2", binding: b.binding, name: b.bucket_name })),
    ...[...queues].map((name): Resource => ({ kind: "queue", name })),
  ];
}

// `--update-config=false`: wrangler would otherwise offer to add a second binding of its own to the config.
const NO_CONFIG_EDIT = "--update-config=false";

/** The wrangler command that creates the resource. */
export function createArgs(r: Resource): string[] {
  switch (r.kind) {
    case "d1":
      return ["d1", "create", r.name, NO_CONFIG_EDIT];
    case "kv":
      return ["kv", "namespace", "create", r.title, NO_CONFIG_EDIT];
    case "r2":
      return ["r2", "bucket", "create", r.name, NO_CONFIG_EDIT];
    case "queue":
      return ["queues", "create", r.name];
  }
}

/** The wrangler command that finds the resource if it exists already. */
export function lookupArgs(r: Resource): string[] {
  switch (r.kind) {
    // By listing: `d1 info NAME` resolves the name through wrangler.jsonc first, and finds the placeholder id there.
    case "d1":
      return ["d1", "list", "--json"];
    case "kv":
      return ["kv", "namespace", "list"];
    case "r2":
      return ["r2", "bucket", "info", r.name];
    case "queue":
      return ["queues", "info", r.name];
  }
}

/** JSON printed by a command (after wrangler's banner, if it printed one). */
function jsonIn(stdout: string): unknown {
  const start = stdout.search(/^\s*[[{]/m);
  if (start < 0) throw new Error(`expected JSON from wrangler, got:\n${stdout}`);
  return JSON.parse(stdout.slice(start));
}

/** The id of an existing D1 database or KV namespace from its list command's output, or null. */
export function existingId(r: Extract<Resource, { kind: "d1" | "kv" }>, stdout: string): string | null {
  const list = jsonIn(stdout) as Record<string, unknown>[];
  if (!Array.isArray(list)) throw new Error(`expected a JSON list from wrangler, got:\n${stdout}`);
  const found = r.kind === "d1" ? list.find((d) => d.name === r.name)?.uuid : list.find((n) => n.title === r.title)?.id;
  return typeof found === "string" ? found : null;
}

/**
 * The new resource's id from what `wrangler d1 create` or `kv namespace create` printed: the config
 * snippet it suggests, as JSON (`"database_id": "…"`, `"id": "…"`) for a JSON config, or TOML
 * (`database_id = "…"`) for a TOML one.
 */
export function createdId(kind: "d1" | "kv", stdout: string): string {
  const pattern =
    kind === "d1"
      ? /"?database_id"?\s*[:=]\s*"([0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12})"/i
      : /(?<![\w_])"?id"?\s*[:=]\s*"([0-9a-f]{32})"/i;
  const m = pattern.exec(stdout);
  if (!m)
    throw new Error(
      `could not find the new ${kind === "d1" ? "database_id" : "namespace id"} in wrangler's output:\n${stdout}`,
    );
  return m[1];
}

/** wrangler.jsonc with one value replaced, comments and layout kept. */
export function withValue(text: string, path: JSONPath, value: string): string {
  return applyEdits(text, modify(text, path, value, { formattingOptions: { insertSpaces: true, tabSize: 2 } }));
}

const describe = (r: Resource) =>
  r.kind === "d1"
    ? `D1 database ${r.name} (binding ${r.binding})`
    : r.kind === "kv"
      ? `KV namespace ${r.title} (binding ${r.binding})`
      : r.kind === "r2"
        ? `R2 bucket ${r.name} (binding ${r.binding})`
        : `queue ${r.name}`;

const failed = (what: string, args: string[], o: Outcome) =>
  new Error(`\`wrangler ${args.join(" ")}\` failed (${what}, exit ${o.status}):\n${o.stdout}${o.stderr}`);

/**
 * Makes every resource exist and returns wrangler.jsonc's text with the ids filled in. `wrangler` runs
 * one command; `log` receives one line per resource.
 */
export function provision(text: string, wrangler: Wrangler, log: (line: string) => void): string {
  let out = text;
  for (const r of resourcesOf(text)) {
    if ((r.kind === "d1" || r.kind === "kv") && !isPlaceholder(r.id)) {
      log(`${describe(r)}: id ${r.id} already in wrangler.jsonc, left as it is`);
      continue;
    }
    const lookup = lookupArgs(r);
    const found = wrangler(lookup);
    if (r.kind === "d1" || r.kind === "kv") {
      // A failed list is an account or login problem: creating would fail the same way, less clearly.
      if (found.status !== 0) throw failed(`looking for the ${describe(r)}`, lookup, found);
      let id = existingId(r, found.stdout);
      if (id) log(`${describe(r)}: exists, id ${id}`);
      else {
        const create = createArgs(r);
        const made = wrangler(create);
        if (made.status !== 0) throw failed(`creating the ${describe(r)}`, create, made);
        id = createdId(r.kind, made.stdout);
        log(`${describe(r)}: created, id ${id}`);
      }
      out = withValue(out, r.path, id);
    } else if (found.status === 0) log(`${describe(r)}: exists`);
    else {
      const create = createArgs(r);
      const made = wrangler(create);
      if (made.status !== 0) throw failed(`creating the ${describe(r)}`, create, made);
      log(`${describe(r)}: created`);
    }
  }
  return out;
}

/** What `--dry-run` prints: every command, and where each id would be written. */
export function plan(text: string): string[] {
  return resourcesOf(text).flatMap((r) => {
    if ((r.kind === "d1" || r.kind === "kv") && !isPlaceholder(r.id))
      return [`# ${describe(r)}: id ${r.id} already in wrangler.jsonc, nothing to do`];
    const into = r.kind === "d1" || r.kind === "kv" ? `, then its id into wrangler.jsonc at ${r.path.join(".")}` : "";
    return [
      `# ${describe(r)}: look it up, create it if it is missing${into}`,
      `npx wrangler ${lookupArgs(r).join(" ")}`,
      `npx wrangler ${createArgs(r).join(" ")}`,
    ];
  });
}

const NEXT = [
  "next (docs/deploy.md):",
  "  npx wrangler d1 migrations apply DB --remote",
  "  node -e \"console.log(require('crypto').randomBytes(32).toString('base64'))\" | npx wrangler secret put SECRETS_KEY",
  "  npx wrangler secret put ADMIN_TOKEN",
  "  npm run deploy",
];

if (import.meta.main) {
  const text = readFileSync(CONFIG, "utf8");
  if (process.argv.includes("--dry-run")) {
    console.log(plan(text).join("\n"));
  } else {
    const wrangler: Wrangler = (args) => {
      console.log(`$ npx wrangler ${args.join(" ")}`);
      // stdin is wrangler's own (a login prompt reaches the person); what it prints is parsed, then shown.
      const r = spawnSync("wrangler", args, {
        cwd: root,
        encoding: "utf8",
        stdio: ["inherit", "pipe", "pipe"],
        env: { ...process.env, WRANGLER_SEND_METRICS: "false" },
      });
      return { status: r.status, stdout: r.stdout ?? "", stderr: r.stderr ?? "" };
    };
    try {
      const updated = provision(text, wrangler, (line) => console.log(line));
      if (updated !== text) {
        writeFileSync(CONFIG, updated);
        console.log("wrote the ids into wrangler.jsonc: commit it");
      }
      console.log(NEXT.join("\n"));
    } catch (err) {
      console.error((err as Error).message);
      process.exitCode = 1;
    }
  }
}
