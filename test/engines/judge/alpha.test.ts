// Alpha parity (spec cross-judge.md §6): every line of $REFERENCE_DIR/cross-judge/alpha_vectors.jsonl.
// single_item lines: itemAlpha must equal the reference value, nominalAlpha on the one unit the textbook value,
// and the two must differ exactly where the line says they do.
// matrix lines: nominalAlpha over the whole matrix must equal textbook_alpha (the library has no batch alpha),
// and itemAlpha of each row (nulls as errored verdicts) the reference's per-item values and their mean.
// Lines whose note cites a published value ("published 0.743") are found by that content and checked against
// it; the published examples are also hand-derived in test/engines/stats/krippendorff.test.ts.
import { expect, it } from "vitest";
import { itemAlpha, validVotes } from "../../../src/engines/judge/index.ts";
import { nominalAlpha } from "../../../src/engines/stats/index.ts";
import { describeReference, itEachCase, type RefLine } from "../../support/reference.ts";
import { closeTo, lineName } from "./support.ts";

const asVotes = (row: (string | null)[]) =>
  row.map((kind) => (kind === null ? { kind: "ERROR", error: "missing" } : { kind, error: null }));

describeReference("alpha vectors", "cross-judge", ["alpha_vectors.jsonl"], (ref) => {
  const records = ref.records("alpha_vectors.jsonl");

  it("holds at least one line", () => expect(records.length).toBeGreaterThan(0));

  it.each(records.map((r) => [lineName(r), r] as const))("%s", (_n, r: RefLine) => {
    const v = r.value;
    expect(["single_item", "matrix"]).toContain(v.type);
    if (v.type === "single_item") {
      expect(validVotes(v.verdicts).map((x: { kind: string }) => x.kind)).toEqual(v.valid_labels);
      const lib = itemAlpha(v.verdicts);
      const textbook = nominalAlpha([v.valid_labels]).alpha;
      closeTo(lib, v.reference_alpha);
      closeTo(textbook, v.textbook_alpha);
      // README: differs = |ref − textbook| > 1e-12 or exactly one is null.
      const differs =
        (lib === null) !== (textbook === null) ||
        (lib !== null && textbook !== null && Math.abs(lib - textbook) > 1e-12);
      expect(differs).toBe(v.differs);
      return;
    }
    closeTo(nominalAlpha(v.units).alpha, v.textbook_alpha);
    const perItem = v.units.map((row: (string | null)[]) => itemAlpha(asVotes(row)));
    expect(perItem).toHaveLength(v.reference_per_item.length);
    perItem.forEach((a: number | null, i: number) => closeTo(a, v.reference_per_item[i]));
    const defined = perItem.filter((a: number | null): a is number => a !== null);
    closeTo(
      defined.length ? defined.reduce((s: number, a: number) => s + a, 0) / defined.length : null,
      v.reference_per_item_mean,
    );
  });

  const published = records.flatMap((r) => {
    const m = /published\s+(-?\d*\.\d+)/i.exec(r.value.note ?? "");
    return m && r.value.type === "matrix" ? [{ r, figure: m[1] }] : [];
  });
  itEachCase(
    published,
    ({ r, figure }) => `${lineName(r)}: textbook alpha rounds to the published ${figure}`,
    'matrix line whose note cites a published value ("published 0.743")',
    ({ r, figure }) => {
      const decimals = figure.split(".")[1].length;
      const alpha = nominalAlpha(r.value.units).alpha;
      expect(alpha).not.toBeNull();
      expect(alpha!.toFixed(decimals)).toBe(Number(figure).toFixed(decimals));
      closeTo(alpha, r.value.textbook_alpha);
    },
  );
});
