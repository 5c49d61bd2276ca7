// reasoning-quality's model-backed LS (a chat model as contradiction checker) and SS (an embeddings
// endpoint), end to end in workerd against the fake OpenAI server, with their failures and fallbacks.
import { describe, expect, it, vi } from "vitest";
import { env } from "cloudflare:workers";
import { recordedRequests, releaseScenario, scenarioStats, type Scenario } from "../support/fake-openai.ts";
import { fakeScenario, newTenant, problem, send, startRq, waitForRun, WAIT, type RunJson } from "./helpers.ts";

const fake = (s: Omit<Scenario, "id">) => fakeScenario(s, "rqb");

const URL_ = () => env.FAKE_OPENAI_URL;
/** For vi.waitFor: the condition decides, so the deadline only has to outlast a busy machine. */
/** Tests that wait for runs: generous, so that a busy machine makes them slower, not red. */
const LONG = 90_000;
const items = { synthetic: { num_reasoning: 3, num_adversarial: 0, num_robustness: 0 } };
// Three steps under the default splitter: two pairs, each a contradiction for the lexical heuristic.
const ANSWER = "The sky is blue. The sky is not blue. So the answer is 4.";

describe("LS through a chat model as contradiction checker", () => {
  it(
    "records the checker's labels per primary trace and scores LS from them; failures fall back as configured",
    async () => {
      const { key } = await newTenant();
      const gen = await fake({ text: ANSWER });
      const checker = await fake({ text: '```json\n{"labels": ["Contradiction", "neutral"]}\n```' });
      const down = await fake({ faults: [{ respond: { status: 503 } }] });
      const prose = await fake({ text: "Both pairs look fine to me." });
      const model = { name: "m", model: gen, provider: { base_url: URL_() } };
      const ls = (model: string, extra: Record<string, unknown> = {}) => ({
        method: "model",
        model,
        provider: { base_url: URL_(), api_key: "sk-checker-key-1234" },
        ...extra,
      });
      const base = { models: [model], datasets: [items], K: 2, P: 0, concurrency: 6 };
      const [ok, fellLexical, fellNeutral, unparsable] = await Promise.all(
        [ls(checker), ls(down), ls(down, { fallback: "neutral" }), ls(prose, { fallback: "none" })].map(async (l) =>
          waitForRun(key, (await startRq(key, { ...base, ls: l })).id, 60_000),
        ),
      );

      for (const run of [ok, fellLexical, fellNeutral, unparsable]) expect(run.status).toBe("succeeded");
      const m = ok.result.models[0];
      // Each trace: one contradiction in two pairs → LS_i = 0.5.
      expect(m.raw_metrics.logical_coherence).toBe(0.5);
      expect(m.extensions).toMatchObject({ ls_method: "model", ls_model: checker, ls_failed_pairs: 0 });
      expect(m.extensions.ls_fallback).toBeUndefined();
      expect(m.backends.ls).toMatchObject({ model: checker, calls: 3, failed_calls: 0, first_error: null });
      const requests = await recordedRequests(URL_(), checker);
      expect(requests.length).toBe(3);
      const body = requests[0].body as { temperature: number; messages: { role: string; content: string }[] };
      expect(body.temperature).toBe(0);
      expect(body.messages[0].role).toBe("system");
      expect(body.messages[1].content).toContain("FIRST: The sky is blue\nSECOND: The sky is not blue");
      expect(body.messages[1].content).toContain("Give 2 labels.");
      expect(requests[0].headers.authorization).toBe("***1234");
      expect(JSON.stringify(ok.config)).not.toContain("sk-checker-key-1234");

      // The checker down (503 on every attempt): LS by the lexical heuristic, which calls both pairs contradictions.
      const l = fellLexical.result.models[0];
      expect(l.raw_metrics.logical_coherence).toBe(0);
      expect(l.extensions.ls_method).toBe("lexical");
      expect(l.extensions.ls_fallback).toEqual({
        from: "model",
        reason: "the contradiction checker failed on 6 of 6 step pairs",
      });
      expect(l.backends.ls.failed_calls).toBe(3);
      expect(l.backends.ls.first_error).toContain("503");
      // Three attempts per call: the one retry policy ran.
      expect((await recordedRequests(URL_(), down)).length).toBe(2 * 3 * 3);

      // fallback "neutral": the original's rule, failed pairs read as neutral, counted.
      const nt = fellNeutral.result.models[0];
      expect(nt.raw_metrics.logical_coherence).toBe(1);
      expect(nt.extensions).toMatchObject({ ls_method: "model", ls_failed_pairs: 6 });

      // An answer without a label list is a failed check; fallback "none" leaves LS out of Q.
      const u = unparsable.result.models[0];
      expect(u.raw_metrics.logical_coherence).toBeNull();
      expect(u.extensions.ls_method).toBe("none");
      expect(u.backends.ls.first_error).toContain("no label list");
    },
    LONG,
  );
});

