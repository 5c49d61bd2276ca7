// Dataset parsers (spec reasoning-quality.md §9.1–§9.3, §9.5). Sampling order is checked against every reference
// shuffle in $REFERENCE_DIR/reasoning-quality/synthetic_vectors.json (each seed's shuffle_range_<n> streams and
// mmlu_like_sequence, read losslessly); everything else uses small inputs whose expected values follow from the
// spec, as the comments explain.
import { describe, expect, it } from "vitest";
import {
  extractGsm8kAnswer,
  formatMmluQuestion,
  isDatasetFieldError,
  loadGsm8k,
  loadMmlu,
  loadStrategyQa,
  MMLU_SUBJECTS,
  normalizePerturbations,
  parseCsv,
  parseCsvDataset,
  parseCustomJson,
  sampleIndices,
  strategyQaAnswer,
} from "../../../src/engines/reasoning-quality/datasets.ts";
import { itEachCase } from "../../support/reference.ts";
import { describeRq, expectPy, vectorFile } from "./support.ts";

type MmluLike = { subject_sizes: number[]; per_subject: number; final_shuffle_of_collected_pairs: [number, number][] };

/** Runs fn and returns what it threw, so a test can check the class, the message and `.field`. */
function thrown(fn: () => unknown): Error {
  try {
    fn();
  } catch (e) {
    return e as Error;
  }
  throw new Error("expected an error");
}

describe("parseCsv (RFC 4180)", () => {
  it("splits plain fields and records on LF, CRLF and a lone CR", () => {
    expect(parseCsv("a,b\n1,2\r\n3,4\r5,6")).toEqual([
      { fields: ["a", "b"], line: 1 },
      { fields: ["1", "2"], line: 2 },
      { fields: ["3", "4"], line: 3 },
      { fields: ["5", "6"], line: 4 },
    ]);
  });

  it("reads quoted fields with commas, doubled quotes and line breaks, and counts lines inside them", () => {
    const text = 'q,a\r\n"x, y","say ""hi"""\r\n"two\r\nlines",""\r\nlast,1\r\n';
    expect(parseCsv(text)).toEqual([
      { fields: ["q", "a"], line: 1 },
      { fields: ["x, y", 'say "hi"'], line: 2 },
      { fields: ["two\r\nlines", ""], line: 3 },
      { fields: ["last", "1"], line: 5 },
    ]);
  });

  it("drops a BOM, keeps empty fields and does not open a record after the final line break", () => {
    expect(parseCsv("\uFEFFa,,\n")).toEqual([{ fields: ["a", "", ""], line: 1 }]);
    expect(parseCsv("")).toEqual([]);
    expect(parseCsv('""')).toEqual([{ fields: [""], line: 1 }]);
  });

  it("rejects malformed quoting with the line number", () => {
    expect(thrown(() => parseCsv('a,b\n1,"open\n\n'))).toMatchObject({ name: "RangeError", field: "csv line 2" });
    expect(thrown(() => parseCsv('a,b\n1,2\nx"y,3')).message).toMatch(/^csv line 3: a quote inside an unquoted field/);
    expect(thrown(() => parseCsv('"a"b,c')).message).toMatch(/^csv line 1: unexpected character after a closing quote/);
  });
});

