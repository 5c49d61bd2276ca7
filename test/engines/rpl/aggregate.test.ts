// Frozen-estimator parity (spec rpl.md §9–§11): every line of $REFERENCE_DIR/rpl/aggregate_vectors.jsonl.
// Tolerances are the README's: logit-space values (ell_hat, CI, dist_head, diagnostics, stability basis/IQR)
// use only + − × ÷ and comparisons, so they must match bit for bit (toBe/toEqual, which tell −0 from 0);
// values through exp/log/pow (prob_true_rpl, ci95, ci_width, stability_score, the clipped logits of
// probs_by_template) match to 1e-12 relative. pqs truncates a sum of such values, so it is compared exactly
// on the reference's own inputs, and on ours it may differ only where the sum sits at an integer (README).
// Lines are picked by content: `probs_by_template`, `seed_derivation`, an expected Python error.
import { describe, expect, it } from "vitest";
import { isRawJson, type PyPlain } from "../../../src/engines/python/index.ts";
import {
  aggregateClustered,
  aggregateSamples,
  logit,
  makeBootstrapSeed,
  pqsV1,
  stability,
  type Aggregation,
  type RplSample,
} from "../../../src/engines/rpl/index.ts";
import {
  describeReference,
  expectPythonError,
  itEachCase,
  lossless,
  type RefLine,
  pythonErrorOf,
} from "../../support/reference.ts";

function close(actual: number, expected: number, what: string, rel = 1e-12): void {
  if (Object.is(actual, expected)) return;
  expect(Math.abs(actual - expected), `${what}: ${actual} vs ${expected}`).toBeLessThanOrEqual(
    rel * Math.max(Math.abs(expected), Number.MIN_VALUE),
  );
}

/**
 * A value derived through exp/pow may land on the other side of a threshold than the reference's: then
 * `actual` may differ from `expected` only if the reference's own value is within `tol` of that threshold.
 */
function sameUnlessAtBoundary<T>(actual: T, expected: T, distance: number, tol: number, what: string): void {
  if (actual !== expected)
    expect(
      distance,
      `${what}: ${String(actual)} vs ${String(expected)} although the reference is not at the boundary`,
    ).toBeLessThanOrEqual(tol);
}

/** Python type of a losslessly read JSON number: "int" for an integer lexeme, "float" for one with `.`/`e`. */
function pyNumberType(v: PyPlain | undefined): "int" | "float" | "not a number" {
  if (typeof v === "number") return Number.isInteger(v) ? "int" : "float";
  if (isRawJson(v)) return /^-?\d+$/.test(v.rawJSON) ? "int" : "float";
  return "not a number";
}

/** A losslessly read integer (JSON number of any size, or decimal string) as a decimal string. */
function decimal(v: PyPlain | undefined): string {
  if (typeof v === "string" || (typeof v === "number" && Number.isInteger(v))) return String(v);
  if (isRawJson(v) && /^\d+$/.test(v.rawJSON)) return v.rawJSON;
  throw new TypeError(`not an integer: ${JSON.stringify(v)}`);
}

type Case = RefLine & { py: Record<string, PyPlain>; seed: string };

const label = (r: RefLine): string => `line ${r.line}${r.value.name !== undefined ? ` (${r.value.name})` : ""}`;
const keysOf = (v: any): string[] => (v.by_template as [string, number[]][]).map(([k]) => k);
/** The template hashes the seed was derived from: the by_template keys (README), unless the line lists them. */
const derivationHashes = (v: any): string[] =>
  Array.isArray(v.seed_derivation.template_hashes) ? v.seed_derivation.template_hashes : keysOf(v);

/**
 * Whether the line can be replayed as a whole run through aggregateSamples, which is the harness path: seed
 * derived with center "trimmed", trim 0.2 and the run's B from the valid keys, estimator with trimmed 0.2 and
 * no fixed_m, and a compliance rate that some count of attempted samples gives exactly.
 */
function attemptedFor(v: any): number | null {
  const d = v.seed_derivation;
  if (
    d?.center !== "trimmed" ||
    d.trim !== 0.2 ||
    d.B !== v.B ||
    v.center !== "trimmed" ||
    v.trim !== 0.2 ||
    v.fixed_m != null
  )
    return null;
  const keys = keysOf(v);
  const hashes = derivationHashes(v);
  if (new Set(hashes).size !== new Set(keys).size || !hashes.every((h) => keys.includes(h))) return null;
  const valid = (v.by_template as [string, number[]][]).reduce((n, [, ls]) => n + ls.length, 0);
  if (!(v.rpl_compliance_rate > 0)) return null;
  const attempted = Math.round(valid / v.rpl_compliance_rate);
  return attempted >= valid && valid / attempted === v.rpl_compliance_rate ? attempted : null;
}

