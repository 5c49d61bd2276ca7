// Sampling-plan parity (spec rpl.md §3, §5): every line of $REFERENCE_DIR/rpl/sampler_vectors.jsonl, exact
// (README: "sampler/seed/cache/run_id must match exactly"). The cases are whatever lines the folder holds: a
// plan line (claim, model, prompt_version, T_bank, T, K → outputs) or a `kind: "balanced_only"` line
// (balanced_indices_with_rotation(T, K, offset) called directly). A line that names an expected Python
// exception instead of outputs must make the engine throw the matching error.
import { describe, expect, it } from "vitest";
import {
  balancedIndices,
  imbalanceRatio,
  planSampling,
  plannedCounts,
  replicateIndices,
} from "../../../src/engines/rpl/index.ts";
import {
  describeReference,
  expectPythonError,
  itEachCase,
  type RefLine,
  pythonErrorOf,
  expectPythonRejection,
} from "../../support/reference.ts";

const isBalancedOnly = (v: any): boolean => v?.kind === "balanced_only";
const isPlan = (v: any): boolean => v?.kind === undefined && typeof v?.claim === "string" && v?.T_bank !== undefined;
const label = (r: RefLine): string =>
  `line ${r.line}${typeof r.value.claim === "string" ? ` (${JSON.stringify(r.value.claim)})` : ""}`;

describeReference("sampler vectors", "rpl", ["sampler_vectors.jsonl"], (ref) => {
  const lines = ref.records("sampler_vectors.jsonl");
  const withOutputs = lines.filter((r) => pythonErrorOf(r.value) === null);
  const plans = withOutputs.filter((r) => isPlan(r.value));
  const balancedOnly = withOutputs.filter((r) => isBalancedOnly(r.value));
  const errors = lines.filter((r) => pythonErrorOf(r.value) !== null);

  // A line of a shape this file does not recognise would otherwise be silently unchecked.
  it("recognises every line as a plan or a balanced_only line", () => {
    expect(lines.filter((r) => !isPlan(r.value) && !isBalancedOnly(r.value)).map((r) => r.line)).toEqual([]);
  });

  itEachCase(
    plans,
    (r) => `${label(r)}: plan matches exactly`,
    "sampling-plan line",
    async ({ value: v }) => {
      const plan = await planSampling({
        claim: v.claim,
        model: v.model,
        promptVersionFull: v.prompt_version,
        tBank: v.T_bank,
        T: v.T,
        K: v.K,
      });
      expect(plan.sha256_hex_prefix8).toBe(v.sha256_hex_prefix8);
      expect(plan.rotation_offset).toBe(v.offset);
      expect(plan.T_stage).toBe(v.T_stage);
      expect(plan.tpl_indices).toEqual(v.tpl_indices);
      expect(plan.seq).toEqual(v.seq);
      expect(plan.seq_bank).toEqual(v.seq_bank);
      expect(plan.planned_counts).toEqual(v.counts);
      expect(plan.planned_imbalance_ratio).toBe(v.imbalance);
    },
  );

  itEachCase(
    balancedOnly,
    (r) => `${label(r)}: balanced_indices_with_rotation(T=${r.value.T}, K=${r.value.K}, offset=${r.value.offset})`,
    'kind: "balanced_only" line',
    ({ value: v }) => {
      const seq = balancedIndices(v.T, v.K, v.offset);
      expect(seq).toEqual(v.seq);
      expect(plannedCounts(seq, v.T)).toEqual(v.counts);
      expect(imbalanceRatio(plannedCounts(seq, v.T))).toBe(v.imbalance);
    },
  );

  itEachCase(
    errors,
    (r) => `${label(r)}: raises like Python's ${pythonErrorOf(r.value)}`,
    "line with an expected error",
    async ({ value: v }) => {
      const py = pythonErrorOf(v)!;
      if (isBalancedOnly(v)) expectPythonError(() => balancedIndices(v.T, v.K, v.offset), py);
      else
        await expectPythonRejection(
          () =>
            planSampling({
              claim: v.claim,
              model: v.model,
              promptVersionFull: v.prompt_version,
              tBank: v.T_bank,
              T: v.T,
              K: v.K,
            }),
          py,
        );
    },
  );
});

describe("balancedIndices", () => {
  // §18.1: blocks, not the docstring's interleaving [0,1,2,3,4,0,1].
  it("lays out repeats in consecutive blocks", () => {
    expect(balancedIndices(5, 7)).toEqual([0, 0, 1, 1, 2, 3, 4]);
  });

  it("is empty for T <= 0 or K <= 0", () => {
    expect(balancedIndices(0, 4)).toEqual([]);
    expect(balancedIndices(3, 0)).toEqual([]);
  });
});

describe("replicateIndices", () => {
  // Slots [a, b, a] with R = 2: a gets 0,1 then 2,3 (occ = 1); b gets 0,1.
  it("numbers each template's replicates 0..count·R−1 in slot order", () => {
    expect(replicateIndices(["a", "b", "a"], 2).map((x) => x.replicate_idx)).toEqual([0, 1, 0, 1, 2, 3]);
  });
});

describe("imbalanceRatio", () => {
  // §3.5: max/min over the nonzero counts only; all-zero counts give 1.0.
  it("ignores zero counts", () => {
    expect(imbalanceRatio([2, 0, 4])).toBe(2);
    expect(imbalanceRatio([0, 0])).toBe(1);
  });
});
