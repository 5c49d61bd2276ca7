// Issue 30: "CSV formula guard bypassed where `;` separates lists": a model name or strategy key
// `x;=cmd|' /C calc'!A0;` was written unquoted, so a `;` locale opened the formula as a cell of its own.
import { parse } from "csv-parse/sync";
import { describe, expect, it } from "vitest";
import { csvNumber, csvText } from "../../../src/reports/csv.ts";
import { reportCsv } from "../../../src/reports/reasoning-quality/index.ts";
import { cellsByReader, formulaCell, PAYLOADS, unguard } from "../../support/csv-locales.ts";
import { model, report } from "./reasoning-quality-fixture.ts";

describe("the CSV writer's formula guard", () => {
  it.each(PAYLOADS.map((p) => [JSON.stringify(p), p]))(
    "%s in a model name and a strategy key: no reader sees a formula, the text comes back",
    (_, payload) => {
      const csv = reportCsv(report([model(payload, { aggregated: { [payload]: -0.5, balanced: 0.25 } })]));
      for (const [reader, cells] of Object.entries(cellsByReader(csv))) {
        expect(
          cells.map(formulaCell).filter((c) => c !== null),
          reader,
        ).toEqual([]);
      }
      const [header, ...rows] = parse(csv, { delimiter: "," }) as string[][];
      expect(header.slice(0, 3)).toEqual(["model", "strategy", "q"]);
      expect(rows.map((r) => [unguard(r[0]), unguard(r[1]), r[2]])).toEqual([
        [payload, "balanced", "0.25"],
        [payload, payload, "-0.5"],
      ]);
    },
  );

  it("puts one apostrophe where a cell could start with a trigger, and nowhere else", () => {
    // Worked by hand from the rule: at the start, and after each `,` `;` tab, CR or LF followed by a trigger.
    expect(csvText("x;=cmd|' /C calc'!A0;")).toBe(`"x;'=cmd|' /C calc'!A0;"`);
    expect(csvText("=1+1")).toBe(`"'=1+1"`);
    expect(csvText("\t=1")).toBe(`"'\t'=1"`);
    expect(csvText('a;"=1"')).toBe(`"a;'""=1"""`);
    expect(csvText("a; @x")).toBe(`"a;' @x"`);
    expect(csvText("'q'")).toBe(`"''q'"`);
    expect(csvText("gpt-4o-mini, a=b")).toBe(`"gpt-4o-mini, a=b"`);
    expect(csvText("")).toBe(`""`);
  });

  it("keeps numbers numbers: a negative score is written bare", () => {
    expect([csvNumber(-0.5), csvNumber(-1e-7), csvNumber(0), csvNumber(null), csvNumber(Number.NaN)]).toEqual([
      "-0.5",
      "-1e-7",
      "0",
      "",
      "",
    ]);
  });
});
