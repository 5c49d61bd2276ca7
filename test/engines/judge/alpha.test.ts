// Alpha parity (spec cross-judge.md §6): every line of $REFERENCE_DIR/cross-judge/alpha_vectors.jsonl.
// single_item lines: itemAlpha must equal the reference value, nominalAlpha on the one unit the textbook value.
// matrix lines: nominalAlpha over the whole matrix must equal textbook_alpha (the library has no batch alpha),
// and itemAlpha of each row (nulls as errored verdicts) the reference's per-item values.
import { describe, expect, it } from "vitest";
import { itemAlpha } from "../../../src/engines/judge/index.ts";
import { nominalAlpha } from "../../../src/engines/stats/index.ts";
import { referenceFiles } from "../../support/reference.ts";
import { closeTo } from "./support.ts";

const vectors = referenceFiles("cross-judge").lines("alpha_vectors.jsonl").map((l) => JSON.parse(l));

describe("alpha vectors", () => {
  it("reads every line", () => expect(vectors.length).toBe(50));

  it.each(vectors.map((v) => [`${v.id} ${v.note}`, v]))("%s", (_n, v) => {
    if (v.type === "single_item") {
      closeTo(itemAlpha(v.verdicts), v.reference_alpha);
      closeTo(nominalAlpha([v.valid_labels]).alpha, v.textbook_alpha);
      return;
    }
    expect(v.type).toBe("matrix");
    closeTo(nominalAlpha(v.units).alpha, v.textbook_alpha);
    const perItem = v.units.map((row: (string | null)[]) => itemAlpha(row.map((kind) => (kind === null ? { kind: "ERROR", error: "missing" } : { kind, error: null }))));
    perItem.forEach((a: number | null, i: number) => closeTo(a, v.reference_per_item[i]));
  });
});
