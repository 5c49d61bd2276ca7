import { describe, expect, it } from "vitest";
import { env } from "cloudflare:workers";
import { registerScenario, recordedRequests, type Scenario } from "../support/fake-openai.ts";
import { newTenant, problem, send, waitForRun, type RunJson } from "./helpers.ts";

async function startJudge(key: string, body: Record<string, unknown>): Promise<RunJson> {
  const res = await send("POST", "/v1/judge/runs", key, body);
  const text = await res.text();
  if (res.status !== 202) throw new Error(`judge run: ${res.status} ${text}`);
  return JSON.parse(text) as RunJson;
}

let n = 0;
async function fake(s: Omit<Scenario, "id">): Promise<string> {
  const id = `judge-${Date.now()}-${n++}`;
  await registerScenario(env.FAKE_OPENAI_URL, { id, ...s });
  return id;
}

const verdict = (kind: string, confidence = 0.8) => JSON.stringify({ kind, confidence, reasoning: `because ${kind}` });
const endpoint = (key = "sk-judge-test-0000wxyz") => ({ base_url: env.FAKE_OPENAI_URL, api_key: key });
const items = (labels: string[]) =>
  labels.map((expected, i) => ({ id: `item-${i}`, query: `Question number ${i}?`, expected }));

describe("POST /v1/judge/runs with simulated critics", () => {
  it("an honest panel agrees with every item's expected label", async () => {
    const { key } = await newTenant();
    const expected = ["KEEP", "REJECT", "SPLIT", "MERGE", "KEEP", "REJECT"];
    const run = await waitForRun(
      key,
      (
        await startJudge(key, {
          items: items(expected),
          critics: [
            { name: "a", model: "sim:critic" },
            { name: "b", model: "sim:critic", prompt: "strict-reviewer" },
            { name: "c", model: "sim:critic", prompt: "panel-general@1" },
          ],
        })
      ).id,
    );
    expect(run.status).toBe("succeeded");
    expect(run.progress).toEqual({ done: 18, failed: 0, total: 18 });
    const r = run.result;
    expect(r.items.map((it: any) => it.consensus)).toEqual(expected);
    expect(r.accuracy).toEqual({ items: 6, correct: 6, rate: 1 });
    expect(r.batch.alpha.alpha).toBe(1);
    expect(r.contested.count).toBe(0);
    expect(r.counts).toEqual({
      items: 6,
      verdicts: 18,
      valid: 18,
      errors: 0,
      parse_failures: 0,
      off_vocabulary: 0,
      missing: 0,
    });
    expect(r.batch.patterns).toEqual({ unanimous: 6, majority: 0, no_majority: 0, no_valid: 0 });
    // The prompt version used is recorded in every verdict.
    const samples = (await (await send("GET", `/v1/runs/${run.id}/samples?limit=100`, key)).json()) as { data: any[] };
    const prompts = new Map(
      samples.data.map((s) => [s.output.critic, `${s.output.verdict.prompt.name}@${s.output.verdict.prompt.version}`]),
    );
    expect(Object.fromEntries(prompts)).toEqual({ a: "panel-general@2", b: "strict-reviewer@1", c: "panel-general@1" });
    expect(samples.data.every((s) => /^[0-9a-f]{64}$/.test(s.output.verdict.prompt.sha256))).toBe(true);
  });

  it("a biased critic splits the panel exactly on the items whose truth it does not favour", async () => {
    const { key } = await newTenant();
    const expected = ["KEEP", "REJECT", "KEEP", "SPLIT", "REJECT", "MERGE", "KEEP", "REJECT"];
    const run = await waitForRun(
      key,
      (
        await startJudge(key, {
          items: items(expected),
          critics: [
            { name: "honest-1", model: "sim:critic" },
            { name: "honest-2", model: "sim:critic" },
            { name: "rejecter", model: "sim:critic", simulator: { bias: { label: "REJECT", rate: 1 } } },
          ],
        })
      ).id,
    );
    const r = run.result;
    const split = expected
      .map((e, i) => [e, i] as const)
      .filter(([e]) => e !== "REJECT")
      .map(([, i]) => `item-${i}`);
    const contested = (await (await send("GET", `/v1/judge/runs/${run.id}/contested`, key)).json()) as any;
    expect(contested.threshold).toBe(0.4);
    expect(contested.data.map((c: any) => c.id)).toEqual(split);
    // 2 against 1: agreement 2/3 stays above 0.4, the per-item alpha (≈ 0) does not.
    expect(contested.data.every((c: any) => c.reasons.join() === "alpha_below_threshold")).toBe(true);
    expect(contested.data[0].verdicts).toHaveLength(3);
    expect(contested.data[0].query).toBe("Question number 0?");
    expect(r.items.map((it: any) => it.consensus)).toEqual(expected); // the majority is still right
    const rejecter = r.batch.per_critic.find((c: any) => c.critic === "rejecter");
    expect(rejecter).toEqual({ critic: "rejecter", items: 8, agree: 3, rate: 3 / 8 });
    expect(r.batch.label_distribution.find((d: any) => d.critic === "rejecter").labels).toEqual({ REJECT: 8 });
    // A higher threshold adds the agreement reason; pages follow the cursor.
    const first = (await (
      await send("GET", `/v1/judge/runs/${run.id}/contested?threshold=0.7&limit=2`, key)
    ).json()) as any;
    expect(first.data.map((c: any) => c.id)).toEqual(split.slice(0, 2));
    expect(first.data[0].reasons).toEqual(["agreement_below_threshold", "alpha_below_threshold"]);
    expect(first.has_more).toBe(true);
    const second = (await (
      await send("GET", `/v1/judge/runs/${run.id}/contested?threshold=0.7&limit=100&after=${first.next_cursor}`, key)
    ).json()) as any;
    expect([...first.data, ...second.data].map((c: any) => c.id)).toEqual(split);
    expect(second.has_more).toBe(false);
  });

  it("noise is deterministic for a seed and changes with it", async () => {
    const { key } = await newTenant();
    const body = (seed: number) => ({
      items: items(["KEEP", "REJECT", "KEEP", "SPLIT", "REJECT", "MERGE", "KEEP", "REJECT", "KEEP", "KEEP"]),
      critics: ["x", "y", "z"].map((name) => ({ name, model: "sim:critic", simulator: { noise: 0.6 } })),
      seed,
    });
    const labels = (run: RunJson) => run.result.items.map((it: any) => it.verdicts.map((v: any) => v.kind).join(","));
    const a = await waitForRun(key, (await startJudge(key, body(1))).id);
    const b = await waitForRun(key, (await startJudge(key, body(1))).id);
    const c = await waitForRun(key, (await startJudge(key, body(2))).id);
    expect(labels(a)).toEqual(labels(b));
    expect(labels(a)).not.toEqual(labels(c));
    expect(a.result.batch.alpha.alpha).toBeLessThan(1);
  });
});

