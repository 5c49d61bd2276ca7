import { describe, expect, it } from "vitest";
import { reportCsv } from "../../../src/reports/reasoning-quality/index.ts";
import { metrics, model, report } from "./reasoning-quality-fixture.ts";

/** A strict RFC 4180 reader: CRLF record ends, quoted fields with doubled quotes. */
function parseCsv(text: string): string[][] {
  const records: string[][] = [];
  let record: string[] = [];
  let i = 0;
  while (i < text.length) {
    let field = "";
    if (text[i] === '"') {
      i++;
      for (;;) {
        if (i >= text.length) throw new Error("unterminated quoted field");
        if (text[i] === '"') {
          if (text[i + 1] === '"') {
            field += '"';
            i += 2;
          } else {
            i++;
            break;
          }
        } else field += text[i++];
      }
    } else {
      while (i < text.length && text[i] !== "," && text[i] !== "\r" && text[i] !== "\n") {
        if (text[i] === '"') throw new Error(`bare quote in unquoted field at ${i}`);
        field += text[i++];
      }
    }
    record.push(field);
    if (text[i] === ",") i++;
    else if (text.startsWith("\r\n", i)) {
      records.push(record);
      record = [];
      i += 2;
    } else if (i < text.length) throw new Error(`unexpected ${JSON.stringify(text[i])} at ${i}`);
  }
  if (record.length) records.push(record);
  return records;
}

const HEADER = [
  "model",
  "strategy",
  "q",
  "rank",
  "correctness",
  "consistency",
  "robustness",
  "logical_coherence",
  "efficiency",
  "stability",
];

/** Parsed rows as objects keyed by the header. */
function rows(text: string): Record<string, string>[] {
  const [head, ...body] = parseCsv(text);
  expect(head).toEqual(HEADER);
  for (const r of body) expect(r).toHaveLength(HEADER.length);
  return body.map((r) => Object.fromEntries(head.map((h, i) => [h, r[i]])));
}

