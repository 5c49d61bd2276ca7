// Issue 30: "CSV formula guard bypassed where `;` separates lists". The payloads go into the model names
// and strategy keys of a real reasoning-quality run; its report.csv is read as spreadsheet programs
// with `,`, `;` and tab list separators would read it.
import { describe, expect, it } from "vitest";
import { parse } from "csv-parse/sync";
import { cellsByReader, formulaCell, PAYLOADS, unguard } from "../support/csv-locales.ts";
import { newTenant, send, startRq, waitForRun } from "./helpers.ts";

describe("GET /v1/runs/{run_id}/report.csv in every locale", () => {
  it("no reader sees a formula in a caller's model name or strategy key, and the text comes back", async () => {
    const { key } = await newTenant();
    // At most 10 models a run: the payloads go in two runs, every payload a strategy key of both.
    const halves = [PAYLOADS.slice(0, 8), PAYLOADS.slice(8)];
    const runs = await Promise.all(
      halves.map(async (names) =>
        waitForRun(
          key,
          (
            await startRq(key, {
              models: names.map((name, i) => ({ name, model: "sim:reasoner", simulator: { accuracy: 0.2 + i / 20 } })),
              datasets: [{ synthetic: { num_reasoning: 2, num_adversarial: 0, num_robustness: 0 } }],
              K: 2,
              P: 0,
              strategies: Object.fromEntries(PAYLOADS.map((p) => [p, { correctness: 1, efficiency: 1 }])),
            })
          ).id,
          60_000,
        ),
      ),
    );
    const rows: string[][] = [];
    for (const [i, run] of runs.entries()) {
      expect(run.status).toBe("succeeded");
      const res = await send("GET", `/v1/runs/${run.id}/report.csv`, key);
      expect(res.status).toBe(200);
      const csv = await res.text();
      for (const [reader, cells] of Object.entries(cellsByReader(csv))) {
        expect(
          cells.map(formulaCell).filter((c) => c !== null),
          reader,
        ).toEqual([]);
      }
      const own = (parse(csv, { delimiter: "," }) as string[][]).slice(1);
      expect(new Set(own.map((r) => unguard(r[0])))).toEqual(new Set(halves[i]));
      const strategies = new Set(own.map((r) => unguard(r[1])));
      for (const p of PAYLOADS) expect(strategies).toContain(p);
      rows.push(...own);
    }
    // Q is a number in every row, written bare.
    for (const r of rows) expect(Number.isFinite(Number(r[2])) && r[2] !== "").toBe(true);
  }, 90_000);
});
