// Issue 23, "From the README to a deployment": the first tenant and API key of a deployment come from
// `assay admin tenants create NAME` with the operator token (ADMIN_TOKEN), printed once. Against the
// test server, whose ADMIN_TOKEN is the local one from .dev.vars.example.
import { describe, expect, inject, it } from "vitest";
import { assay } from "./assay.ts";
import { ownAddress } from "../browser/browser.ts";

const ADMIN = { ADMIN_TOKEN: "assay-local-admin-token" };
const KEY_SHAPE = /^assay_sk_[A-Za-z0-9_-]{20,}$/;

let n = 0;
/** A tenant name no other test of this run uses. */
const unique = (prefix: string) => `${prefix}-${Date.now().toString(36)}-${n++}`;

/** GET as a tenant over plain HTTP (the CLI is what is under test): the status, and the body when it is JSON. */
/** A request with `key`, from an address of its own: a revoked key's check is a counted failure (browser.ts). */
async function asTenant(key: string, path: string): Promise<{ status: number; body: Record<string, unknown> | null }> {
  const res = await fetch(`${inject("assayUrl")}${path}`, {
    headers: { Authorization: `Bearer ${key}`, ...ownAddress() },
  });
  return { status: res.status, body: res.ok ? ((await res.json()) as Record<string, unknown>) : null };
}

describe("assay admin", () => {
  it("tenants create prints the tenant and its first key once; the key works as that tenant's", async () => {
    const name = unique("research");
    const r = await assay(["admin", "tenants", "create", name], { env: ADMIN });
    expect(r.code, r.stderr).toBe(0);
    const [head, keyLine, secret, ...rest] = r.stdout.split("\n");
    const tenantId = /^created tenant (ten_\w+) \("(.+)"\)$/.exec(head);
    expect(tenantId?.[2]).toBe(name);
    expect(keyLine).toMatch(new RegExp(`^API key key_\\w+ \\("default"\\) of tenant ${tenantId![1]}:$`));
    expect(secret).toMatch(KEY_SHAPE);
    expect(rest).toEqual([""]);
    expect(r.stderr).toBe(
      "This key is shown only now and cannot be shown again: store it (e.g. as ASSAY_API_KEY in a secret store).\n",
    );

    // The key belongs to the new tenant, which has nothing yet.
    const keys = await asTenant(secret, "/v1/keys");
    expect(keys.status).toBe(200);
    const [only, ...others] = (keys.body as { data: unknown }).data as {
      tenant_id: string;
      name: string;
      prefix: string;
    }[];
    expect(others).toEqual([]);
    expect(only).toMatchObject({ tenant_id: tenantId![1], name: "default" });
    expect(secret.startsWith(only.prefix)).toBe(true);
    const runs = await assay(["runs", "list"], { env: { ASSAY_API_KEY: secret } });
    expect(runs.stdout).toBe("no runs\n");

    const listed = await assay(["admin", "tenants", "list"], { env: ADMIN });
    expect(listed.code).toBe(0);
    const row = listed.stdout.split("\n").find((l) => l.startsWith(tenantId![1]));
    expect(row?.split(/\s{2,}/).slice(0, 2)).toEqual([tenantId![1], name]);
    expect(listed.stdout).not.toContain(secret);
  });

  it("keys create, list and revoke: the new key works until it is revoked; no list shows a secret", async () => {
    const created = await assay(["--json", "admin", "tenants", "create", unique("ci-team")], { env: ADMIN });
    expect(created.code, created.stderr).toBe(0);
    const tenant = JSON.parse(created.stdout) as { id: string; api_key: { id: string; key: string } };
    expect(tenant.api_key.key).toMatch(KEY_SHAPE);

    const made = await assay(["--json", "admin", "keys", "create", tenant.id, "--name", "ci"], { env: ADMIN });
    expect(made.code, made.stderr).toBe(0);
    const key = JSON.parse(made.stdout) as { id: string; key: string; name: string; tenant_id: string };
    expect(key).toMatchObject({ name: "ci", tenant_id: tenant.id });
    expect((await asTenant(key.key, "/v1/keys")).status).toBe(200);

    const listed = await assay(["admin", "keys", "list", tenant.id], { env: ADMIN });
    expect(listed.code).toBe(0);
    const lines = listed.stdout.trim().split("\n");
    expect(lines[0].split(/\s+/)).toEqual(["id", "name", "prefix", "created", "revoked"]);
    // Newest first: the ci key, then the tenant's first key.
    expect(lines.slice(2).map((l) => l.split(/\s+/).slice(0, 2))).toEqual([
      [key.id, "ci"],
      [tenant.api_key.id, "default"],
    ]);
    for (const secret of [key.key, tenant.api_key.key]) expect(listed.stdout).not.toContain(secret);

    const revoked = await assay(["admin", "keys", "revoke", key.id], { env: ADMIN });
    expect(revoked.code, revoked.stderr).toBe(0);
    expect(revoked.stdout).toBe(`revoked API key ${key.id} ("ci") of tenant ${tenant.id}\n`);
    // At once on the server that handled the revocation (docs/keys.md).
    expect((await asTenant(key.key, "/v1/keys")).status).toBe(401);
    expect((await asTenant(tenant.api_key.key, "/v1/keys")).status).toBe(200);
    const after = JSON.parse((await assay(["--json", "admin", "keys", "list", tenant.id], { env: ADMIN })).stdout) as {
      data: { id: string; revoked_at: string | null }[];
    };
    expect(after.data.find((k) => k.id === key.id)?.revoked_at).toEqual(expect.any(String));
  });

  it("needs ADMIN_TOKEN for any server but the local default; a wrong one is the API's 401 on one line", async () => {
    const missing = await assay(["admin", "tenants", "list"], { env: { ADMIN_TOKEN: undefined } });
    expect(missing.code).toBe(2);
    expect(missing.stderr).toBe(
      `assay: set ADMIN_TOKEN to the operator token of ${inject("assayUrl")} (the Worker secret ADMIN_TOKEN)\n`,
    );
    // A tenant's key is not the operator token.
    const wrong = await assay(["admin", "tenants", "create", unique("nope")], {
      env: { ADMIN_TOKEN: "assay_sk_local_dev_key" },
    });
    expect(wrong.code).toBe(1);
    expect(wrong.stderr).toBe(
      "assay: 401 Unauthenticated: The operator token is wrong, or ADMIN_TOKEN is not configured.\n",
    );
    const badId = await assay(["admin", "keys", "list", "research"], { env: ADMIN });
    expect(badId.code).toBe(2);
    expect(badId.stderr).toContain('not a tenant id: "research"');
  });
});

