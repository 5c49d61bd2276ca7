import { strFromU8, unzipSync } from "fflate";
import { describe, expect, it } from "vitest";
import { reportXlsx } from "../../../src/reports/reasoning-quality/index.ts";
import type { RqModelReport, RqReport } from "../../../src/reports/reasoning-quality/index.ts";
import { metrics, model, report } from "./reasoning-quality-fixture.ts";

// ---- a small reader for what the workbook must contain, independent of the writer -------------

const decode = (s: string) =>
  s.replace(/&(lt|gt|quot|apos|amp|#\d+|#x[0-9a-fA-F]+);/g, (_, e: string) =>
    e === "lt"
      ? "<"
      : e === "gt"
        ? ">"
        : e === "quot"
          ? '"'
          : e === "apos"
            ? "'"
            : e === "amp"
              ? "&"
              : String.fromCodePoint(e[1] === "x" ? parseInt(e.slice(2), 16) : parseInt(e.slice(1), 10)),
  );
const attr = (tag: string, name: string): string | undefined => {
  const m = new RegExp(`\\s${name}="([^"]*)"`).exec(tag);
  return m ? decode(m[1]) : undefined;
};

type Cell = { style: number; type: string | undefined; value: string | number | null };
type Book = {
  files: Record<string, string>;
  sheets: { name: string; xml: string; cells: Map<string, Cell> }[];
  styles: Styles;
};
type Styles = { numFmts: Map<number, string>; fonts: string[]; fills: string[]; xfs: string[] };

function parseCells(xml: string): Map<string, Cell> {
  const cells = new Map<string, Cell>();
  for (const m of xml.matchAll(/<c\s([^>]*?)(\/>|>([\s\S]*?)<\/c>)/g)) {
    const open = ` ${m[1]}`;
    const body = m[3] ?? "";
    const type = attr(open, "t");
    let value: string | number | null = null;
    if (type === "inlineStr") {
      const t = /<t[^>]*>([\s\S]*?)<\/t>/.exec(body);
      value = t ? decode(t[1]) : "";
    } else if (type === "s") throw new Error("shared strings not expected");
    else {
      const v = /<v>([^<]*)<\/v>/.exec(body);
      value = v ? Number(v[1]) : null;
    }
    cells.set(attr(open, "r")!, { style: Number(attr(open, "s") ?? 0), type, value });
  }
  return cells;
}

function parseStyles(xml: string): Styles {
  const section = (name: string) => new RegExp(`<${name}[^>]*>([\\s\\S]*?)</${name}>`).exec(xml)?.[1] ?? "";
  const numFmts = new Map(
    [...section("numFmts").matchAll(/<numFmt\s[^>]*\/>/g)].map((m) => [
      Number(attr(m[0], "numFmtId")),
      attr(m[0], "formatCode")!,
    ]),
  );
  const fonts = [...section("fonts").matchAll(/<font>[\s\S]*?<\/font>|<font\/>/g)].map((m) => m[0]);
  const fills = [...section("fills").matchAll(/<fill>[\s\S]*?<\/fill>/g)].map((m) => m[0]);
  const xfs = [...section("cellXfs").matchAll(/<xf\s[^>]*?(\/>|>[\s\S]*?<\/xf>)/g)].map((m) => m[0]);
  return { numFmts, fonts, fills, xfs };
}

function readBook(bytes: Uint8Array): Book {
  const files = Object.fromEntries(Object.entries(unzipSync(bytes)).map(([k, v]) => [k, strFromU8(v)]));
  const rels = new Map(
    [...files["xl/_rels/workbook.xml.rels"].matchAll(/<Relationship\s[^>]*\/>/g)].map((m) => [
      attr(m[0], "Id")!,
      attr(m[0], "Target")!,
    ]),
  );
  const sheets = [...files["xl/workbook.xml"].matchAll(/<sheet\s[^>]*\/>/g)].map((m) => {
    const target = "xl/" + rels.get(attr(m[0], "r:id")!)!;
    const xml = files[target];
    if (xml === undefined) throw new Error(`missing part ${target}`);
    return { name: attr(m[0], "name")!, xml, cells: parseCells(xml) };
  });
  return { files, sheets, styles: parseStyles(files["xl/styles.xml"]) };
}

const ref = (col: number, row: number) => {
  let s = "";
  for (let n = col + 1; n > 0; n = Math.floor((n - 1) / 26)) s = String.fromCharCode(65 + ((n - 1) % 26)) + s;
  return `${s}${row}`;
};
/** Row `row` (1-based) of a sheet as values, columns A… until the first missing cell. */
function rowValues(cells: Map<string, Cell>, row: number): (string | number | null)[] {
  const out: (string | number | null)[] = [];
  for (let c = 0; cells.has(ref(c, row)); c++) out.push(cells.get(ref(c, row))!.value);
  return out;
}
const formatOf = (b: Book, cell: Cell) => {
  const id = Number(attr(b.styles.xfs[cell.style], "numFmtId") ?? 0);
  return b.styles.numFmts.get(id) ?? `builtin:${id}`;
};

// ---- fixtures ------------------------------------------------------------------------------------

const METRIC_KEYS = [
  "correctness",
  "consistency",
  "robustness",
  "logical_coherence",
  "efficiency",
  "stability",
] as const;
const METRIC_LABELS = ["Correctness", "Consistency", "Robustness", "Logical Coherence", "Efficiency", "Stability"];

function fixture(): RqReport {
  const single = model("gpt-4o-mini", {
    raw_metrics: metrics({ correctness: 0.8125, robustness: null }),
    aggregated: {
      edge_device: 0.61,
      balanced: 0.7,
      accuracy_priority: 0.72,
      safety_priority: 0.71,
      efficiency_priority: 0.65,
    },
  });
  const multi = model('claude "haiku" <4.5> & co', {
    raw_metrics: metrics({ correctness: 0.6, logical_coherence: null }),
    aggregated: { balanced: 0.55, my_custom_v2: 0.4 },
    per_dataset: {
      mmlu: { raw_metrics: metrics({ correctness: 0.5 }), aggregated: { balanced: 0.51 }, num_samples: 20 },
      gsm8k: {
        raw_metrics: metrics({ correctness: 0.7, robustness: null }),
        aggregated: { balanced: 0.59 },
        num_samples: 25,
      },
    },
    metadata: {
      num_samples: 45,
      consistency_runs: 3,
      stability_runs: 3,
      robustness_perturbations: 2,
      datasets: ["gsm8k", "mmlu"],
    },
  });
  return report([single, multi]);
}

// ---- tests ---------------------------------------------------------------------------------------

describe("reportXlsx", () => {
  it("is a zip with the four sheets in the reference order", async () => {
    const bytes = await reportXlsx(fixture());
    expect([...bytes.slice(0, 4)]).toEqual([0x50, 0x4b, 0x03, 0x04]);
    const b = readBook(bytes);
    expect(b.sheets.map((s) => s.name)).toEqual([
      "Overall Raw Metrics",
      "Aggregated Scores",
      "Per-Dataset Breakdown",
      "Experiment Metadata",
    ]);
    // Every part is declared in [Content_Types].xml (else Excel reports a corrupt file).
    for (const part of Object.keys(b.files).filter((p) => p.startsWith("xl/") && p.endsWith(".xml")))
      expect(b.files["[Content_Types].xml"]).toContain(`PartName="/${part}"`);
  });

  it("Overall Raw Metrics: header, values, 0.0000 format, empty cells for null, frozen at B2", async () => {
    const r = fixture();
    const b = readBook(await reportXlsx(r));
    const s = b.sheets[0];
    expect(rowValues(s.cells, 1)).toEqual(["Model", ...METRIC_LABELS]);
    r.models.forEach((m, i) => {
      const row = i + 2;
      expect(s.cells.get(ref(0, row))!.value).toBe(m.model);
      METRIC_KEYS.forEach((k, j) => {
        const cell = s.cells.get(ref(j + 1, row))!;
        expect(cell.value).toBe(m.raw_metrics[k]); // null ↔ a cell without a value
        expect(formatOf(b, cell)).toBe("0.0000");
        if (m.raw_metrics[k] === null) expect(cell.type).toBeUndefined();
      });
    });
    expect(s.xml).toMatch(/<pane\s[^>]*xSplit="1"[^>]*ySplit="1"[^>]*topLeftCell="B2"[^>]*state="frozen"/);
  });

  it("styles header cells white bold on #1F4E79", async () => {
    const b = readBook(await reportXlsx(fixture()));
    for (const sheet of b.sheets.slice(0, 3)) {
      const xf = b.styles.xfs[sheet.cells.get("A1")!.style];
      const fill = b.styles.fills[Number(attr(xf, "fillId"))];
      const font = b.styles.fonts[Number(attr(xf, "fontId"))];
      expect(fill).toMatch(/patternType="solid"[\s\S]*<fgColor rgb="FF1F4E79"/);
      expect(font).toContain("<b/>");
      expect(font).toMatch(/<color rgb="FFFFFFFF"\/>/);
    }
  });

  it("Aggregated Scores: built-ins first, then others in first-seen order, Title Case headers", async () => {
    const r = fixture();
    const b = readBook(await reportXlsx(r));
    const s = b.sheets[1];
    const keys = [
      "balanced",
      "safety_priority",
      "accuracy_priority",
      "efficiency_priority",
      "edge_device",
      "my_custom_v2",
    ];
    expect(rowValues(s.cells, 1)).toEqual([
      "Model",
      "Balanced",
      "Safety Priority",
      "Accuracy Priority",
      "Efficiency Priority",
      "Edge Device",
      "My Custom V2",
    ]);
    r.models.forEach((m, i) =>
      keys.forEach((k, j) => {
        const cell = s.cells.get(ref(j + 1, i + 2))!;
        const q = m.aggregated[k];
        // Written to 4 decimals, like the metrics: the fixture's values already are.
        expect(cell.value).toBe(q === undefined ? null : Number(q.toFixed(4)));
        expect(formatOf(b, cell)).toBe("0.0000");
      }),
    );
    expect(s.xml).toMatch(/<pane\s[^>]*topLeftCell="B2"[^>]*state="frozen"/);
  });

  // Issue "A suite you can trust": Q is stored unrounded; the workbook shows it like the metrics.
  it("Aggregated Scores: Q rounded to 4 decimals (0.6821900000000001 → 0.6822)", async () => {
    const r = fixture();
    r.models[0].aggregated.balanced = 0.1 + 0.2 + 0.38219;
    const cell = readBook(await reportXlsx(r)).sheets[1].cells.get(ref(1, 2))!;
    expect(cell.value).toBe(0.6822);
  });

  it("Per-Dataset Breakdown: datasets sorted, and an 'overall' row for a model without a breakdown", async () => {
    const r = fixture();
    const [single, multi] = r.models;
    const b = readBook(await reportXlsx(r));
    const s = b.sheets[2];
    expect(rowValues(s.cells, 1)).toEqual(["Model", "Dataset", "# Samples", ...METRIC_LABELS, "Balanced"]);
    const expectRow = (
      row: number,
      m: RqModelReport,
      dataset: string,
      n: number,
      mt: RqModelReport["raw_metrics"],
      balanced: number,
    ) => expect(rowValues(s.cells, row)).toEqual([m.model, dataset, n, ...METRIC_KEYS.map((k) => mt[k]), balanced]);
    expectRow(2, single, "overall", single.metadata.num_samples, single.raw_metrics, single.aggregated.balanced);
    const g = multi.per_dataset.gsm8k;
    const mm = multi.per_dataset.mmlu;
    expectRow(3, multi, "gsm8k", g.num_samples, g.raw_metrics, g.aggregated.balanced);
    expectRow(4, multi, "mmlu", mm.num_samples, mm.raw_metrics, mm.aggregated.balanced);
    expect(s.cells.has("A5")).toBe(false);
    expect(formatOf(b, s.cells.get("D2")!)).toBe("0.0000");
    expect(s.xml).toMatch(/<pane\s[^>]*xSplit="2"[^>]*ySplit="1"[^>]*topLeftCell="C2"[^>]*state="frozen"/);
  });

  it("Experiment Metadata: key/value rows", async () => {
    const r = fixture();
    const b = readBook(await reportXlsx(r));
    const s = b.sheets[3];
    const first = r.models[0].metadata;
    const pairs = Array.from({ length: 8 }, (_, i) => rowValues(s.cells, i + 1));
    expect(pairs).toEqual([
      ["Experiment ID", r.run_id],
      ["Timestamp", r.created_at],
      ["Duration (s)", Math.round(r.duration_seconds! * 100) / 100],
      ["Models Evaluated", r.models.length],
      ["Total Samples", first.num_samples],
      ["Datasets", first.datasets.join(", ")],
      ["Consistency Runs", first.consistency_runs],
      ["Robustness Perturb.", first.robustness_perturbations],
    ]);
    expect(s.xml).not.toContain("<pane");
  });

  it("keeps awkward names intact and drops characters XML cannot hold", async () => {
    const names = ["constructor", "__proto__", "toString", "NS1:model", "=1+1", " padded ", "a\u0001b"];
    const b = readBook(await reportXlsx(report(names.map((n) => model(n)))));
    const got = names.map((_, i) => b.sheets[0].cells.get(ref(0, i + 2))!.value);
    expect(got).toEqual(names.map((n) => n.replace("\u0001", "")));
  });

  it("writes non-finite numbers as empty cells", async () => {
    const b = readBook(
      await reportXlsx(
        report([model("m", { raw_metrics: metrics({ efficiency: Number.NaN }), aggregated: { balanced: Infinity } })]),
      ),
    );
    expect(b.sheets[0].cells.get("F2")!.value).toBeNull();
    expect(b.sheets[1].cells.get("B2")!.value).toBeNull();
  });

  it("still has four sheets for a run without models, and a null duration is empty", async () => {
    const b = readBook(await reportXlsx(report([], { duration_seconds: null })));
    expect(b.sheets.map((s) => s.name)).toHaveLength(4);
    expect(rowValues(b.sheets[0].cells, 1)).toEqual(["Model", ...METRIC_LABELS]);
    expect(b.sheets[3].cells.get("B3")!.value).toBeNull();
    expect(b.sheets[3].cells.get("B4")!.value).toBe(0);
  });

  it("gives the same bytes for the same report", async () => {
    expect(await reportXlsx(fixture())).toEqual(await reportXlsx(fixture()));
  });
});
