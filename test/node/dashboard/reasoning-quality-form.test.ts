// Issue 17: the reasoning-quality "New run" form's data (dashboard/src/evaluators/reasoning-quality/request.ts): custom
// weights normalised to 1, the presets as the engine holds them, the preview of a dataset file, the
// upload body and the run request. Expected values are worked out by hand from the definitions.
import { describe, expect, it } from "vitest";
import {
  buildRunRequest,
  datasetNameOf,
  defaultModels,
  formatOfFile,
  itemCount,
  METRICS,
  normaliseWeights,
  parseCsvRecords,
  plannedCalls,
  PRESETS,
  previewDataset,
  uploadBody,
  type RqForm,
  type Weights,
} from "../../../dashboard/src/evaluators/reasoning-quality/request.ts";
import { PRESETS as ENGINE_PRESETS, METRIC_KEYS, parseCsv } from "../../../src/engines/reasoning-quality/index.ts";

const weights = (cq: number, cs: number, rs: number, ls: number, es: number, ss: number): Weights => ({
  correctness: cq,
  consistency: cs,
  robustness: rs,
  logical_coherence: ls,
  efficiency: es,
  stability: ss,
});

describe("normaliseWeights", () => {
  it("divides each weight by their sum", () => {
    // 0.9 + 0.3 + 0 + 0.15 + 0.3 + 0 = 1.65 = 11 × 0.15: the weights are 6, 2, 0, 1, 2, 0 elevenths.
    const n = normaliseWeights(weights(0.9, 0.3, 0, 0.15, 0.3, 0))!;
    const expected = weights(6 / 11, 2 / 11, 0, 1 / 11, 2 / 11, 0);
    for (const m of METRICS) expect(n[m.key]).toBeCloseTo(expected[m.key], 15);
    expect(Object.values(n).reduce((a, b) => a + b, 0)).toBeCloseTo(1, 15);
  });

  it("keeps weights that already sum to 1, and spreads equal weights evenly", () => {
    expect(normaliseWeights(weights(0.5, 0.1, 0.15, 0.15, 0.05, 0.05))).toEqual(
      weights(0.5, 0.1, 0.15, 0.15, 0.05, 0.05),
    );
    const even = normaliseWeights(weights(2, 2, 2, 2, 2, 2))!;
    for (const m of METRICS) expect(even[m.key]).toBe(1 / 6);
  });

  it("has nothing to normalise when no weight is positive, or one is negative or not a number", () => {
    expect(normaliseWeights(weights(0, 0, 0, 0, 0, 0))).toBeNull();
    expect(normaliseWeights(weights(1, -0.5, 0, 0, 0, 0))).toBeNull();
    expect(normaliseWeights(weights(1, Number.NaN, 0, 0, 0, 0))).toBeNull();
  });
});

describe("the metrics and presets", () => {
  it("lists the metrics in the API's order", () => {
    expect(METRICS.map((m) => m.key)).toEqual([...METRIC_KEYS]);
  });

  it("shows the engine's preset tables, strategy for strategy", () => {
    for (const name of ["paper-v8", "1.1.4"] as const) {
      expect(Object.keys(PRESETS[name].strategies)).toEqual(Object.keys(ENGINE_PRESETS[name]));
      for (const [s, w] of Object.entries(ENGINE_PRESETS[name])) {
        for (const k of METRIC_KEYS) expect(PRESETS[name].strategies[s][k]).toBe(w[k]);
      }
    }
  });
});

describe("parseCsvRecords", () => {
  it("reads quoted fields with commas, doubled quotes and line breaks; CRLF, LF and a BOM", () => {
    const text = '\uFEFFquestion,answer\r\n"Which is larger, 7 or 9?",9\n"She said ""no"".",no\n"two\nlines",x';
    expect(parseCsvRecords(text)).toEqual([
      ["question", "answer"],
      ["Which is larger, 7 or 9?", "9"],
      ['She said "no".', "no"],
      ["two\nlines", "x"],
    ]);
  });

  it("opens no record after a final line break, but keeps a last empty quoted field", () => {
    expect(parseCsvRecords("a,b\n1,2\n")).toEqual([
      ["a", "b"],
      ["1", "2"],
    ]);
    expect(parseCsvRecords('a\n""')).toEqual([["a"], [""]]);
    expect(parseCsvRecords("")).toEqual([]);
  });

  it("reads well-formed files as the API's parser does", () => {
    const files = [
      'q,a\n"x, y",1\r\n"say ""hi""",2\n',
      'question,answer,perturbations\nWhat is 2+2?,4,"[""2 plus 2?""]"\n\nq2,5,\n',
      "a\rb\rc",
    ];
    for (const f of files) expect(parseCsvRecords(f)).toEqual(parseCsv(f).map((r) => r.fields));
  });
});