// Issue 30: the operator shows and sets a tenant's quotas; `default` returns one to the service's default.
describe("assay admin tenants quotas", () => {
  it("shows the defaults, sets a quota the tenant then meets as a 429, and resets it", async () => {
    const created = await assay(["--json", "admin", "tenants", "create", unique("quota")], { env: ADMIN });
    const tenant = JSON.parse(created.stdout) as { id: string; api_key: { key: string } };
    const shown = await assay(["--json", "admin", "tenants", "quotas", tenant.id], { env: ADMIN });
    expect(shown.code, shown.stderr).toBe(0);
    const initial = JSON.parse(shown.stdout) as {
      quotas: Record<string, number>;
      overrides: Record<string, number>;
      defaults: Record<string, number>;
    };
    expect(initial.overrides).toEqual({});
    expect(initial.quotas).toEqual(initial.defaults);

    const set = await assay(
      ["admin", "tenants", "quotas", tenant.id, "--runs-per-minute", "0", "--heavy-reads-per-minute", "5"],
      { env: ADMIN },
    );
    expect(set.code, set.stderr).toBe(0);
    const row = (name: string) =>
      set.stdout
        .split("\n")
        .find((l) => l.startsWith(name))
        ?.split(/\s{2,}/);
    expect(row("runs_per_minute")).toEqual([
      "runs_per_minute",
      "0",
      `set (default ${initial.defaults.runs_per_minute})`,
    ]);
    expect(row("heavy_reads_per_minute")).toEqual([
      "heavy_reads_per_minute",
      "5",
      `set (default ${initial.defaults.heavy_reads_per_minute})`,
    ]);
    expect(row("concurrent_runs")).toEqual(["concurrent_runs", String(initial.defaults.concurrent_runs), "default"]);

    // The tenant's next run is refused, naming the quota.
    const refused = await assay(
      ["chain-determinism", "eval", "--model", "sim:agent", "--n-queries", "1", "--n-replays", "1", "--detach"],
      { env: { ASSAY_API_KEY: tenant.api_key.key } },
    );
    expect(refused.code).toBe(1);
    expect(refused.stderr).toContain("429");
    expect(refused.stderr).toContain("runs_per_minute");

    const reset = await assay(["--json", "admin", "tenants", "quotas", tenant.id, "--runs-per-minute", "default"], {
      env: ADMIN,
    });
    expect((JSON.parse(reset.stdout) as { overrides: Record<string, number> }).overrides).toEqual({
      heavy_reads_per_minute: 5,
    });

    const bad = await assay(["admin", "tenants", "quotas", tenant.id, "--units-per-day", "-3"], { env: ADMIN });
    expect(bad.code).toBe(2);
    expect(bad.stderr).toContain("--units-per-day");
  });
});
