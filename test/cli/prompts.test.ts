// Issue 18, "Versioned prompts per tenant": `assay prompts push FILE` reads Heretix's rpl prompt YAML or
// cross-judge's critic prompt YAML; `assay prompts list`; runs then name the pushed versions as name@version.
import { createHash } from "node:crypto";
import { mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, inject, it } from "vitest";
import { assay } from "./assay.ts";

const headers = { Authorization: "Bearer assay_sk_local_dev_key" };
const sha256 = (text: string) => createHash("sha256").update(text, "utf8").digest("hex");

let n = 0;
/** A name no other test of this run uses (the tests share the dev tenant of one server). */
const unique = (prefix: string) => `${prefix}-${Date.now().toString(36)}-${n++}`;

/** Writes `text` as `file` in a fresh directory and returns its path. */
function file(name: string, text: string): string {
  const path = join(mkdtempSync(join(tmpdir(), "assay-prompts-")), name);
  writeFileSync(path, text);
  return path;
}

/** The version as the API serves it (read over plain HTTP: the CLI is what is under test). */
async function apiGet(name: string, version: string): Promise<{ status: number; body: any }> {
  const res = await fetch(`${inject("assayUrl")}/v1/prompts/${name}/${version}`, { headers });
  return { status: res.status, body: await res.json() };
}

// Heretix's layout: literal blocks (each ends with one newline), 16 paraphrases in its banks (three here).
const heretixYaml = (version: string, tone: string) => `version: ${version}
system: |
  You are a Raw Prior Lens (${tone}). Estimate how likely a short claim is to be true.
user_template: |
  Claim: "{CLAIM}"

  Return only the JSON object.
paraphrases:
  - "(${tone}) What is the probability that this claim is true? {CLAIM}"
  - "(${tone}) From prior knowledge only, how likely is the following claim? {CLAIM}"
  - "(${tone}) Estimate the chance that this statement holds: {CLAIM}"
`;

describe("assay prompts push", () => {
  it("pushes Heretix's rpl prompt YAML under its file name and version; again is 'already pushed'; changed texts exit 1", async () => {
    const name = unique("rpl_g5");
    const path = file(`${name}.yaml`, heretixYaml("rpl_g5_v2_2026-01-02", "plain"));
    const pushed = await assay(["prompts", "push", path]);
    expect(pushed.stderr).toBe("");
    expect(pushed.code).toBe(0);
    const stored = await apiGet(name, "rpl_g5_v2_2026-01-02");
    expect(stored.status).toBe(200);
    expect(pushed.stdout).toBe(`pushed ${name}@rpl_g5_v2_2026-01-02 (rpl, sha256 ${stored.body.sha256})\n`);
    // The YAML's texts as written, the literal blocks' final newline included.
    expect(stored.body).toMatchObject({
      kind: "rpl",
      system: "You are a Raw Prior Lens (plain). Estimate how likely a short claim is to be true.\n",
      user_template: 'Claim: "{CLAIM}"\n\nReturn only the JSON object.\n',
      paraphrases: [
        "(plain) What is the probability that this claim is true? {CLAIM}",
        "(plain) From prior knowledge only, how likely is the following claim? {CLAIM}",
        "(plain) Estimate the chance that this statement holds: {CLAIM}",
      ],
    });
    const b = stored.body;
    expect(b.sha256).toBe(sha256(JSON.stringify([b.version, b.system, b.user_template, b.schema, b.paraphrases])));

    const again = await assay(["prompts", "push", path]);
    expect(again.code).toBe(0);
    expect(again.stdout).toBe(`already pushed ${name}@rpl_g5_v2_2026-01-02 (rpl, sha256 ${stored.body.sha256})\n`);
    const changed = await assay([
      "prompts",
      "push",
      file(`${name}.yaml`, heretixYaml("rpl_g5_v2_2026-01-02", "strict")),
    ]);
    expect(changed.code).toBe(1);
    expect(changed.stderr).toMatch(
      new RegExp(`^assay: 409 Conflict: ${name}@rpl_g5_v2_2026-01-02 exists and its texts differ .*\\n$`),
    );
  });

  it("pushes cross-judge's prompt YAML: the version as written, the name up to '@', flags over the file", async () => {
    const name = unique("careful");
    // `version: 0.10` unquoted is the text "0.10", not the number 0.1; no system_prompt is cross-judge's default.
    const path = file(
      `${name}@v0.1.yaml`,
      `version: 0.10\ndescription: asks for the deciding reason\nuser_prompt_template: |\n  Item: {query}\n  Labels: {labels}\n`,
    );
    const pushed = await assay(["--json", "prompts", "push", path]);
    expect(pushed.code, pushed.stderr).toBe(0);
    const body = JSON.parse(pushed.stdout);
    expect(body).toMatchObject({
      kind: "judge",
      name,
      version: "0.10",
      ref: `${name}@0.10`,
      description: "asks for the deciding reason",
      system_prompt: "You are a careful judge.",
    });
    expect(body.sha256).toBe(sha256(JSON.stringify(["You are a careful judge.", "Item: {query}\nLabels: {labels}\n"])));

    const other = unique("renamed");
    const flagged = await assay(["prompts", "push", path, "--name", other, "--prompt-version", "2.0-rc1"]);
    expect(flagged.code, flagged.stderr).toBe(0);
    expect(flagged.stdout).toMatch(new RegExp(`^pushed ${other}@2\\.0-rc1 \\(judge, sha256 ${body.sha256}\\)\\n$`));
    expect((await apiGet(other, "2.0-rc1")).status).toBe(200);
  });

  it.each([
    ["a file of neither layout", "x.yaml", "version: 1\nprompt: hello\n", 1, "has neither Heretix's rpl keys"],
    [
      "a file without a version",
      "nover.yaml",
      "user_prompt_template: 'Judge {query}'\n",
      1,
      "has no version; give one with --prompt-version",
    ],
    [
      "an empty paraphrase list",
      "empty.yaml",
      "version: v1\nsystem: s\nuser_template: 'Claim: {CLAIM}'\nparaphrases: []\n",
      1,
      "paraphrases must be a non-empty list",
    ],
    [
      "a file name that is no prompt name",
      "bad name.yaml",
      "version: v1\nuser_prompt_template: 'Judge {query}'\n",
      2,
      'not a prompt name: "bad name"',
    ],
  ])("refuses %s before sending anything", async (_, name, text, code, message) => {
    const out = await assay(["prompts", "push", file(name, text)]);
    expect(out.code).toBe(code);
    expect(out.stderr).toContain(message);
    expect(out.stdout).toBe("");
  });

  it("prints the server's 400 naming the field for texts the API refuses", async () => {
    const out = await assay([
      "prompts",
      "push",
      file(
        `${unique("noclaim")}.yaml`,
        "version: v1\nsystem: s\nuser_template: 'no claim here'\nparaphrases: ['{CLAIM}?']\n",
      ),
    ]);
    expect(out.code).toBe(1);
    expect(out.stderr).toMatch(/^assay: 400 Validation failed: .*\(user_template: must contain \{CLAIM\}\)\n$/);
  });
});