describe("reportCsv", () => {
  it("has a header row, CRLF line endings and one row per model × strategy", () => {
    const r = report([model("m1"), model("m2")]);
    const text = reportCsv(r);
    expect(text.startsWith(HEADER.join(",") + "\r\n")).toBe(true);
    expect(text.endsWith("\r\n")).toBe(true);
    expect(text.replace(/\r\n/g, "")).not.toMatch(/[\r\n]/);
    const expectedRows = r.models.reduce((n, m) => n + Object.keys(m.aggregated).length, 0);
    expect(rows(text)).toHaveLength(expectedRows);
  });

  it("writes Q and the overall metrics as numbers that read back exactly", () => {
    const m = model("m1");
    const out = rows(reportCsv(report([m])));
    for (const row of out) {
      expect(Number(row.q)).toBe(m.aggregated[row.strategy]);
      for (const k of HEADER.slice(4)) expect(Number(row[k])).toBe(m.raw_metrics[k as keyof typeof m.raw_metrics]);
    }
  });

  // Issue "A suite you can trust": Q is stored unrounded, so it was written as 0.6821900000000001.
  it("writes Q rounded to 4 decimals like the metrics, and ranks on the exact values", () => {
    // 0.1 + 0.2 + 0.38219 = 0.6821900000000001 in doubles; to 4 decimals 0.6822. 0.68215 is the
    // double 0.68215000000000003411…, above the tie, so it rounds up to 0.6822 as well (as Python's
    // round does); its rank stays 2, because ranks compare the exact values, like the run's rankings.
    const a = model("a", { aggregated: { balanced: 0.1 + 0.2 + 0.38219 } });
    const b = model("b", { aggregated: { balanced: 0.68215 } });
    const out = rows(reportCsv(report([a, b])));
    expect(out.map((r) => [r.model, r.q, r.rank])).toEqual([
      ["a", "0.6822", "1"],
      ["b", "0.6822", "2"],
    ]);
  });

  it("orders strategies: the four built-ins first, then others as first seen", () => {
    const a = model("a", { aggregated: { edge_device: 0.1, efficiency_priority: 0.2, balanced: 0.3 } });
    const b = model("b", { aggregated: { legal_compliance: 0.4, safety_priority: 0.5, edge_device: 0.6 } });
    const out = rows(reportCsv(report([a, b])));
    expect(out.map((r) => `${r.model}:${r.strategy}`)).toEqual([
      "a:balanced",
      "a:efficiency_priority",
      "a:edge_device",
      "b:safety_priority",
      "b:edge_device",
      "b:legal_compliance",
    ]);
  });

  it("ranks with competition ranking: equal Q share the better rank", () => {
    const qs = { m1: 0.9, m2: 0.7, m3: 0.9, m4: 0.5 };
    const models = Object.entries(qs).map(([name, q]) => model(name, { aggregated: { balanced: q } }));
    const out = rows(reportCsv(report(models)));
    // Rank = 1 + number of strictly better models, computed here from the definition.
    const expected = Object.fromEntries(
      Object.entries(qs).map(([n, q]) => [n, 1 + Object.values(qs).filter((o) => o > q).length]),
    );
    expect(expected).toEqual({ m1: 1, m2: 3, m3: 1, m4: 4 });
    expect(Object.fromEntries(out.map((r) => [r.model, Number(r.rank)]))).toEqual(expected);
  });

  it("ranks each strategy separately and skips models without that strategy", () => {
    const a = model("a", { aggregated: { balanced: 0.5, custom: 0.9 } });
    const b = model("b", { aggregated: { balanced: 0.6 } });
    const out = rows(reportCsv(report([a, b])));
    const rank = (m: string, s: string) => out.find((r) => r.model === m && r.strategy === s)?.rank;
    expect(rank("a", "balanced")).toBe("2");
    expect(rank("b", "balanced")).toBe("1");
    expect(rank("a", "custom")).toBe("1");
    expect(rank("b", "custom")).toBeUndefined();
  });

  it("writes null metrics as empty fields, never 0", () => {
    const m = model("m", { raw_metrics: metrics({ robustness: null, logical_coherence: null }) });
    for (const row of rows(reportCsv(report([m])))) {
      expect(row.robustness).toBe("");
      expect(row.logical_coherence).toBe("");
      expect(row.correctness).toBe(String(m.raw_metrics.correctness));
    }
  });

  it("quotes every text field, doubling inner quotes (RFC 4180)", () => {
    const names = ['Acme "Turbo", v2', "line\nbreak", "cr\rhere", "plain"];
    const text = reportCsv(report(names.map((n) => model(n, { aggregated: { balanced: 0.5 } }))));
    expect(text).toContain('"Acme ""Turbo"", v2","balanced"');
    expect(text).toContain('"plain","balanced"');
    expect(rows(text).map((r) => r.model)).toEqual(names);
  });

  it("guards text that spreadsheets would run as a formula with a leading apostrophe", () => {
    const risky = ['=HYPERLINK("http://x")', "+1+1", "-2+3", "@SUM(A1)", "\tTAB", "\rCR"];
    const safe = ["a=b", "model-1", "x@y"];
    const models = [...risky, ...safe].map((n) => model(n, { aggregated: { balanced: 0.5 } }));
    const out = rows(reportCsv(report(models))).map((r) => r.model);
    expect(out).toEqual([...risky.map((n) => "'" + n), ...safe]);
  });

  it("guards strategy keys too", () => {
    const out = rows(reportCsv(report([model("m", { aggregated: { "=evil": 0.5 } })])));
    expect(out[0].strategy).toBe("'=evil");
  });

  it("does not treat negative numbers as text", () => {
    const out = rows(reportCsv(report([model("m", { aggregated: { balanced: -0.25 } })])));
    expect(out[0].q).toBe("-0.25");
  });

  it("gives only the header for a run without models", () => {
    expect(reportCsv(report([]))).toBe(HEADER.join(",") + "\r\n");
  });
});