describeReference("aggregate vectors", "rpl", ["aggregate_vectors.jsonl"], (ref) => {
  const lines = ref.records("aggregate_vectors.jsonl");
  const cases: Case[] = lines
    .filter((r) => pythonErrorOf(r.value) === null)
    .map((r) => {
      const py = lossless(r.text) as Record<string, PyPlain>;
      return { ...r, py, seed: decimal(py.seed) };
    });
  const errors = lines.filter((r) => pythonErrorOf(r.value) !== null);

  // One estimator run per line, shared by the tests below (B = 5000 runs take a few ms each).
  const runs = new Map<Case, Aggregation>();
  const aggregate = (c: Case): Aggregation => {
    let agg = runs.get(c);
    if (!agg) {
      const v = c.value;
      agg = aggregateClustered(v.by_template, {
        seed: c.seed,
        B: v.B,
        center: v.center,
        trim: v.trim,
        fixedM: v.fixed_m,
      });
      runs.set(c, agg);
    }
    return agg;
  };

  itEachCase(
    cases,
    (c) => `${label(c)}: logit-space estimate, CI, bootstrap head and diagnostics, bit for bit`,
    "aggregation line",
    (c) => {
      const v = c.value;
      const agg = aggregate(c);
      expect(agg.ell_hat).toBe(v.ell_hat);
      expect(agg.ci_logit).toEqual(v.ci_logit);
      expect(agg.ci_logit_raw).toEqual(v.ci_logit_raw_percentiles);
      expect(agg.dist.length).toBe(v.B);
      expect(Array.from(agg.dist.subarray(0, v.dist_head.length))).toEqual(v.dist_head);
      expect(agg.template_means).toEqual(v.stability_basis);
      for (const [k, expected] of Object.entries(v.diagnostics))
        expect(agg.diagnostics[k as keyof typeof agg.diagnostics], `diagnostics.${k}`).toEqual(expected);
      // counts_by_template keeps the by_template insertion order (toEqual ignores key order).
      expect(Object.keys(agg.diagnostics.counts_by_template)).toEqual(Object.keys(v.diagnostics.counts_by_template));
      const { bootstrap_seed, B, center, trim } = agg.diagnostics;
      expect([bootstrap_seed, B, center, trim]).toEqual([c.seed, v.B, v.center, v.trim]);
    },
  );

  itEachCase(
    cases,
    (c) => `${label(c)}: probability-space outputs to 1e-12`,
    "aggregation line",
    (c) => {
      const v = c.value;
      const agg = aggregate(c);
      close(agg.prob_true_rpl, v.prob_true_rpl, "prob_true_rpl");
      close(agg.ci95[0], v.ci95[0], "ci95[0]");
      close(agg.ci95[1], v.ci95[1], "ci95[1]");
      close(agg.ci_width, v.ci_width, "ci_width");
      // is_stable = ci_width <= 0.20 (§9.8).
      sameUnlessAtBoundary(agg.is_stable, v.is_stable, Math.abs(v.ci_width - 0.2), 1e-12, "is_stable");
    },
  );

  itEachCase(
    cases,
    (c) => `${label(c)}: stability IQR (exact), score (1e-12) and band`,
    "aggregation line",
    (c) => {
      const v = c.value;
      const stab = stability(aggregate(c).template_means);
      expect(stab.iqr).toBe(v.stability_iqr_logit);
      close(stab.score, v.stability_score, "stability_score");
      expect(stab.band).toBe(v.stability_band);
    },
  );

  itEachCase(
    cases,
    (c) => `${label(c)}: PQS v1 and gates`,
    "aggregation line",
    (c) => {
      const v = c.value;
      // On the reference's own stability score, width and compliance rate the formula is + − × ÷ and min only: exact.
      const onReference = pqsV1(v.stability_score, v.ci_width, v.rpl_compliance_rate);
      expect([
        onReference.pqs,
        onReference.gate_compliance_ok,
        onReference.gate_stability_ok,
        onReference.gate_precision_ok,
      ]).toEqual([v.pqs, v.gate_compliance_ok, v.gate_stability_ok, v.gate_precision_ok]);

      // On ours, score and width came through exp/pow (1e-12 relative): the truncation or a gate may flip only
      // where the reference sits on the boundary. raw = 100·(0.4·s + 0.4·(1 − min(w, 0.5)/0.5) + 0.2·c) (§11).
      const agg = aggregate(c);
      const ours = pqsV1(stability(agg.template_means).score, agg.ci_width, v.rpl_compliance_rate);
      const raw =
        100 * (0.4 * v.stability_score + 0.4 * (1 - Math.min(v.ci_width, 0.5) / 0.5) + 0.2 * v.rpl_compliance_rate);
      sameUnlessAtBoundary(ours.pqs, v.pqs, Math.abs(raw - Math.round(raw)), 1e-9, "pqs");
      expect(ours.gate_compliance_ok).toBe(v.gate_compliance_ok);
      sameUnlessAtBoundary(
        ours.gate_stability_ok,
        v.gate_stability_ok,
        Math.abs(v.stability_score - 0.25),
        1e-12,
        "gate_stability_ok",
      );
      sameUnlessAtBoundary(
        ours.gate_precision_ok,
        v.gate_precision_ok,
        Math.abs(v.ci_width - 0.3),
        1e-12,
        "gate_precision_ok",
      );
    },
  );

  itEachCase(
    cases.filter((c) => c.value.probs_by_template !== undefined),
    (c) => `${label(c)}: logits are the clipped logits of probs_by_template (1e-12)`,
    "line with probs_by_template",
    ({ value: v }) => {
      const probs: number[][] = v.probs_by_template;
      const logits: number[][] = (v.by_template as [string, number[]][]).map(([, ls]) => ls);
      expect(probs.map((ps) => ps.length)).toEqual(logits.map((ls) => ls.length));
      probs.forEach((ps, i) => ps.forEach((p, j) => close(logit(p), logits[i][j], `logit(${p})`)));
    },
  );

  itEachCase(
    cases.filter((c) => c.value.seed_derivation !== undefined),
    (c) => `${label(c)}: the seed is make_bootstrap_seed of the line's run`,
    "line with seed_derivation",
    async (c) => {
      const d = c.value.seed_derivation;
      const py = c.py.seed_derivation as Record<string, PyPlain>;
      // K, R, B and trim are written into the hashed canonical string with Python str().
      for (const f of ["K", "R", "B"])
        expect(pyNumberType(py[f]), `seed_derivation.${f}: the engine writes an int`).toBe("int");
      expect(pyNumberType(py.trim), "seed_derivation.trim: the engine writes a float").toBe("float");
      const seed = await makeBootstrapSeed({
        claim: d.claim,
        model: d.model,
        promptVersionFull: d.prompt_version,
        K: d.K,
        R: d.R,
        templateHashes: derivationHashes(c.value),
        center: d.center,
        trim: d.trim,
        B: d.B,
      });
      expect(seed.toString()).toBe(c.seed);
    },
  );

  // The harness path: valid sample rows (in key order) plus invalid rows, seed derived from the valid keys.
  // The invalid rows come first and reuse the last key with an outlying logit, so counting them, or letting
  // them fix the key order, would change the result.
  itEachCase(
    cases.filter((c) => attemptedFor(c.value) !== null),
    (c) => `${label(c)}: aggregateSamples reproduces the run from sample rows with a derived seed`,
    "seed_derivation line a whole run could produce (trimmed 0.2, no fixed_m, rate = valid/attempted)",
    async (c) => {
      const v = c.value;
      const d = v.seed_derivation;
      const attempted = attemptedFor(v)!;
      const byTemplate = v.by_template as [string, number[]][];
      const valid: RplSample[] = byTemplate.flatMap(([key, ls]) =>
        ls.map((l) => ({ prompt_sha256: key, valid: true, prob: null, logit: l })),
      );
      const lastKey = byTemplate[byTemplate.length - 1][0];
      const invalid: RplSample[] = Array.from({ length: attempted - valid.length }, () => ({
        prompt_sha256: lastKey,
        valid: false,
        prob: 0.99,
        logit: 5,
      }));
      const run = await aggregateSamples({
        samples: [...invalid, ...valid],
        claim: d.claim,
        model: d.model,
        promptVersionFull: d.prompt_version,
        K: d.K,
        R: d.R,
        B: d.B,
      });
      expect(run.bootstrap_seed).toBe(c.seed);
      expect([run.valid_count, run.attempted]).toEqual([valid.length, attempted]);
      expect(run.rpl_compliance_rate).toBe(v.rpl_compliance_rate);
      expect(run.ell_hat).toBe(v.ell_hat);
      expect(run.ci_logit).toEqual(v.ci_logit);
      expect(run.template_means).toEqual(v.stability_basis);
      expect(Object.keys(run.diagnostics.counts_by_template)).toEqual(Object.keys(v.diagnostics.counts_by_template));
      close(run.prob_true_rpl, v.prob_true_rpl, "prob_true_rpl");
      close(run.ci_width, v.ci_width, "ci_width");
      expect(run.stability_iqr_logit).toBe(v.stability_iqr_logit);
      close(run.stability_score, v.stability_score, "stability_score");
      expect(run.stability_band).toBe(v.stability_band);
      const raw =
        100 * (0.4 * v.stability_score + 0.4 * (1 - Math.min(v.ci_width, 0.5) / 0.5) + 0.2 * v.rpl_compliance_rate);
      sameUnlessAtBoundary(run.pqs, v.pqs, Math.abs(raw - Math.round(raw)), 1e-9, "pqs");
    },
  );

  itEachCase(
    errors,
    (r) => `${label(r)}: raises like Python's ${pythonErrorOf(r.value)}`,
    "line with an expected error",
    (r) => {
      const v = r.value;
      const seed = v.seed === undefined ? 0 : decimal((lossless(r.text) as Record<string, PyPlain>).seed);
      expectPythonError(
        () =>
          aggregateClustered(v.by_template ?? [], { seed, B: v.B, center: v.center, trim: v.trim, fixedM: v.fixed_m }),
        pythonErrorOf(v)!,
      );
    },
  );
});

