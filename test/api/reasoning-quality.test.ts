import { describe, expect, it } from "vitest";
import { env } from "cloudflare:workers";
import type { Scenario } from "../support/fake-openai.ts";
import { fakeScenario, newTenant, problem, send, startRq, waitForRun } from "./helpers.ts";

const fake = (s: Omit<Scenario, "id">) => fakeScenario(s, "rq");

const synthetic = { synthetic: { num_reasoning: 6, num_adversarial: 2, num_robustness: 4 } };

describe("POST /v1/reasoning-quality/runs", () => {
  it("scores simulated models: a more accurate, steadier model ranks first", async () => {
    const { key } = await newTenant();
    const run = await waitForRun(
      key,
      (
        await startRq(key, {
          models: [
            { name: "good", model: "sim:reasoner", simulator: { accuracy: 1, variation: 0, verbosity: 2 } },
            { name: "poor", model: "sim:reasoner", simulator: { accuracy: 0, variation: 1, verbosity: 2 } },
          ],
          datasets: [synthetic],
          K: 3,
          P: 3,
          strategies: { cq_only: { correctness: 1 } },
        })
      ).id,
      60_000,
    );
    expect(run.status).toBe("succeeded");
    const [good, poor] = run.result.models;
    // 12 items; each item: primary + 2 runs + usable perturbations (adversarial have none).
    expect(good.metadata.num_samples).toBe(12);
    // The simulator answers every gold right at accuracy 1, so canonical CQ must find all of them correct.
    expect(good.raw_metrics.correctness).toBe(1);
    expect(good.raw_metrics.consistency).toBe(1);
    expect(poor.raw_metrics.correctness).toBeLessThan(0.5);
    expect(good.aggregated.cq_only).toBe(1);
    expect(run.result.rankings.balanced[0]).toMatchObject({ model: "good", rank: 1 });
    expect(good.extensions).toMatchObject({ ls_method: "lexical", ss_method: "jaccard", cq_matcher: "canonical" });
    // Issue "A suite you can trust": the run says which synthetic golds are our wording. Of the first two
    // adversarial items the golds are "false" and "false", the original's own, so none here…
    expect(good.extensions.synthetic_golds).toBeUndefined();
    expect(good.calls.failed).toBe(0);
    expect(good.calls.made).toBe(good.calls.planned);
    expect(run.progress.total).toBe(2 * good.calls.planned);
  });

  it("names the synthetic items whose free-text golds are our wording", async () => {
    const { key } = await newTenant();
    const run = await waitForRun(
      key,
      (
        await startRq(key, {
          models: [{ model: "sim:reasoner" }],
          datasets: [{ synthetic: { num_reasoning: 0, num_adversarial: 6, num_robustness: 0 } }],
          K: 1,
          P: 0,
        })
      ).id,
      60_000,
    );
    // …whereas adversarial items 3, 4 and 5 have sentences for golds (see the synthetic generator).
    // Ids are the run's own, made unique by position.
    expect(run.result.models[0].extensions.synthetic_golds).toEqual({
      own_wording: ["3:adversarial_3", "4:adversarial_4", "5:adversarial_5"],
      note: expect.stringContaining("not comparable with the original"),
    });
  });

  it("does not take an uploaded dataset named 'synthetic' for the generator's", async () => {
    const { key } = await newTenant();
    const upload = await send("POST", "/v1/reasoning-quality/datasets", key, {
      name: "synthetic",
      format: "json",
      items: [
        {
          question: "Is a whale a fish?",
          answer: "no, a whale is a mammal",
          type: "adversarial",
          dataset: "synthetic",
        },
      ],
    });
    expect(upload.status).toBe(201);
    const { id } = (await upload.json()) as { id: string };
    const run = await waitForRun(
      key,
      (await startRq(key, { models: [{ model: "sim:reasoner" }], datasets: [{ id }], K: 1, P: 0 })).id,
      60_000,
    );
    expect(run.status).toBe("succeeded");
    expect(run.result.models[0].extensions.synthetic_golds).toBeUndefined();
  });

  it("a model that fails every call and one that answers empty strings still end the run, counted", async () => {
    const { key } = await newTenant();
    const down = await fake({ faults: [{ respond: { status: 500 } }] });
    const empty = await fake({ text: "" });
    const run = await waitForRun(
      key,
      (
        await startRq(key, {
          models: [
            { name: "down", model: down, provider: { base_url: env.FAKE_OPENAI_URL, api_key: "sk-rq-0000" } },
            { name: "empty", model: empty, provider: { base_url: env.FAKE_OPENAI_URL } },
          ],
          datasets: [{ synthetic: { num_reasoning: 2, num_adversarial: 0, num_robustness: 1 } }],
          K: 2,
          P: 1,
          concurrency: 10,
        })
      ).id,
      60_000,
    );
    expect(run.status).toBe("succeeded");
    const [d, e] = run.result.models;
    expect(d.generation_failed).toBe(3);
    expect(d.calls.failed).toBe(d.calls.planned);
    expect(d.raw_metrics.correctness).toBe(0);
    expect(e.generation_failed).toBe(0);
    expect(e.calls.failed).toBe(0);
    expect(e.raw_metrics.correctness).toBe(0);
  });

  it("names the fields at fault", async () => {
    const { key } = await newTenant();
    const cases: [Record<string, unknown>, string][] = [
      [{ models: [{ model: "gpt-x" }], datasets: [synthetic] }, "models.0.provider"],
      [{ models: [{ model: "sim:a" }, { model: "sim:a" }], datasets: [synthetic] }, "models.1.name"],
      [{ models: [{ model: "sim:a" }], datasets: [{ id: "ds_nope" }] }, "datasets.0.id"],
      [{ models: [{ model: "sim:a" }], datasets: [synthetic], strategies: { bad: { speed: 1 } } }, "strategies.bad"],
      [
        { models: [{ model: "sim:a" }], datasets: [synthetic], strategies: { neg: { correctness: -1 } } },
        "strategies.neg",
      ],
      [{ models: [{ model: "sim:a" }], datasets: [synthetic], ls: "nli" }, "ls"],
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

describe("reasoning-quality datasets", () => {
  it("uploads JSON and CSV, lists, gets, runs on and deletes them", async () => {
    const { key } = await newTenant();
    const json = await send("POST", "/v1/reasoning-quality/datasets", key, {
      name: "arith",
      format: "json",
      items: [
        { question: "What is 2 + 3?", answer: "5", perturbations: ["Add 2 and 3.", "What do 2 and 3 sum to?"] },
        { question: "Is 7 prime?", answer: "yes", dataset: "facts" },
      ],
    });
    expect(json.status).toBe(201);
    const ds = (await json.json()) as any;
    expect(ds).toMatchObject({
      object: "dataset",
      name: "arith",
      format: "json",
      n_items: 2,
      datasets: ["arith", "facts"],
    });
    const csv = (await (
      await send("POST", "/v1/reasoning-quality/datasets", key, {
        name: "tbl",
        format: "csv",
        csv: 'question,answer\r\n"What is 10, halved?",5\r\nIs water wet?,yes\r\n',
      })
    ).json()) as any;
    expect(csv.n_items).toBe(2);
    const got = (await (await send("GET", `/v1/reasoning-quality/datasets/${csv.id}`, key)).json()) as any;
    expect(got.items.map((i: any) => [i.question, i.answer])).toEqual([
      ["What is 10, halved?", "5"],
      ["Is water wet?", "yes"],
    ]);
    const list = (await (await send("GET", "/v1/reasoning-quality/datasets", key)).json()) as any;
    expect(list.data.map((d: any) => d.id).sort()).toEqual([ds.id, csv.id].sort());
    const run = await waitForRun(
      key,
      (
        await startRq(key, {
          models: [{ model: "sim:r", simulator: { accuracy: 1, variation: 0 } }],
          datasets: [{ id: ds.id }],
          K: 2,
          P: 2,
        })
      ).id,
    );
    expect(run.result.models[0].metadata.datasets).toEqual(["arith", "facts"]);
    expect(Object.keys(run.result.models[0].per_dataset)).toEqual(["arith", "facts"]);
    expect(run.result.models[0].raw_metrics.correctness).toBe(1);
    expect((await send("DELETE", `/v1/reasoning-quality/datasets/${ds.id}`, key)).status).toBe(204);
    await problem(await send("GET", `/v1/reasoning-quality/datasets/${ds.id}`, key), 404);
  });

  it("rejects a bad row naming it, and stores nothing", async () => {
    const { key } = await newTenant();
    const p1 = await problem(
      await send("POST", "/v1/reasoning-quality/datasets", key, {
        name: "x",
        format: "json",
        items: [{ question: "q", answer: "1" }, { question: "q2" }],
      }),
      400,
    );
    expect(p1.errors?.[0].path).toBe("items.1.answer");
    const p2 = await problem(
      await send("POST", "/v1/reasoning-quality/datasets", key, {
        name: "x",
        format: "csv",
        csv: "question,solution\nq,1\n",
      }),
      400,
    );
    expect(p2.errors?.[0].path).toMatch(/^csv/);
    expect(p2.errors?.[0].message).toMatch(/answer/);
    const list = (await (await send("GET", "/v1/reasoning-quality/datasets", key)).json()) as any;
    expect(list.data).toEqual([]);
  });

  it("takes a 10,000-row upload and refuses 10,001", async () => {
    const { key } = await newTenant();
    const rows = (k: number) =>
      Array.from({ length: k }, (_, i) => ({
        question: `Question ${i}: what is ${i} + 1? ${"padding ".repeat(20)}`,
        answer: `${i + 1}`,
      }));
    const ok = await send("POST", "/v1/reasoning-quality/datasets", key, {
      name: "big",
      format: "json",
      items: rows(10_000),
    });
    expect(ok.status).toBe(201);
    const big = (await ok.json()) as any;
    expect(big.n_items).toBe(10_000);
    const back = (await (await send("GET", `/v1/reasoning-quality/datasets/${big.id}`, key)).json()) as any;
    expect(back.items).toHaveLength(10_000);
    expect(back.items[9_999].answer).toBe("10000");
    await problem(
      await send("POST", "/v1/reasoning-quality/datasets", key, {
        name: "too-big",
        format: "json",
        items: rows(10_001),
      }),
      422,
    );
  });
});

describe("reasoning-quality reports", () => {
  it("CSV (model × strategy), XLSX workbook and radar SVG of an ended run; 409 before it ends", async () => {
    const { key } = await newTenant();
    const slow = await startRq(key, {
      models: [{ model: "sim:slow", simulator: { latency_ms: 5000 } }],
      datasets: [synthetic],
    });
    await problem(await send("GET", `/v1/runs/${slow.id}/report.csv`, key), 409);
    await send("POST", `/v1/runs/${slow.id}/cancel`, key);
    const run = await waitForRun(
      key,
      (
        await startRq(key, {
          models: [
            { name: 'a, "quoted"', model: "sim:r" },
            { name: "b<&>", model: "sim:r", simulator: { accuracy: 0.3 } },
          ],
          datasets: [synthetic],
          strategies: { mine: { correctness: 1, efficiency: 1 } },
        })
      ).id,
      60_000,
    );
    const strategies = Object.keys(run.result.models[0].aggregated);
    expect(strategies).toContain("mine");

    const csvRes = await send("GET", `/v1/runs/${run.id}/report.csv`, key);
    expect(csvRes.headers.get("content-type")).toMatch(/^text\/csv/);
    const lines = (await csvRes.text()).split("\r\n").filter(Boolean);
    expect(lines[0].split(",").slice(0, 4)).toEqual(["model", "strategy", "q", "rank"]);
    expect(lines).toHaveLength(1 + 2 * strategies.length);
    expect(lines[1].startsWith('"a, ""quoted"""')).toBe(true);

    const xlsx = new Uint8Array(await (await send("GET", `/v1/runs/${run.id}/report.xlsx`, key)).arrayBuffer());
    expect([xlsx[0], xlsx[1]]).toEqual([0x50, 0x4b]); // a zip ("PK")
    const svgRes = await send("GET", `/v1/runs/${run.id}/radar.svg`, key);
    expect(svgRes.headers.get("content-type")).toMatch(/^image\/svg\+xml/);
    const svg = await svgRes.text();
    expect(svg.match(/<polygon[^>]*fill-opacity/g) ?? []).toHaveLength(2);
    expect(svg).toContain("b&lt;&amp;&gt;");
    expect(svg).not.toContain("b<&>");
  });
});
