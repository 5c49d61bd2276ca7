// Issue 17, "Saved provider connections": `assay providers add|list|delete`. The key comes from an
// environment variable, never a flag, and no output of the CLI ever shows it.
import { describe, expect, inject, it } from "vitest";
import { assay, type Result } from "./assay.ts";

const KEY = "sk-cli-saved-0123456789abcdef-mnop";
const ROTATED = "sk-cli-rotated-fedcba9876543210-ghij";
// Loopback is allowed by the test server (local development), and nothing here calls the endpoint.
const BASE_URL = "http://127.0.0.1:9/v1";

let n = 0;
/** A name no other test of this run uses (the tests share the dev tenant of one server). */
const unique = (prefix: string) => `${prefix}-${Date.now().toString(36)}-${n++}`;

/** Every line the CLI wrote, to check that a key is in none of them. */
const output = (...results: Result[]) => results.map((r) => r.stdout + r.stderr).join("\n");

/** The connection of that name as the API shows it (read over plain HTTP: the CLI is what is under test). */
async function apiGet(name: string): Promise<{ status: number; body: Record<string, unknown> | null }> {
  const res = await fetch(`${inject("assayUrl")}/v1/providers/${name}`, {
    headers: { Authorization: "Bearer assay_sk_local_dev_key" },
  });
  return { status: res.status, body: res.ok ? ((await res.json()) as Record<string, unknown>) : null };
}

describe("assay providers", () => {
  it("add saves a connection with the key from an environment variable; list shows it without the key; delete removes it", async () => {
    const named = unique("named-var");
    const byDefault = unique("default-var");
    const added = await assay(["providers", "add", named, "--base-url", BASE_URL, "--api-key-env", "MY_MODEL_KEY"], {
      env: { MY_MODEL_KEY: KEY },
    });
    expect(added.stderr).toBe("");
    expect(added.code).toBe(0);
    expect(added.stdout).toBe(`saved provider connection ${named}: ${BASE_URL} (key …mnop, from MY_MODEL_KEY)\n`);
    // Without --api-key-env, the key is OPENAI_API_KEY's.
    const viaDefault = await assay(["providers", "add", byDefault, "--base-url", BASE_URL], {
      env: { OPENAI_API_KEY: ROTATED },
    });
    expect(viaDefault.code).toBe(0);
    expect(viaDefault.stdout).toContain("(key …ghij, from OPENAI_API_KEY)");
    expect(await apiGet(named)).toMatchObject({
      status: 200,
      body: { name: named, base_url: BASE_URL, has_api_key: true, api_key_last4: "mnop" },
    });

    const listed = await assay(["providers", "list"]);
    expect(listed.code).toBe(0);
    const lines = listed.stdout.trim().split("\n");
    expect(lines[0].split(/\s+/)).toEqual(["name", "base_url", "key", "updated"]);
    // Newest first.
    const rows = lines.slice(2).map((l) => l.split(/\s+/));
    expect(rows.findIndex((r) => r[0] === byDefault)).toBeLessThan(rows.findIndex((r) => r[0] === named));
    expect(rows.find((r) => r[0] === named)?.slice(0, 3)).toEqual([named, BASE_URL, "…mnop"]);
    const asJson = await assay(["--json", "providers", "list"]);
    const data = (JSON.parse(asJson.stdout) as { data: Record<string, unknown>[] }).data;
    expect(data.find((c) => c.name === named)).toMatchObject({
      base_url: BASE_URL,
      has_api_key: true,
      api_key_last4: "mnop",
    });
    expect(data.every((c) => !("api_key" in c))).toBe(true);

    const deleted = await assay(["providers", "delete", named]);
    expect(deleted.code).toBe(0);
    expect(deleted.stdout).toBe(`deleted provider connection ${named}\n`);
    expect((await apiGet(named)).status).toBe(404);
    expect((await assay(["providers", "list"])).stdout).not.toContain(named);
    const again = await assay(["providers", "delete", named]);
    expect(again.code).toBe(1);
    expect(again.stderr).toMatch(/^assay: 404 Not found: The provider connection was not found\.\n$/);
    await assay(["providers", "delete", byDefault]);

    for (const key of [KEY, ROTATED]) {
      for (let i = 0; i + 8 <= key.length; i++)
        expect(output(added, viaDefault, listed, asJson, deleted, again)).not.toContain(key.slice(i, i + 8));
    }
  });

  it("add without the key's environment variable exits 1 naming it, and saves nothing", async () => {
    const name = unique("no-key");
    const unset = await assay(["providers", "add", name, "--base-url", BASE_URL], {
      env: { OPENAI_API_KEY: undefined },
    });
    expect(unset.code).toBe(1);
    expect(unset.stderr).toBe(
      "assay: OPENAI_API_KEY is not set: the key is read from it (--api-key-env names another variable)\n",
    );
    const empty = await assay(["providers", "add", name, "--base-url", BASE_URL, "--api-key-env", "MY_EMPTY_KEY"], {
      env: { MY_EMPTY_KEY: "", OPENAI_API_KEY: KEY },
    });
    expect(empty.code).toBe(1);
    expect(empty.stderr).toContain("MY_EMPTY_KEY is not set");
    expect((await apiGet(name)).status).toBe(404);
  });

  it("add of a saved name is a 409 on one line; --replace rotates its key", async () => {
    const name = unique("rotate");
    expect(
      (await assay(["providers", "add", name, "--base-url", BASE_URL], { env: { OPENAI_API_KEY: KEY } })).code,
    ).toBe(0);
    const twice = await assay(["providers", "add", name, "--base-url", BASE_URL], { env: { OPENAI_API_KEY: ROTATED } });
    expect(twice.code).toBe(1);
    expect(twice.stderr).toBe(
      `assay: 409 Conflict: A provider connection named '${name}' exists; replace it with PUT /v1/providers/${name}, or delete it first.\n`,
    );
    expect((await apiGet(name)).body).toMatchObject({ api_key_last4: "mnop" });
    const replaced = await assay(
      ["--json", "providers", "add", name, "--base-url", "http://127.0.0.1:10/v1", "--replace"],
      { env: { OPENAI_API_KEY: ROTATED } },
    );
    expect(replaced.code).toBe(0);
    expect(JSON.parse(replaced.stdout)).toMatchObject({
      name,
      base_url: "http://127.0.0.1:10/v1",
      api_key_last4: "ghij",
    });
    expect(replaced.stdout).not.toContain(ROTATED.slice(0, 12));
    await assay(["providers", "delete", name]);
  });

  it("a refused base_url is the API's 400 naming it; a bad name is a usage error", async () => {
    const refused = await assay(["providers", "add", unique("private"), "--base-url", "http://10.0.0.1/v1"], {
      env: { OPENAI_API_KEY: KEY },
    });
    expect(refused.code).toBe(1);
    expect(refused.stderr).toContain("(base_url: private address 10.0.0.1 is not allowed)");
    const badName = await assay(["providers", "add", "no/slash", "--base-url", BASE_URL], {
      env: { OPENAI_API_KEY: KEY },
    });
    expect(badName.code).toBe(2);
    expect(badName.stderr).toContain('not a connection name: "no/slash"');
  });
});