describe("previewDataset", () => {
  it("shows a CSV's header, its first rows and how many rows it has (blank lines skipped)", () => {
    const rows = Array.from({ length: 7 }, (_, i) => `What is ${i} + 1?,${i + 1}`);
    const p = previewDataset(["question,answer", ...rows.slice(0, 3), "", ...rows.slice(3)].join("\n") + "\n", "csv");
    expect(p.columns).toEqual(["question", "answer"]);
    expect(p.count).toBe(7);
    expect(p.rows).toEqual([
      ["What is 0 + 1?", "1"],
      ["What is 1 + 1?", "2"],
      ["What is 2 + 1?", "3"],
      ["What is 3 + 1?", "4"],
      ["What is 4 + 1?", "5"],
    ]);
  });

  it("shows JSON items with the columns they use, perturbations as a count", () => {
    const items = [
      { question: "What is 2 + 3?", answer: "5", perturbations: ["Add 2 and 3.", "Sum of 2 and 3?"] },
      { question: "Capital of France?", answer: "Paris", type: "fact" },
    ];
    const p = previewDataset(JSON.stringify(items), "json");
    expect(p.count).toBe(2);
    expect(p.columns).toEqual(["question", "answer", "type", "perturbations"]);
    expect(p.rows).toEqual([
      ["What is 2 + 3?", "5", "", "2"],
      ["Capital of France?", "Paris", "fact", ""],
    ]);
  });

  it("counts MMLU rows over all subjects, and shows benchmark rows as they are", () => {
    const mmlu = {
      algebra: [{ question: "1+1?", choices: ["1", "2"], answer: 1 }],
      history: [
        { question: "Year?", choices: ["a", "b"], answer: 0 },
        { question: "Who?", choices: ["c", "d"], answer: 1 },
      ],
    };
    const p = previewDataset(JSON.stringify(mmlu), "mmlu");
    expect(p.count).toBe(3);
    expect(p.rows[0]).toEqual(["algebra", "1+1?", '["1","2"]', "1"]);
    const s = previewDataset(JSON.stringify([{ question: "Is ice cold?", answer: true }]), "strategyqa");
    expect(s).toMatchObject({ columns: ["question", "answer"], rows: [["Is ice cold?", "true"]], count: 1 });
  });

  it("says why a file cannot be read as its format", () => {
    expect(() => previewDataset("{not json", "json")).toThrow(/Not valid JSON/);
    expect(() => previewDataset('{"question": "x"}', "json")).toThrow(/JSON array of items/);
    expect(() => previewDataset("[]", "mmlu")).toThrow(/subject/);
    expect(() => previewDataset("\n\n", "csv")).toThrow(/empty/);
  });
});

describe("the upload body and file names", () => {
  it("sends CSV as text and JSON formats parsed", () => {
    expect(uploadBody("mine", "csv", "question,answer\nx,1\n")).toEqual({
      name: "mine",
      format: "csv",
      csv: "question,answer\nx,1\n",
    });
    expect(uploadBody("mine", "csv", "q", { perturbationsColumn: true })).toMatchObject({ perturbations_column: true });
    expect(uploadBody("mine", "json", '[{"question":"x","answer":"1"}]')).toEqual({
      name: "mine",
      format: "json",
      items: [{ question: "x", answer: "1" }],
    });
    expect(uploadBody("g", "gsm8k", '[{"question":"x","answer":"#### 1"}]')).toEqual({
      name: "g",
      format: "gsm8k",
      rows: [{ question: "x", answer: "#### 1" }],
    });
  });

  it("takes the format and the dataset name from the file name", () => {
    expect(formatOfFile("questions.CSV")).toBe("csv");
    expect(formatOfFile("items.json")).toBe("json");
    expect(datasetNameOf("C:\\data\\clinical cases.json")).toBe("clinical cases");
    expect(datasetNameOf(".csv")).toBe("upload");
    expect(datasetNameOf("x".repeat(150) + ".csv")).toHaveLength(100);
  });
});