describe("parseCsvDataset (§9.5)", () => {
  it("reads question and answer only, numbers rows q0000…, strips cells and skips blank lines", () => {
    const text = 'id,question,answer,notes\r\n7, What is 2+2? ,4,x\r\n\r\n8,"Is it, really?",yes,\r\n';
    expect(parseCsvDataset(text, { name: "mine" })).toEqual([
      { id: "q0000", question: "What is 2+2?", answer: "4", type: "reasoning", dataset: "mine" },
      { id: "q0001", question: "Is it, really?", answer: "yes", type: "reasoning", dataset: "mine" },
    ]);
  });

  it("names the missing column, the row and its line", () => {
    expect(thrown(() => parseCsvDataset("question,gold\nq,1\n")).message).toMatch(
      /^csv header: missing column "answer"/,
    );
    const e = thrown(() => parseCsvDataset("question,answer\nq1,1\nq2,  \n"));
    expect(e).toBeInstanceOf(RangeError);
    expect(e.message).toBe("rows[1].answer: required (csv line 3)");
    expect(isDatasetFieldError(e) && e.field).toBe("rows[1].answer");
    expect(thrown(() => parseCsvDataset("question,answer\nq,1,extra\n")).message).toMatch(
      /^rows\[0\]: expected 2 fields like the header, found 3/,
    );
    expect(thrown(() => parseCsvDataset("question,answer\n")).message).toMatch(/^csv: no data rows/);
    expect(thrown(() => parseCsvDataset("question,answer,answer\nq,1,2\n")).message).toMatch(
      /duplicate column "answer"/,
    );
  });

  it("ignores a perturbations column unless asked, then reads a JSON array or |-separated values", () => {
    const text = 'question,answer,perturbations\nq1,1,"[""p1"",""p2""]"\nq2,2,a | b\nq3,3,\n';
    expect(parseCsvDataset(text).every((x) => x.perturbations === undefined)).toBe(true);
    expect(parseCsvDataset(text, { perturbationsColumn: true }).map((x) => x.perturbations)).toEqual([
      ["p1", "p2"],
      ["a", "b"],
      undefined,
    ]);
    expect(
      thrown(() => parseCsvDataset('question,answer,perturbations\nq,1,"[1]"\n', { perturbationsColumn: true }))
        .message,
    ).toMatch(/^rows\[0\]\.perturbations\[0\]: must be a string/);
  });
});