describe("SS through an embeddings endpoint", () => {
  const sim = { name: "s", model: "sim:reasoner", simulator: { accuracy: 0.5, variation: 1, verbosity: 3 } };
  const base = {
    models: [sim],
    datasets: [{ synthetic: { num_reasoning: 4, num_adversarial: 0, num_robustness: 0 } }],
    K: 3,
    P: 0,
    seed: 7,
    concurrency: 6,
  };
  const ss = (model: string, extra: Record<string, unknown> = {}) => ({
    method: "embeddings",
    model,
    provider: { base_url: URL_(), api_key: "sk-embed-key-5678" },
    batch_size: 4,
    ...extra,
  });

  it(
    "scores SS as cosines of the endpoint's vectors; when it is down, SS falls back as configured and says so",
    async () => {
      const { key } = await newTenant();
      const flat = await fake({ embedding: [1, 2, 3] });
      const down = await fake({ faults: [{ respond: { status: 503 } }] });
      const [jac, emb, fellJaccard, fellNone] = await Promise.all(
        ["jaccard", ss(flat), ss(down), ss(down, { fallback: "none" })].map(async (s) =>
          waitForRun(key, (await startRq(key, { ...base, ss: s })).id, 60_000),
        ),
      );
      for (const run of [jac, emb, fellJaccard, fellNone]) expect(run.status).toBe("succeeded");
      const j = jac.result.models[0];
      // The simulator with variation 1 words every run differently, so Jaccard stays below 1 …
      expect(j.raw_metrics.stability).toBeLessThan(1);
      // … while identical vectors for every text make every pair's cosine 1.
      const e = emb.result.models[0];
      expect(e.raw_metrics.stability).toBe(1);
      expect(e.extensions).toMatchObject({ ss_method: "embeddings", ss_model: flat });
      const requests = await recordedRequests(URL_(), flat);
      expect(requests.length).toBe(e.backends.ss.calls);
      for (const r of requests) {
        const b = r.body as { input: string[]; encoding_format: string };
        expect(b.encoding_format).toBe("float");
        expect(b.input.length).toBeGreaterThan(0);
        expect(b.input.length).toBeLessThanOrEqual(4);
        expect(r.headers.authorization).toBe("***5678");
      }
      expect(requests.reduce((k, r) => k + (r.body as { input: string[] }).input.length, 0)).toBe(e.backends.ss.texts);

      // Down: the same generations (same seed) scored by Jaccard, and the reason given.
      const f = fellJaccard.result.models[0];
      expect(f.raw_metrics.stability).toBe(j.raw_metrics.stability);
      expect(f.extensions.ss_method).toBe("jaccard");
      expect(f.extensions.ss_fallback.from).toBe("embeddings");
      expect(f.extensions.ss_fallback.reason).toContain("503");
      // The first call was tried three times, then the backend gave up.
      expect((await recordedRequests(URL_(), down)).length).toBe(2 * 3);

      const none = fellNone.result.models[0];
      expect(none.raw_metrics.stability).toBeNull();
      expect(none.extensions.ss_method).toBe("none");
      // The CSV leaves the metric empty rather than writing 0.
      const csv = await (await send("GET", `/v1/runs/${fellNone.id}/report.csv`, key)).text();
      const [header, row] = csv.split("\r\n");
      expect(row.split(",")[header.split(",").indexOf("stability")]).toBe("");
    },
    LONG,
  );

  it(
    "counts every sample in the run's progress before the aggregate waits on embeddings",
    async () => {
      // Issue 14, item 3: during an 8 s embeddings aggregate, GET /v1/runs/{id} showed `done: 0` of 12
      // while /samples returned all 12. The aggregate's one embeddings call is held here: the run stays
      // in its aggregate, with every unit ended, for as long as this test reads it.
      const { key } = await newTenant();
      const held = await fake({ embedding: [1, 0], hold_after: 0 });
      const created = await startRq(key, { ...base, ss: ss(held, { batch_size: 64 }) });
      await vi.waitFor(
        async () => expect(await scenarioStats(URL_(), held)).toMatchObject({ received: 1, held: 1 }),
        WAIT,
      );
      // Every sample is readable (at the latest once D1 has them all) …
      await vi.waitFor(async () => {
        const samples = (await (await send("GET", `/v1/runs/${created.id}/samples?limit=100`, key)).json()) as {
          data: unknown[];
        };
        expect(samples.data.length).toBe(created.progress.total);
      }, WAIT);
      // … and the progress counts every one of them while the aggregate still waits.
      const during = (await (await send("GET", `/v1/runs/${created.id}`, key)).json()) as RunJson;
      expect(during.status).toBe("running");
      expect(during.progress.done + during.progress.failed).toBe(during.progress.total);
      await releaseScenario(URL_(), held);
      const run = await waitForRun(key, created.id);
      expect(run.status).toBe("succeeded");
      expect(run.progress).toEqual(during.progress);
      expect(run.result.models[0].extensions.ss_method).toBe("embeddings");
    },
    LONG,
  );

  it(
    "a canceled run makes no embeddings call and says why SS fell back",
    async () => {
      const { key } = await newTenant();
      const emb = await fake({ embedding: [1, 0] });
      // Generations on one lane from the fake endpoint, which answers the first and holds the rest:
      // the run is canceled mid-run with one sample, however slow the machine.
      const gen = await fake({ text: ANSWER, hold_after: 1 });
      const created = await startRq(key, {
        ...base,
        models: [{ name: "g", model: gen, provider: { base_url: URL_() } }],
        concurrency: 1,
        ss: ss(emb),
      });
      await vi.waitFor(
        async () => expect(await scenarioStats(URL_(), gen)).toMatchObject({ received: 2, held: 1 }),
        WAIT,
      );
      expect((await send("POST", `/v1/runs/${created.id}/cancel`, key)).status).toBe(200);
      const run = await waitForRun(key, created.id);
      expect(run.status).toBe("canceled");
      expect(run.progress.done + run.progress.failed).toBe(1);
      const m = run.result.models[0];
      expect(m.extensions.ss_method).toBe("jaccard");
      expect(m.extensions.ss_fallback.reason).toContain("canceled");
      expect(await recordedRequests(URL_(), emb)).toEqual([]);
    },
    LONG,
  );

  it(
    "a cancel while the aggregate waits on embeddings stops the call and ends the run canceled",
    async () => {
      const { key } = await newTenant();
      const slow = await fake({ faults: [{ respond: { hang: true } }] });
      const created = await startRq(key, { ...base, ss: ss(slow) });
      // Every unit has ended and the aggregate is waiting on the embeddings endpoint.
      await vi.waitFor(
        async () => expect(await scenarioStats(URL_(), slow)).toMatchObject({ received: 1, in_flight: 1 }),
        WAIT,
      );
      const res = await send("POST", `/v1/runs/${created.id}/cancel`, key);
      // The cancel returned (it does not wait for the hanging call to end) and stopped the call: the
      // endpoint sees its client give up.
      expect(res.status).toBe(200);
      expect(((await res.json()) as { status: string }).status).toBe("canceled");
      await vi.waitFor(async () => expect((await scenarioStats(URL_(), slow)).in_flight).toBe(0), WAIT);
      const run = await waitForRun(key, created.id);
      expect(run.status).toBe("canceled");
      expect(run.progress.done).toBe(run.progress.total);
      const m = run.result.models[0];
      expect(m.extensions.ss_method).toBe("jaccard");
      expect(m.extensions.ss_fallback.reason).toContain("canceled");
      expect((await recordedRequests(URL_(), slow)).length).toBe(1);
    },
    LONG,
  );
});