describe("buildRunRequest", () => {
  const base = (): RqForm => ({
    models: defaultModels(),
    dataset: { kind: "uploaded", id: "ds_abc", nItems: 4, numSamples: null },
    K: 2,
    P: 1,
    preset: "paper-v8",
    custom: null,
    matcher: "canonical",
    ls: "lexical",
    ss: "jaccard",
    seed: 0,
    concurrency: 5,
  });

  it("sends the ticked simulator models, the uploaded dataset, K, P and the preset", () => {
    const form = base();
    form.models[2].enabled = true; // careful (ticked at first) and quick
    const { body, problems } = buildRunRequest(form);
    expect(problems).toEqual([]);
    expect(body).toEqual({
      models: [
        { name: "careful", model: "sim:reasoner", simulator: { accuracy: 0.9, verbosity: 6, variation: 0.2 } },
        { name: "quick", model: "sim:reasoner", simulator: { accuracy: 0.6, verbosity: 1, variation: 0.5 } },
      ],
      datasets: [{ id: "ds_abc" }],
      K: 2,
      P: 1,
      matcher: "canonical",
      ls: "lexical",
      ss: "jaccard",
      preset: "paper-v8",
      seed: 0,
      concurrency: 5,
    });
  });

  it("sends custom weights normalised to 1 under their name", () => {
    const form = { ...base(), custom: { name: " mine ", weights: weights(3, 1, 0, 0, 1, 0) } };
    const { body } = buildRunRequest(form);
    expect(body!.strategies).toEqual({ mine: weights(0.6, 0.2, 0, 0, 0.2, 0) });
  });

  it("sends a model of a saved connection by the connection's name, and the synthetic generator", () => {
    const form: RqForm = {
      ...base(),
      models: [
        {
          key: 9,
          enabled: true,
          name: "gpt",
          kind: "connection",
          connection: "openrouter",
          model: "openai/gpt-4o-mini",
          temperature: 0.7,
        },
      ],
      dataset: { kind: "synthetic", seed: 42, num_reasoning: 20, num_adversarial: 10, num_robustness: 10 },
    };
    const { body } = buildRunRequest(form);
    expect(body!.models).toEqual([
      { name: "gpt", model: "openai/gpt-4o-mini", provider: { connection: "openrouter" }, temperature: 0.7 },
    ]);
    expect(body!.datasets).toEqual([
      { synthetic: { seed: 42, num_reasoning: 20, num_adversarial: 10, num_robustness: 10 } },
    ]);
  });

  it("names what is missing instead of making a request", () => {
    const none = {
      ...base(),
      models: defaultModels().map((m) => ({ ...m, enabled: false })),
      dataset: { kind: "uploaded" as const, id: null, nItems: null, numSamples: null },
    };
    expect(buildRunRequest(none)).toEqual({
      body: null,
      problems: ["Tick at least one model.", "Upload a dataset (or choose the synthetic generator)."],
    });
    const twins = base();
    twins.models[1] = { ...twins.models[1], enabled: true, name: "careful" };
    expect(buildRunRequest(twins).problems).toEqual(["Two ticked models are named “careful”: give each its own name."]);
    expect(buildRunRequest({ ...base(), custom: { name: "c", weights: weights(0, 0, 0, 0, 0, 0) } }).problems).toEqual([
      "Give at least one metric a weight above 0.",
    ]);
    expect(
      buildRunRequest({ ...base(), custom: { name: "balanced", weights: weights(1, 0, 0, 0, 0, 0) } }).problems,
    ).toEqual(["“balanced” is a strategy of the preset: give the custom one another name."]);
    const noModelName: RqForm = {
      ...base(),
      models: [{ key: 1, enabled: true, name: "x", kind: "connection", connection: "c", model: " ", temperature: 0.7 }],
    };
    expect(buildRunRequest(noModelName).problems).toEqual([
      "Model “x” needs a saved connection and the model's name at that endpoint.",
    ]);
  });

  it("counts the planned calls as models × items × (K + P)", () => {
    const form = base();
    form.models[1].enabled = true;
    expect(plannedCalls(form)).toBe(2 * 4 * 3);
    expect(itemCount({ kind: "uploaded", id: "ds", nItems: 40, numSamples: 15 })).toBe(15);
    expect(itemCount({ kind: "uploaded", id: "ds", nItems: 10, numSamples: 15 })).toBe(10);
    expect(
      plannedCalls({
        ...form,
        dataset: { kind: "synthetic", seed: 1, num_reasoning: 20, num_adversarial: 10, num_robustness: 10 },
      }),
    ).toBe(2 * 40 * 3);
    expect(
      plannedCalls({ ...form, dataset: { kind: "uploaded", id: null, nItems: null, numSamples: null } }),
    ).toBeNull();
  });
});
