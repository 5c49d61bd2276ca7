// Issue 18, "Versioned prompts per tenant": POST /v1/prompts stores an rpl bank or a judge critic prompt as an
// immutable name@version with its SHA-256; rpl's prompt_version and a critic's prompt name them.
import { describe, expect, it } from "vitest";
import { env } from "cloudflare:workers";
import assayV1 from "../../prompts/rpl/rpl-assay-v1.json" with { type: "json" };
import { recordedRequests } from "../support/fake-openai.ts";
import { fakeScenario, newTenant, problem, send, waitForRun, type RunJson } from "./helpers.ts";

/** SHA-256 in lowercase hex, computed here with WebCrypto (not with the code under test). */
async function sha256(text: string): Promise<string> {
  const digest = await crypto.subtle.digest("SHA-256", new TextEncoder().encode(text));
  return [...new Uint8Array(digest)].map((b) => b.toString(16).padStart(2, "0")).join("");
}

// A bank in Heretix's YAML layout (literal blocks end with one newline), three paraphrases.
const rplBank = (version: string, tone: string) => ({
  kind: "rpl",
  name: "heretix-style",
  version,
  system: `You are a Raw Prior Lens (${tone}). Estimate how likely a short claim is to be true from what you already know.\n`,
  user_template: 'Claim: "{CLAIM}"\n\nReturn only the JSON object.\n',
  paraphrases: [
    `(${tone}) What is the probability that this claim is true? {CLAIM}`,
    `(${tone}) From prior knowledge only, how likely is the following claim? {CLAIM}`,
    `(${tone}) Estimate the chance that this statement holds: {CLAIM}`,
  ],
});

const judgePrompt = {
  kind: "judge",
  name: "careful-critic",
  version: "0.2",
  description: "asks for the deciding reason",
  system_prompt: "You review one item and answer with JSON only.",
  user_prompt_template:
    'Item:\n{query}\n\nPick one label from: {labels}.\nAnswer {{"kind": "<label>", "confidence": <0-1>, "reasoning": "<why>"}}',
};

/** By spec: a bank's sha256 is that of the JSON of [version, system, user_template, schema, paraphrases]. */
const bankSha = (b: ReturnType<typeof rplBank>, schema: string) =>
  sha256(JSON.stringify([b.version, b.system, b.user_template, schema, b.paraphrases]));
/** By spec: a critic prompt's sha256 is that of the JSON of [system_prompt, template], as every verdict records. */
const criticSha = (system: string, template: string) => sha256(JSON.stringify([system, template]));

async function push(key: string, body: Record<string, unknown>, status = 201): Promise<any> {
  const res = await send("POST", "/v1/prompts", key, body);
  const text = await res.text();
  if (res.status !== status) throw new Error(`push: expected ${status}, got ${res.status}: ${text}`);
  return JSON.parse(text);
}

const get = async (key: string, path: string) => {
  const res = await send("GET", path, key);
  return { status: res.status, body: (await res.json()) as any };
};