describe("model-backed LS and SS offline, and their validation", () => {
  it(
    "runs both through the simulator with no key",
    async () => {
      const { key } = await newTenant();
      const run = await waitForRun(
        key,
        (
          await startRq(key, {
            models: [{ model: "sim:reasoner", simulator: { verbosity: 4 } }],
            datasets: [items],
            K: 2,
            P: 0,
            ls: { method: "model", model: "sim:checker" },
            ss: { method: "embeddings", model: "sim:embed" },
          })
        ).id,
        60_000,
      );
      expect(run.status).toBe("succeeded");
      const m = run.result.models[0];
      expect(m.extensions).toMatchObject({ ls_method: "model", ss_method: "embeddings", ls_failed_pairs: 0 });
      expect(m.backends.ls.calls).toBe(3);
      expect(m.backends.ss.calls).toBeGreaterThan(0);
      expect(m.raw_metrics.stability).toBeGreaterThan(0);
    },
    LONG,
  );

  it("names the backend fields at fault", async () => {
    const { key } = await newTenant();
    const models = [{ model: "sim:a" }];
    const cases: [Record<string, unknown>, string][] = [
      [{ models, datasets: [items], ls: { method: "model", model: "gpt-x" } }, "ls.provider"],
      [
        { models, datasets: [items], ss: { method: "embeddings", model: "sim:e", provider: { base_url: URL_() } } },
        "ss.provider",
      ],
      [{ models, datasets: [items], ls: { method: "model", model: "sim:c", batch_size: 0 } }, "ls.batch_size"],
      [{ models, datasets: [items], ss: { method: "embeddings", model: "sim:e", fallback: "lexical" } }, "ss.fallback"],
    ];
    for (const [body, path] of cases) {
      const p = await problem(await send("POST", "/v1/reasoning-quality/runs", key, body), 400);
      expect(
        p.errors?.map((e) => e.path),
        JSON.stringify(body),
      ).toContain(path);
    }
  });
});