describe("parseCustomJson (§9.5)", () => {
  it("keeps given fields, defaults ids to q<index> and tags the dataset name", () => {
    const input = [
      { question: "2+2?", answer: "4", perturbations: ["two plus two?"], difficulty: "easy" },
      { id: "x", question: "Sky blue?", answer: "yes", type: "yn", dataset: "other", question_id: 17 },
    ];
    expect(parseCustomJson(input, { name: "custom" })).toStrictEqual([
      {
        id: "q0",
        question: "2+2?",
        answer: "4",
        perturbations: ["two plus two?"],
        difficulty: "easy",
        dataset: "custom",
      },
      { id: "x", question: "Sky blue?", answer: "yes", type: "yn", dataset: "other", question_id: "17" },
    ]);
  });

  it("parses JSON text (with a BOM) and reports invalid JSON", () => {
    expect(parseCustomJson('\uFEFF[{"question":"q","answer":"a"}]')).toEqual([
      { id: "q0", question: "q", answer: "a" },
    ]);
    expect(thrown(() => parseCustomJson("[{"))).toMatchObject({ name: "RangeError", field: "items" });
  });

  it("names the offending item and field", () => {
    const ok = { question: "q", answer: "a" };
    expect(thrown(() => parseCustomJson([ok, ok, ok, { question: "q" }])).message).toBe("items[3].answer: required");
    expect(thrown(() => parseCustomJson([{ question: "q", answer: 42 }])).message).toMatch(
      /^items\[0\]\.answer: must be a string \(give numbers as strings/,
    );
    expect(thrown(() => parseCustomJson([{ question: " ", answer: "a" }])).message).toMatch(
      /^items\[0\]\.question: required/,
    );
    expect(thrown(() => parseCustomJson([{ ...ok, perturbations: "p" }])).message).toBe(
      "items[0].perturbations: must be an array of strings",
    );
    expect(thrown(() => parseCustomJson([{ ...ok, perturbations: ["p", null] }])).message).toMatch(
      /^items\[0\]\.perturbations\[1\]: must be a string/,
    );
    expect(thrown(() => parseCustomJson([ok, "nope"])).message).toMatch(/^items\[1\]: must be an object/);
    expect(thrown(() => parseCustomJson({ items: [ok] }))).toBeInstanceOf(TypeError);
    expect(thrown(() => parseCustomJson([]))).toBeInstanceOf(RangeError);
    expect(thrown(() => parseCustomJson([ok], { path: "datasets[0].items", numSamples: -1 })).message).toMatch(
      /^num_samples:/,
    );
    expect(thrown(() => parseCustomJson([{ ...ok, type: 3 }], { path: "body.items" })).message).toMatch(
      /^body\.items\[0\]\.type: must be a string/,
    );
  });

  // A default id can collide with an explicit one: q1 is the default of the item at index 1.
  it("rejects duplicate ids, including a default one", () => {
    const e = thrown(() =>
      parseCustomJson([
        { id: "q1", question: "a", answer: "1" },
        { question: "b", answer: "2" },
      ]),
    );
    expect(e.message).toBe('items[1].id: duplicate id "q1" (also items[0])');
  });
});

describe("GSM8K (§9.1)", () => {
  it("extracts the number after ####, removing every comma", () => {
    expect(extractGsm8kAnswer("He pays 3*400 = 1200.\n#### 1,200")).toBe("1200");
    expect(extractGsm8kAnswer("#### 1,234,567")).toBe("1234567");
    expect(extractGsm8kAnswer("so -3 left\n####   -3")).toBe("-3");
    expect(extractGsm8kAnswer("####\u00a012.50")).toBe("12.50"); // Python \s includes NBSP
    expect(extractGsm8kAnswer("#### \u0663")).toBe("\u0663"); // Python \d includes Arabic-Indic digits
  });

  it("falls back to the last number, then to the stripped text", () => {
    expect(extractGsm8kAnswer("5 apples and 12.5 kg")).toBe("12.5");
    expect(extractGsm8kAnswer("Total: 1,000 or 2,500")).toBe("2500");
    // [\d,]+ also matches a lone comma, as in the original, so the "last number" is "," → "".
    expect(extractGsm8kAnswer("It is 5, I think, yes")).toBe("");
    expect(extractGsm8kAnswer("  no digits here \n")).toBe("no digits here");
  });

  const rows = (n: number) =>
    Array.from({ length: n }, (_, i) => ({ question: ` Q${i}? `, answer: `work\n#### ${i}` }));

  it("builds items with ids, stripped question, gold, full solution and empty perturbation slots", () => {
    const [item] = loadGsm8k(rows(1), { numSamples: 1 });
    expect(item).toStrictEqual({
      id: "gsm8k_0000",
      question: "Q0?",
      answer: "0",
      full_solution: "work\n#### 0",
      type: "reasoning",
      dataset: "gsm8k",
      perturbations: ["", "", ""],
    });
  });

  it("passes perturbations through the fixed 3-slot rule", () => {
    const [item] = loadGsm8k(rows(1), { numSamples: 1, perturb: (q) => [` ${q}`, `Restated: ${q}`] });
    // Slot 1 equals the question after stripping → ""; slot 3 missing → "".
    expect(item.perturbations).toEqual(["", "Restated: Q0?", ""]);
  });

  it("names a bad row", () => {
    expect(thrown(() => loadGsm8k([{ question: "q", answer: "#### 1" }, { question: "q" }])).message).toBe(
      "rows[1].answer: required",
    );
    expect(thrown(() => loadGsm8k([{ question: 1, answer: "#### 1" }])).message).toMatch(
      /^rows\[0\]\.question: must be a string/,
    );
  });
});

describe("StrategyQA (§9.3)", () => {
  it("maps golds to yes/no", () => {
    expect([true, false, "Yes", " no ", "TRUE", "false", "1", 0, 1].map((v) => strategyQaAnswer(v))).toEqual([
      "yes",
      "no",
      "yes",
      "no",
      "yes",
      "no",
      "yes",
      "no",
      "yes",
    ]);
    expect(thrown(() => strategyQaAnswer("maybe", "rows[4].answer")).message).toMatch(
      /^rows\[4\]\.answer: must be yes\/no/,
    );
  });

  it("builds items and falls back to a `gold` column", () => {
    expect(loadStrategyQa([{ question: " Q? ", gold: "True" }], { numSamples: 1 })).toStrictEqual([
      {
        id: "strategyqa_0000",
        question: "Q?",
        answer: "yes",
        facts: [],
        type: "reasoning",
        dataset: "strategyqa",
        perturbations: ["", "", ""],
      },
    ]);
    expect(thrown(() => loadStrategyQa([{ question: "Q?" }])).message).toBe("rows[0].answer: required");
  });
});

describe("MMLU (§9.2)", () => {
  it("formats the question, one `<Letter>. <choice>` line per option and a closing instruction", () => {
    const lines = formatMmluQuestion("Which is prime?", ["4", "6", "7", "9"]).split("\n");
    expect(lines.slice(0, 5)).toEqual(["Which is prime?", "A. 4", "B. 6", "C. 7", "D. 9"]);
    expect(lines.length).toBe(6);
    expect(lines[5]).toMatch(/A, B, C,? or D/);
  });

  const rowsFor = (subject: number, size: number) =>
    Array.from({ length: size }, (_, i) => ({
      question: `${subject}:${i}`,
      choices: ["w", "x", "y", "z"],
      answer: i % 4,
    }));

  it("builds the item: formatted prompt, letter gold, raw question, choices, subject", () => {
    const [item] = loadMmlu(
      { formal_logic: [{ question: "Q", choices: ["a", "b", "c"], answer: 2 }] },
      { numSamples: 9 },
    );
    expect(item).toStrictEqual({
      id: "mmlu_0000",
      question: formatMmluQuestion("Q", ["a", "b", "c"]),
      answer: "C",
      raw_question: "Q",
      choices: ["a", "b", "c"],
      subject: "formal_logic",
      type: "reasoning",
      dataset: "mmlu",
      perturbations: ["", "", ""],
    });
  });

  // A subject that did not load still counts in per_subject = floor(num_samples / 9), so 18 samples take 2 per
  // subject even when only one subject is present.
  it("skips absent subjects without changing per_subject", () => {
    const items = loadMmlu({ philosophy: rowsFor(8, 10) }, { numSamples: 18 });
    expect(items.length).toBe(2);
    expect(new Set(items.map((x) => x.subject))).toEqual(new Set(["philosophy"]));
  });

  it("re-formats perturbed stems with the choices and leaves empty slots empty", () => {
    const [item] = loadMmlu(
      { formal_logic: [{ question: "Q", choices: ["a", "b"], answer: "1" }] },
      { numSamples: 9, perturb: () => ["Q reworded"] },
    );
    expect(item.answer).toBe("B");
    expect(item.perturbations).toEqual([formatMmluQuestion("Q reworded", ["a", "b"]), "", ""]);
  });

  it("names a bad row by subject and index", () => {
    const e = thrown(() =>
      loadMmlu({ formal_logic: [{ question: "Q", choices: ["a", "b"], answer: 3 }] }, { numSamples: 9 }),
    );
    expect(e).toBeInstanceOf(RangeError);
    expect(e.message).toMatch(/^formal_logic\[0\]\.answer: index 3 is outside the 2 choices/);
    expect(thrown(() => loadMmlu({ formal_logic: [{ question: "Q", choices: "ab", answer: 0 }] })).message).toMatch(
      /^formal_logic\[0\]\.choices: must be an array/,
    );
    expect(thrown(() => loadMmlu({}, { subjects: [] }))).toBeInstanceOf(RangeError);
  });
});

describe("shared helpers", () => {
  it("normalizePerturbations keeps exactly n slots and blanks empty or unchanged ones", () => {
    expect(normalizePerturbations("Q?", undefined)).toEqual(["", "", ""]);
    expect(normalizePerturbations("Q?", ["a", "Q? ", "b", "c"])).toEqual(["a", "", "b"]);
    expect(normalizePerturbations("Q?", ["a"], 2)).toEqual(["a", ""]);
  });
});

describeRq("dataset sampling against the reference shuffles", ["synthetic_vectors.json"], (ref) => {
  const file = vectorFile(ref, "synthetic_vectors.json");
  const rng: Record<string, Record<string, unknown> & { mmlu_like_sequence?: MmluLike }> = file.value.rng;
  const SHUFFLE = /^shuffle_range_(\d+)$/;
  /** Every shuffle(list(range(n))) stream of every seed: the order (input side) and its lossless form. */
  const shuffles = Object.keys(rng).flatMap((seed) =>
    Object.keys(rng[seed])
      .filter((k) => SHUFFLE.test(k))
      .map((k) => ({
        seed,
        n: Number(SHUFFLE.exec(k)![1]),
        order: rng[seed][k] as number[],
        exact: file.exact.rng[seed][k],
      })),
  );
  const name = (what: string) => (c: { seed: string; n: number }) => `seed ${c.seed}, n = ${c.n}: ${what}`;
  const none = "shuffle_range_<n> stream under rng";

  // §9.5 [D]: num_samples keeps the first k after random.Random(seed).shuffle of the indices.
  itEachCase(shuffles, name("custom JSON num_samples takes the first k of shuffle(range(len))"), none, (c) => {
    const k = Math.min(4, c.n);
    const items = Array.from({ length: c.n }, (_, i) => ({ question: `question ${i}`, answer: String(i) }));
    const picked = parseCustomJson(items, { numSamples: k, seed: BigInt(c.seed) }).map((x) => x.id);
    expect(picked).toEqual(c.order.slice(0, k).map((i) => `q${i}`));
  });

  itEachCase(shuffles, name("GSM8K samples in the order of shuffle(range(n)), 250 by default"), none, (c) => {
    const rows = Array.from({ length: c.n }, (_, i) => ({ question: ` Q${i}? `, answer: `work\n#### ${i}` }));
    const all = loadGsm8k(rows, { seed: BigInt(c.seed), numSamples: c.n });
    expectPy(
      all.map((x) => Number(x.answer)),
      c.exact,
      "order",
      { numbers: "int" },
    );
    const first = loadGsm8k(rows, { seed: BigInt(c.seed) });
    expect(first.length).toBe(Math.min(250, c.n)); // default num_samples
    expect(first.map((x) => x.answer)).toEqual(all.slice(0, 250).map((x) => x.answer));
  });

  itEachCase(shuffles, name("StrategyQA samples in the order of shuffle(range(n))"), none, (c) => {
    const rows = Array.from({ length: c.n }, (_, i) => ({
      question: `Q${i}?`,
      answer: i % 2 === 0,
      facts: [`fact ${i}`],
    }));
    const all = loadStrategyQa(rows, { seed: BigInt(c.seed), numSamples: c.n });
    expectPy(
      all.map((x) => Number((x.question as string).slice(1, -1))),
      c.exact,
      "order",
      { numbers: "int" },
    );
    expect(all.map((x) => x.answer)).toEqual(c.order.map((i) => (i % 2 === 0 ? "yes" : "no")));
  });

  itEachCase(shuffles, name("sampleIndices is shuffle(range(n))[:k]"), none, (c) => {
    const k = Math.min(7, c.n);
    expect(sampleIndices(c.n, k, BigInt(c.seed))).toEqual(c.order.slice(0, k));
  });

  const mmlu = Object.keys(rng).filter((seed) => rng[seed].mmlu_like_sequence !== undefined);
  const rowsFor = (subject: number, size: number) =>
    Array.from({ length: size }, (_, i) => ({
      question: `${subject}:${i}`,
      choices: ["w", "x", "y", "z"],
      answer: i % 4,
    }));
  itEachCase(
    mmlu,
    (seed) => `seed ${seed}: MMLU per-subject shuffles then a final shuffle, as the reference call pattern`,
    "mmlu_like_sequence under rng",
    (seed) => {
      const m = rng[seed].mmlu_like_sequence!;
      expect(m.subject_sizes.length).toBe(MMLU_SUBJECTS.length);
      const bySubject = Object.fromEntries(MMLU_SUBJECTS.map((s, k) => [s, rowsFor(k, m.subject_sizes[k])]));
      const numSamples = m.per_subject * MMLU_SUBJECTS.length; // per_subject = floor(num_samples / 9)
      const items = loadMmlu(bySubject, { seed: BigInt(seed), numSamples });
      expectPy(
        items.map((x) => (x.raw_question as string).split(":").map(Number)),
        file.exact.rng[seed].mmlu_like_sequence.final_shuffle_of_collected_pairs,
        "final_shuffle_of_collected_pairs",
        { numbers: "int" },
      );
      expect(items.map((x) => x.subject)).toEqual(m.final_shuffle_of_collected_pairs.map(([k]) => MMLU_SUBJECTS[k]));
      expect(items[0].id).toBe("mmlu_0000");
      expect(items[items.length - 1].id).toBe(`mmlu_${String(numSamples - 1).padStart(4, "0")}`);
    },
  );
});