describe("POST /v1/judge/runs against an OpenAI-compatible endpoint", () => {
  it("sends the spec's request, votes per item and computes the batch alpha over the matrix", async () => {
    const { key } = await newTenant();
    // Item A: KEEP KEEP KEEP; item B: KEEP REJECT REJECT.
    const k1 = await fake({ text: verdict("KEEP") });
    const k2 = await fake({
      answers: [{ contains: "Item B", content: verdict("REJECT", 0.9) }],
      text: verdict("KEEP"),
    });
    const k3 = await fake({
      answers: [{ contains: "Item B", content: "```json\n" + verdict("reject", 0.6) + "\n```" }],
      text: verdict("KEEP"),
    });
    const secret = "sk-judge-secret-abcd1234";
    const created = await startJudge(key, {
      items: [
        { id: "A", query: "Item A" },
        { id: "B", query: "Item B" },
      ],
      critics: [
        { name: "one", model: k1, provider: endpoint(secret), temperature: 0.3, max_tokens: 300 },
        { name: "two", model: k2, provider: endpoint(secret) },
        {
          name: "three",
          model: k3,
          provider: endpoint(),
          system_prompt: "",
          prompt_template: "Judge {query} as one of {labels}; audience {audience}",
        },
      ].map((c) => (c.name === "three" ? c : { ...c, prompt: "panel-general@1" })),
      labels: ["KEEP", "REJECT"],
    }).catch((e) => e);
    // The third critic's template needs {audience}, which the items lack: a 400 naming the item.
    expect(String(created)).toContain("items.0.context");

    const run = await waitForRun(
      key,
      (
        await startJudge(key, {
          items: [
            { id: "A", query: "Item A", context: { audience: "experts" } },
            { id: "B", query: "Item B", context: { audience: "everyone" } },
          ],
          critics: [
            {
              name: "one",
              model: k1,
              provider: endpoint(secret),
              temperature: 0.3,
              max_tokens: 300,
              prompt: "panel-general@1",
            },
            { name: "two", model: k2, provider: endpoint(secret), prompt: "panel-general@1" },
            {
              name: "three",
              model: k3,
              provider: endpoint(),
              system_prompt: "",
              prompt_template: "Judge {query} as one of {labels}; audience {audience}",
            },
          ],
          labels: ["KEEP", "REJECT"],
        })
      ).id,
    );
    expect(run.status).toBe("succeeded");
    expect(JSON.stringify(run)).not.toContain(secret);
    const r = run.result;
    expect(r.items.map((it: any) => [it.id, it.consensus, it.agreement_pct])).toEqual([
      ["A", "KEEP", 1],
      ["B", "REJECT", 2 / 3],
    ]);
    // Issue "A suite you can trust": the library's per-item alpha of K R R is 1.1102230246251565e-16
    // (floating-point noise for 0); a person reads 0.
    expect(r.items.map((it: any) => it.krippendorff_alpha)).toEqual([1, 0]);
    // Textbook nominal alpha of {A: K K K, B: K R R}, by hand: o_KK = 3, o_KR = o_RK = 1, o_RR = 1; n_K = 4, n_R = 2, n = 6;
    // D_o = 2/6, D_e = 2·4·2/(6·5) = 16/30, alpha = 1 − (1/3)/(16/30) = 0.375.
    expect(r.batch.alpha.alpha).toBeCloseTo(0.375, 12);
    expect(r.batch.pairwise.find((p: any) => p.a === "two" && p.b === "three")).toMatchObject({
      items: 2,
      agree: 2,
      rate: 1,
    });
    expect(r.usage.total_tokens).toBeGreaterThan(0);

    const [req] = await recordedRequests(env.FAKE_OPENAI_URL, k1);
    const body = req.body as any;
    expect(Object.keys(body).slice(0, 4)).toEqual(["model", "messages", "temperature", "max_tokens"]);
    expect(body.temperature).toBe(0.3);
    expect(body.max_tokens).toBe(300);
    expect(body.messages[0].role).toBe("system");
    expect(body.messages[1].content).toContain("Pick exactly one label from: KEEP | REJECT.");
    expect(req.headers.authorization).toBe("***1234");
    const three = await recordedRequests(env.FAKE_OPENAI_URL, k3);
    const threeB = three.find((q) => JSON.stringify(q.body).includes("Item B"))!.body as any;
    // system_prompt "" sends no system message (spec §2); context keys fill the template.
    expect(threeB.messages).toEqual([
      { role: "user", content: "Judge Item B as one of KEEP | REJECT; audience everyone" },
    ]);
  });

  it("survives one critic down, one answering prose and one timing out: counts say so, votes use the valid ones", async () => {
    const { key } = await newTenant();
    const good1 = await fake({ answers: [{ contains: "Q2", content: verdict("REJECT") }], text: verdict("KEEP") });
    const good2 = await fake({ text: verdict("KEEP", 0.6) });
    const down = await fake({ faults: [{ respond: { status: 503 } }] });
    const prose = await fake({ text: "I think this one is fine, honestly." });
    const slow = await fake({ faults: [{ respond: { hang: true } }] });
    const run = await waitForRun(
      key,
      (
        await startJudge(key, {
          items: [
            { id: "q1", query: "Q1" },
            { id: "q2", query: "Q2" },
          ],
          critics: [
            { name: "good1", model: good1, provider: endpoint() },
            { name: "good2", model: good2, provider: endpoint() },
            { name: "down", model: down, provider: endpoint() },
            { name: "prose", model: prose, provider: endpoint() },
            { name: "slow", model: slow, provider: endpoint(), timeout_s: 0.5 },
          ],
          concurrency: 10,
        })
      ).id,
      60_000,
    );
    expect(run.status).toBe("succeeded");
    expect(run.progress).toEqual({ done: 4, failed: 6, total: 10 });
    const r = run.result;
    expect(r.counts).toEqual({
      items: 2,
      verdicts: 10,
      valid: 4,
      errors: 4,
      parse_failures: 2,
      off_vocabulary: 0,
      missing: 0,
    });
    expect(r.items[0]).toMatchObject({ consensus: "KEEP", agreement_pct: 1, krippendorff_alpha: 1 });
    expect(r.items[1]).toMatchObject({ consensus: "REJECT", agreement_pct: 0.5 }); // tie → first seen
    const byCritic = Object.fromEntries(r.items[0].verdicts.map((v: any) => [v.critic, v]));
    expect(byCritic.down.kind).toBe("ERROR");
    expect(byCritic.down.error).toMatch(/503/);
    expect(byCritic.prose).toMatchObject({ kind: "PARSE_FAIL", error: "parse_fail" });
    expect(byCritic.slow.kind).toBe("ERROR");
    expect(byCritic.slow.error).toMatch(/timed? ?out/i);
    // The errored critics are missing values in the batch alpha, not votes.
    expect(r.batch.alpha.pairable).toBe(4);
    // Every call was retried by the one retry policy before the verdict became ERROR.
    expect((await recordedRequests(env.FAKE_OPENAI_URL, down)).length).toBe(6);
    const samples = (await (await send("GET", `/v1/runs/${run.id}/samples?limit=100`, key)).json()) as { data: any[] };
    expect(samples.data).toHaveLength(10);
    const prosed = samples.data.find((s) => s.output.critic === "prose");
    expect(prosed.status).toBe("failed");
    expect(prosed.output.verdict.raw_response).toBe("I think this one is fine, honestly.");
  });

  it("counts a label outside the vocabulary apart from votes, and weighted voting follows critic weights", async () => {
    const { key } = await newTenant();
    const pass = await fake({ text: verdict("PASS") });
    const keep = await fake({ text: verdict("KEEP", 0.5) });
    const reject = await fake({ text: verdict("REJECT", 0.9) });
    const run = await waitForRun(
      key,
      (
        await startJudge(key, {
          items: [{ id: "only", query: "Q" }],
          critics: [
            { name: "pass", model: pass, provider: endpoint() },
            { name: "keep", model: keep, provider: endpoint(), weight: 3 },
            { name: "reject-1", model: reject, provider: endpoint() },
            { name: "reject-2", model: reject, provider: endpoint() },
          ],
          voting: { strategy: "weighted", use_confidence: false },
        })
      ).id,
    );
    const item = run.result.items[0];
    expect(item.consensus).toBe("KEEP"); // 3 × 1 against 1 + 1
    expect(item.counts.off_vocabulary).toBe(1);
    expect(item.verdicts.find((v: any) => v.critic === "pass").error).toMatch(/^off_vocabulary/);
  });
});