describe("POST /v1/prompts", () => {
  it("stores an rpl bank and a judge prompt with their sha256, and lists and gets them", async () => {
    const { key } = await newTenant();
    const bank = rplBank("hx_v1_2026-01-02", "plain");
    const rpl = await push(key, bank);
    // No schema given: our bank's JSON-format instruction, copied into the version.
    expect(rpl).toMatchObject({
      kind: "rpl",
      name: "heretix-style",
      version: "hx_v1_2026-01-02",
      ref: "heretix-style@hx_v1_2026-01-02",
      schema: assayV1.schema,
      description: null,
    });
    expect(rpl.id).toMatch(/^pmt_/);
    expect(rpl.sha256).toBe(await bankSha(bank, assayV1.schema));
    expect(rpl.paraphrases).toEqual(bank.paraphrases);

    const judge = await push(key, judgePrompt);
    expect(judge.sha256).toBe(await criticSha(judgePrompt.system_prompt, judgePrompt.user_prompt_template));
    expect(judge).toMatchObject({
      ref: "careful-critic@0.2",
      description: "asks for the deciding reason",
      system_prompt: judgePrompt.system_prompt,
    });
    // cross-judge's YAML loader: no system_prompt → "You are a careful judge."
    const bare = await push(key, {
      kind: "judge",
      name: "bare-critic",
      version: "0.1",
      user_prompt_template: "Judge {query}.",
    });
    expect(bare.system_prompt).toBe("You are a careful judge.");
    expect(bare.sha256).toBe(await criticSha("You are a careful judge.", "Judge {query}."));

    const all = await get(key, "/v1/prompts");
    expect(all.status).toBe(200);
    expect(all.body.data.map((p: any) => p.ref)).toEqual([
      "bare-critic@0.1",
      "careful-critic@0.2",
      "heretix-style@hx_v1_2026-01-02",
    ]);
    expect(all.body.data[2]).toEqual({
      id: rpl.id,
      name: "heretix-style",
      version: "hx_v1_2026-01-02",
      ref: rpl.ref,
      kind: "rpl",
      sha256: rpl.sha256,
      description: null,
      created_at: rpl.created_at,
    });
    expect((await get(key, "/v1/prompts?kind=judge")).body.data.map((p: any) => p.name)).toEqual([
      "bare-critic",
      "careful-critic",
    ]);
    const first = await get(key, "/v1/prompts?limit=2");
    expect(first.body.has_more).toBe(true);
    expect(
      (await get(key, `/v1/prompts?limit=2&after=${first.body.next_cursor}`)).body.data.map((p: any) => p.ref),
    ).toEqual([rpl.ref]);

    const v2 = await push(key, rplBank("hx_v2_2026-02-03", "strict"));
    const versions = await get(key, "/v1/prompts/heretix-style");
    expect(versions.body.data.map((p: any) => p.version)).toEqual(["hx_v2_2026-02-03", "hx_v1_2026-01-02"]);
    expect(versions.body.data[0].sha256).toBe(v2.sha256);
    expect((await get(key, "/v1/prompts/heretix-style/hx_v1_2026-01-02")).body).toEqual(rpl);
    expect((await get(key, "/v1/prompts/careful-critic/0.2")).body).toEqual(judge);
    expect((await problem(await send("GET", "/v1/prompts/heretix-style/hx_v9", key), 404)).detail).toBe(
      "The prompt version was not found.",
    );
    await problem(await send("GET", "/v1/prompts/no-such-prompt", key), 404);
  });

  it("keeps a version immutable: the same content again answers the stored one (200), other content is a 409", async () => {
    const { key } = await newTenant();
    const bank = rplBank("v1", "plain");
    const stored = await push(key, bank);
    expect(await push(key, bank, 200)).toEqual(stored);
    // The schema filled in by default, given explicitly, is the same content.
    expect(await push(key, { ...bank, schema: assayV1.schema }, 200)).toEqual(stored);

    const changed = await problem(
      await send("POST", "/v1/prompts", key, {
        ...bank,
        paraphrases: [...bank.paraphrases.slice(0, 2), "Changed: {CLAIM}"],
      }),
      409,
    );
    expect(changed.detail).toContain(`heretix-style@v1 exists and its texts differ (sha256 ${stored.sha256}`);
    const described = await problem(
      await send("POST", "/v1/prompts", key, { ...bank, description: "now described" }),
      409,
    );
    expect(described.detail).toContain("its description differs");
    // Another kind under the same name@version, or as a new version of the name.
    expect(
      (
        await problem(
          await send("POST", "/v1/prompts", key, { ...judgePrompt, name: "heretix-style", version: "v1" }),
          409,
        )
      ).detail,
    ).toContain("it is an rpl prompt");
    expect(
      (
        await problem(
          await send("POST", "/v1/prompts", key, { ...judgePrompt, name: "heretix-style", version: "v2" }),
          409,
        )
      ).detail,
    ).toContain("'heretix-style' holds rpl prompts");
    // Nothing of the refused pushes was stored.
    expect((await get(key, "/v1/prompts")).body.data.map((p: any) => p.sha256)).toEqual([stored.sha256]);
  });

  it.each([
    [
      "a paraphrase without {CLAIM}",
      { ...rplBank("v1", "x"), paraphrases: ["Is it true? {CLAIM}", "Is it true?"] },
      "paraphrases.1",
      "must contain {CLAIM}",
    ],
    [
      "a repeated paraphrase",
      { ...rplBank("v1", "x"), paraphrases: ["A {CLAIM}", "B {CLAIM}", "A {CLAIM}"] },
      "paraphrases.2",
      "repeats paraphrase 0",
    ],
    ["no paraphrases", { ...rplBank("v1", "x"), paraphrases: [] }, "paraphrases", ""],
    [
      "a user_template without {CLAIM}",
      { ...rplBank("v1", "x"), user_template: "Return JSON.\n" },
      "user_template",
      "must contain {CLAIM}",
    ],
    ["a missing system", (({ system: _s, ...rest }) => rest)(rplBank("v1", "x")), "system", ""],
    ["a name with @", { ...rplBank("v1", "x"), name: "a@b" }, "name", "letters, digits"],
    ["a version with a slash", { ...rplBank("v1/2", "x") }, "version", "letters, digits"],
    ["one of our rpl banks' names", { ...rplBank("v1", "x"), name: "rpl-assay-v1" }, "name", "one of our prompts"],
    [
      "one of our critic prompts' names",
      { ...judgePrompt, name: "panel-general", version: "3" },
      "name",
      "one of our prompts",
    ],
    ["an unknown kind", { ...judgePrompt, kind: "vrty" }, "kind", ""],
    ["an unknown field", { ...judgePrompt, prompt_template: "x {query}" }, "prompt_template", "unknown field"],
    [
      "a template with a single brace",
      { ...judgePrompt, user_prompt_template: "Judge {query} as {labels" },
      "user_prompt_template",
      "single '{'",
    ],
    [
      "a template without {query}",
      { ...judgePrompt, user_prompt_template: "Judge {{query}} as {labels}" },
      "user_prompt_template",
      "must use {query}",
    ],
  ])("refuses %s with a 400 naming the field", async (_, body, path, message) => {
    const { key } = await newTenant();
    const p = await problem(await send("POST", "/v1/prompts", key, body), 400);
    expect(p.errors!.map((e) => e.path)).toContain(path);
    expect(p.errors!.find((e) => e.path === path)!.message).toContain(message);
    expect((await get(key, "/v1/prompts")).body.data).toEqual([]);
  });

  it("keeps tenants apart: another tenant's prompt is a 404, is not listed, and its name@version is free", async () => {
    const a = await newTenant("a");
    const b = await newTenant("b");
    const mine = await push(a.key, judgePrompt);
    await problem(await send("GET", "/v1/prompts/careful-critic/0.2", b.key), 404);
    await problem(await send("GET", "/v1/prompts/careful-critic", b.key), 404);
    expect((await get(b.key, "/v1/prompts")).body.data).toEqual([]);
    const theirs = await push(b.key, { ...judgePrompt, system_prompt: "Another tenant's words." });
    expect(theirs.sha256).not.toBe(mine.sha256);
    expect((await get(a.key, "/v1/prompts/careful-critic/0.2")).body.sha256).toBe(mine.sha256);
    // Nor can a run of another tenant name it.
    const run = await problem(
      await send("POST", "/v1/rpl/runs", b.key, { claim: "x", model: "sim:rpl", prompt_version: "heretix-style@v1" }),
      400,
    );
    expect(run.errors).toEqual([
      { path: "prompt_version", message: expect.stringContaining("no prompt 'heretix-style@v1' for this tenant") },
    ]);
    await push(a.key, rplBank("v1", "plain"));
    await problem(
      await send("POST", "/v1/rpl/runs", b.key, { claim: "x", model: "sim:rpl", prompt_version: "heretix-style@v1" }),
      400,
    );
  });
});