describe("assay prompts list", () => {
  it("lists the pushed versions newest first, by kind, and an A/B of two of them runs with `assay rpl run`", async () => {
    const name = unique("ab");
    for (const [v, tone] of [
      ["v1", "plain"],
      ["v2", "strict"],
    ]) {
      expect((await assay(["prompts", "push", file(`${name}.yaml`, heretixYaml(v, tone))])).code).toBe(0);
    }
    const listed = await assay(["prompts", "list", "--kind", "rpl"]);
    expect(listed.code).toBe(0);
    const lines = listed.stdout.trim().split("\n");
    expect(lines[0].split(/\s+/)).toEqual(["ref", "kind", "sha256", "created"]);
    const refs = lines.slice(2).map((l) => l.split(/\s+/)[0]);
    expect(refs.indexOf(`${name}@v2`)).toBeLessThan(refs.indexOf(`${name}@v1`));
    expect(refs.indexOf(`${name}@v1`)).toBeGreaterThan(-1);
    const asJson = JSON.parse((await assay(["--json", "prompts", "list", "--kind", "judge"])).stdout) as {
      data: { kind: string; ref: string }[];
    };
    expect(asJson.data.every((p) => p.kind === "judge")).toBe(true);
    expect(asJson.data.map((p) => p.ref)).not.toContain(`${name}@v1`);
    expect((await assay(["prompts", "list", "--kind", "vrty"])).code).toBe(2);

    const config = file(
      "run.yaml",
      `claim: "Prompt versions A/B from the CLI (${name})."\nmodel: sim:rpl\nK: 3\nR: 2\nB: 200\n`,
    );
    const ab = await assay([
      "--json",
      "rpl",
      "run",
      "--config",
      config,
      "--prompt-version",
      `${name}@v1`,
      `${name}@v2`,
    ]);
    expect(ab.code, ab.stderr).toBe(0);
    const runs = (JSON.parse(ab.stdout) as { runs: { status: string; config: Record<string, unknown> }[] }).runs;
    const versions = [await apiGet(name, "v1"), await apiGet(name, "v2")];
    expect(runs.map((r) => [r.status, r.config.prompt_version, r.config.prompt_sha256])).toEqual([
      ["succeeded", `${name}@v1`, versions[0].body.sha256],
      ["succeeded", `${name}@v2`, versions[1].body.sha256],
    ]);
  });
});