describe("judge requests that cannot run", () => {
  it("names each field at fault", async () => {
    const { key } = await newTenant();
    const sim = { model: "sim:critic" };
    const cases: [Record<string, unknown>, string][] = [
      [{ items: items(["KEEP"]), critics: [{ name: "a", ...sim, prompt: "nope" }] }, "critics.0.prompt"],
      [{ items: items(["KEEP"]), critics: [{ name: "a", ...sim, prompt: "panel-general@9" }] }, "critics.0.prompt"],
      [
        { items: items(["KEEP"]), critics: [{ name: "a", ...sim, prompt: "dissenter", prompt_template: "{query}" }] },
        "critics.0.prompt",
      ],
      [
        {
          items: items(["KEEP"]),
          critics: [
            { name: "a", ...sim },
            { name: "a", ...sim },
          ],
        },
        "critics.1.name",
      ],
      [
        { items: items(["KEEP"]), critics: [{ name: "a", model: "gpt-x", vendor: "openrouter" }] },
        "critics.0.provider.api_key",
      ],
      [{ items: items(["KEEP"]), critics: [{ name: "a", model: "gpt-x" }] }, "critics.0.provider"],
      [{ items: items(["KEEP"]), critics: [{ name: "a", ...sim, provider: endpoint() }] }, "critics.0.provider"],
      [
        { items: items(["KEEP"]), critics: [{ name: "a", ...sim, simulator: { bias: { label: "MAYBE", rate: 1 } } }] },
        "critics.0.simulator.bias.label",
      ],
      [
        { items: items(["KEEP"]), critics: [{ name: "a", ...sim, prompt_template: "Judge {query" }] },
        "critics.0.prompt_template",
      ],
      [{ items: items(["MAYBE"]), critics: [{ name: "a", ...sim }] }, "items.0.expected"],
      [{ items: [...items(["KEEP"]), ...items(["KEEP"])], critics: [{ name: "a", ...sim }] }, "items.1.id"],
      [
        {
          items: items(["KEEP"]),
          critics: [{ name: "a", ...sim }],
          voting: { strategy: "unanimous", priority: ["KEEP"] },
        },
        "voting.priority",
      ],
      [
        { items: items(["KEEP"]), critics: [{ name: "a", ...sim }], voting: { strategy: "plurality" } },
        "voting.strategy",
      ],
      [{ items: items(["KEEP"]), critics: [{ name: "a", ...sim }], labels: ["KEEP", "KEEP"] }, "labels"],
      [{ items: [], critics: [{ name: "a", ...sim }] }, "items"],
      [{ items: items(["KEEP"]), critics: [{ name: "a", ...sim }], contested_threshold: 2 }, "contested_threshold"],
    ];
    for (const [body, path] of cases) {
      const p = await problem(await send("POST", "/v1/judge/runs", key, body), 400);
      expect(
        p.errors?.map((e) => e.path),
        JSON.stringify(body),
      ).toContain(path);
    }
  });

  it("contested items: 404 for another evaluator's run, 409 before the run ends", async () => {
    const { key } = await newTenant();
    const rpl = (await (
      await send("POST", "/v1/rpl/runs", key, { claim: "x is y", model: "sim:rpl", K: 1, R: 1, B: 10 })
    ).json()) as RunJson;
    await problem(await send("GET", `/v1/judge/runs/${rpl.id}/contested`, key), 404);
    const slow = await startJudge(key, {
      items: items(["KEEP"]),
      critics: [{ name: "a", model: "sim:critic", simulator: { latency_ms: 5000 } }],
    });
    await problem(await send("GET", `/v1/judge/runs/${slow.id}/contested`, key), 409);
    await send("POST", `/v1/runs/${slow.id}/cancel`, key);
    expect((await waitForRun(key, slow.id)).status).toBe("canceled");
  });

  it("lists the critic prompt bank", async () => {
    const { key } = await newTenant();
    const bank = (await (await send("GET", "/v1/judge/prompts", key)).json()) as any;
    expect(bank.default).toBe("panel-general@2");
    expect(bank.data.map((p: any) => `${p.name}@${p.version}`)).toEqual(
      expect.arrayContaining(["panel-general@1", "panel-general@2", "strict-reviewer@1", "dissenter@1"]),
    );
  });
});