describe("rpl runs naming the tenant's prompts", () => {
  it("runs an A/B group of two of the tenant's versions on the simulator, each run naming its version and sha256", async () => {
    const { key } = await newTenant();
    const banks = [rplBank("hx_v1", "plain"), rplBank("hx_v2", "strict")];
    const pushed = [await push(key, banks[0]), await push(key, banks[1])];
    const claim = "Tariffs raise consumer prices.";
    const res = await send("POST", "/v1/rpl/runs", key, {
      claim,
      model: "sim:rpl",
      K: 3,
      R: 2,
      B: 200,
      prompt_version: pushed.map((p) => p.ref),
    });
    expect(res.status).toBe(202);
    const group = (await res.json()) as { group_id: string; runs: RunJson[] };
    expect(group.runs).toHaveLength(2);
    const runs = [await waitForRun(key, group.runs[0].id), await waitForRun(key, group.runs[1].id)];
    for (const [i, run] of runs.entries()) {
      expect(run.status).toBe("succeeded");
      expect(run.config).toMatchObject({
        prompt_version: pushed[i].ref,
        prompt_version_full: banks[i].version,
        prompt_sha256: pushed[i].sha256,
        group_id: group.group_id,
      });
      expect(run.config).not.toHaveProperty("prompt"); // the snapshot is the run's own, not public
      expect(run.result.prompt_version).toBe(banks[i].version);
      // Each sample's prompt is composed from this version's texts (spec rpl.md §4):
      // sha256(system + "\n\n" + schema + "\n\n" + paraphrase(claim) + "\n\n" + user_template(claim)).
      const samples = (
        (await (await send("GET", `/v1/runs/${run.id}/samples?limit=100`, key)).json()) as { data: any[] }
      ).data;
      expect(samples).toHaveLength(6);
      for (const s of samples) {
        const b = banks[i];
        const user =
          b.paraphrases[s.output.paraphrase_idx].replaceAll("{CLAIM}", claim) +
          "\n\n" +
          b.user_template.replaceAll("{CLAIM}", claim);
        expect(s.output.prompt_sha256).toBe(await sha256(b.system + "\n\n" + assayV1.schema + "\n\n" + user));
      }
    }
    // The two versions compare as runs that differ in their prompt version only.
    const compared = await get(key, `/v1/rpl/compare?runs=${runs[0].id},${runs[1].id}`);
    expect(compared.status).toBe(200);
    expect(compared.body.dimension).toBe("prompt_version");
    expect(compared.body.runs.map((r: any) => r.value)).toEqual(pushed.map((p) => p.ref));
    expect((await get(key, `/v1/compare?base=${runs[0].id}&head=${runs[1].id}`)).status).toBe(200);
  });

  it("refuses a reference that names no rpl bank of the tenant, by its place in the list", async () => {
    const { key } = await newTenant();
    await push(key, rplBank("hx_v1", "plain"));
    await push(key, judgePrompt);
    const bad = await problem(
      await send("POST", "/v1/rpl/runs", key, {
        claim: "x",
        model: "sim:rpl",
        prompt_version: ["heretix-style@hx_v1", "heretix-style@hx_v9", "careful-critic@0.2", "heretix-style"],
      }),
      400,
    );
    expect(bad.errors).toEqual([
      { path: "prompt_version.1", message: expect.stringContaining("no prompt 'heretix-style@hx_v9' for this tenant") },
      { path: "prompt_version.2", message: "'careful-critic@0.2' is a judge prompt, not an rpl bank" },
      { path: "prompt_version.3", message: expect.stringContaining("unknown prompt version 'heretix-style'") },
    ]);
    const twice = await problem(
      await send("POST", "/v1/rpl/runs", key, {
        claim: "x",
        model: "sim:rpl",
        prompt_version: ["heretix-style@hx_v1", "heretix-style@hx_v1"],
      }),
      400,
    );
    expect(twice.errors).toEqual([{ path: "prompt_version", message: "lists a version twice" }]);
  });
});