describe("aggregateSamples", () => {
  it("throws a RangeError naming the reason when fewer than 3 samples are valid", async () => {
    const samples: RplSample[] = [
      { prompt_sha256: "a", valid: true, prob: 0.4 },
      { prompt_sha256: "b", valid: true, prob: 0.6 },
      { prompt_sha256: "c", valid: false, prob: null },
    ];
    await expect(
      aggregateSamples({ samples, claim: "c", model: "m", promptVersionFull: "p", K: 3, R: 1 }),
    ).rejects.toThrow(/at least 3 valid samples.*got 2 of 3/);
    await expect(
      aggregateSamples({ samples, claim: "c", model: "m", promptVersionFull: "p", K: 3, R: 1 }),
    ).rejects.toBeInstanceOf(RangeError);
  });

  it("uses the config seed before the env seed, and the env seed before the derived one", async () => {
    const samples: RplSample[] = [0.2, 0.3, 0.4, 0.5].map((p, i) => ({
      prompt_sha256: `t${i % 2}`,
      valid: true,
      prob: p,
    }));
    const base = { samples, claim: "c", model: "m", promptVersionFull: "p", K: 2, R: 2, B: 50 };
    expect((await aggregateSamples({ ...base, seed: "7", envSeed: "9" })).bootstrap_seed).toBe("7");
    expect((await aggregateSamples({ ...base, envSeed: "9" })).bootstrap_seed).toBe("9");
    const derivedSeed = await makeBootstrapSeed({
      claim: "c",
      model: "m",
      promptVersionFull: "p",
      K: 2,
      R: 2,
      templateHashes: ["t0", "t1"],
      B: 50,
    });
    expect((await aggregateSamples(base)).bootstrap_seed).toBe(derivedSeed.toString());
  });
});

describe("aggregateClustered argument checks", () => {
  it.each([
    ["no templates", [], {}],
    ["an empty template", [["a", []]], {}],
    ["trim 0.5", [["a", [1]]], { trim: 0.5 }],
    ["B = 0", [["a", [1]]], { B: 0 }],
    ["fixedM = 0", [["a", [1]]], { fixedM: 0 }],
    ["a seed of 2^64", [["a", [1]]], { seed: "18446744073709551616" }],
  ])("rejects %s", (_label, byTemplate, opts) => {
    expect(() => aggregateClustered(byTemplate as [string, number[]][], { seed: 1, ...opts })).toThrow(RangeError);
  });
});