describe("judge critics naming the tenant's prompts", () => {
  it("sends the prompt's texts, rendered, and records its name, version and sha256 in the config and every verdict", async () => {
    const { key } = await newTenant();
    const pushed = await push(key, judgePrompt);
    const model = await fakeScenario(
      { text: JSON.stringify({ kind: "KEEP", confidence: 0.8, reasoning: "explicit" }) },
      "prompts",
    );
    const run = await waitForRun(
      key,
      (
        (await (
          await send("POST", "/v1/judge/runs", key, {
            items: [{ id: "A", query: "Item A" }],
            critics: [
              {
                name: "mine",
                model,
                provider: { base_url: env.FAKE_OPENAI_URL, api_key: "sk-prompts-test-0000" },
                prompt: "careful-critic@0.2",
              },
              { name: "sim", model: "sim:critic" },
            ],
            labels: ["KEEP", "REJECT"],
          })
        ).json()) as RunJson
      ).id,
    );
    expect(run.status).toBe("succeeded");
    const ref = { name: "careful-critic", version: "0.2", sha256: pushed.sha256 };
    expect((run.config.critics as any[])[0].prompt).toEqual(ref);
    const [req] = await recordedRequests(env.FAKE_OPENAI_URL, model);
    // Rendered by hand: {query} → the item, {labels} → the labels joined by " | ", {{ }} → braces.
    expect((req.body as any).messages).toEqual([
      { role: "system", content: "You review one item and answer with JSON only." },
      {
        role: "user",
        content:
          'Item:\nItem A\n\nPick one label from: KEEP | REJECT.\nAnswer {"kind": "<label>", "confidence": <0-1>, "reasoning": "<why>"}',
      },
    ]);
    const samples = ((await (await send("GET", `/v1/runs/${run.id}/samples?limit=100`, key)).json()) as { data: any[] })
      .data;
    expect(samples.find((s) => s.output.critic === "mine").output.verdict.prompt).toEqual(ref);
    expect(samples.find((s) => s.output.critic === "sim").output.verdict.prompt).toMatchObject({
      name: "panel-general",
      version: 2,
    });
  });

  it("refuses a critic prompt the tenant does not have, or that is an rpl bank, naming the critic's field", async () => {
    const { key } = await newTenant();
    await push(key, rplBank("hx_v1", "plain"));
    const bad = await problem(
      await send("POST", "/v1/judge/runs", key, {
        items: [{ id: "A", query: "Item A" }],
        critics: [
          { name: "a", model: "sim:critic", prompt: "careful-critic@0.2" },
          { name: "b", model: "sim:critic", prompt: "heretix-style@hx_v1" },
          { name: "c", model: "sim:critic", prompt: "careful-critic" },
        ],
      }),
      400,
    );
    expect(bad.errors).toEqual([
      { path: "critics.0.prompt", message: expect.stringContaining("no prompt 'careful-critic@0.2' for this tenant") },
      { path: "critics.1.prompt", message: "'heretix-style@hx_v1' is an rpl prompt, not a critic prompt" },
      { path: "critics.2.prompt", message: expect.stringContaining("unknown prompt 'careful-critic'") },
    ]);
  });
});
