import { describe, expect, it } from "vitest";
import { radarSvg } from "../../../src/reports/reasoning-quality/index.ts";
import { metrics, model, report } from "./reasoning-quality-fixture.ts";

// ---- structural XML check, independent of the renderer ----------------------------------------

const ENTITY = /&(amp|lt|gt|quot|apos|#\d+|#x[0-9a-fA-F]+);/g;

/** Throws unless `xml` is a single well-formed element (tags nest, attributes quoted, & and < escaped). */
function assertWellFormed(xml: string): void {
  const stack: string[] = [];
  let roots = 0;
  const tokens = xml.trim().split(/(<[^>]*>)/);
  for (const tok of tokens) {
    if (!tok.startsWith("<")) {
      if (tok.replace(ENTITY, "").includes("&")) throw new Error(`raw & in text: ${tok}`);
      if (tok.includes(">")) throw new Error(`raw > in text: ${tok}`);
      if (stack.length === 0 && tok.trim()) throw new Error(`text outside the root: ${tok}`);
      continue;
    }
    const m = /^<(\/?)([A-Za-z][\w:.-]*)((?:\s+[\w:.-]+="[^"<]*")*)\s*(\/?)>$/.exec(tok);
    if (!m) throw new Error(`malformed tag: ${tok}`);
    const [, close, name, attrs, selfClose] = m;
    for (const a of attrs.matchAll(/="([^"]*)"/g))
      if (a[1].replace(ENTITY, "").includes("&")) throw new Error(`raw & in attribute: ${tok}`);
    const names = [...attrs.matchAll(/\s([\w:.-]+)=/g)].map((a) => a[1]);
    if (new Set(names).size !== names.length) throw new Error(`duplicate attribute: ${tok}`);
    if (close) {
      if (stack.pop() !== name) throw new Error(`mismatched </${name}>`);
    } else if (!selfClose) {
      if (stack.length === 0) roots++;
      stack.push(name);
    } else if (stack.length === 0) roots++;
  }
  if (stack.length) throw new Error(`unclosed: ${stack.join(",")}`);
  if (roots !== 1) throw new Error(`expected one root element, got ${roots}`);
}

const attr = (tag: string, name: string) => new RegExp(`\\s${name}="([^"]*)"`).exec(tag)?.[1];
const num = (tag: string, name: string) => Number(attr(tag, name));
const tags = (svg: string, name: string, cls?: string) =>
  [...svg.matchAll(new RegExp(`<${name}\\s[^>]*>`, "g"))]
    .map((m) => m[0])
    .filter((t) => cls === undefined || attr(t, "class") === cls);
const texts = (svg: string, cls: string) =>
  [...svg.matchAll(/<text\s([^>]*)>([^<]*)<\/text>/g)]
    .filter((m) => attr(` ${m[1]}`, "class") === cls)
    .map((m) => m[2]);
const points = (polygon: string) =>
  attr(polygon, "points")!
    .split(" ")
    .map((p) => p.split(",").map(Number) as [number, number]);

/** Centre and outer radius as drawn: the largest ring. */
function outerRing(svg: string) {
  const rings = tags(svg, "circle", "ring");
  const outer = rings.reduce((a, b) => (num(b, "r") > num(a, "r") ? b : a));
  return { cx: num(outer, "cx"), cy: num(outer, "cy"), r: num(outer, "r") };
}

/** Documented geometry: axis i at i·60° clockwise from 12 o'clock; y grows downwards. */
function expectedVertex(g: { cx: number; cy: number; r: number }, axis: number, v: number): [number, number] {
  const a = (axis * Math.PI) / 3;
  return [g.cx + v * g.r * Math.sin(a), g.cy - v * g.r * Math.cos(a)];
}

const AXES = ["Correctness", "Consistency", "Robustness", "Coherence", "Efficiency", "Stability"];

// ---- tests ---------------------------------------------------------------------------------------

describe("radarSvg", () => {
  it("is a well-formed standalone SVG of the documented size", () => {
    const svg = radarSvg(report([model("a"), model("b")]));
    assertWellFormed(svg);
    const root = tags(svg, "svg")[0];
    expect(attr(root, "xmlns")).toBe("http://www.w3.org/2000/svg");
    expect(num(root, "width")).toBe(640);
    expect(num(root, "height")).toBeGreaterThanOrEqual(480);
    expect(num(root, "height")).toBeLessThanOrEqual(560);
    expect(attr(root, "font-family")).toBe("sans-serif");
  });

  it("draws 6 labelled axes, 5 rings 0.2…1.0 and one polygon and legend entry per model", () => {
    const svg = radarSvg(report([model("a"), model("b"), model("c")]));
    expect(texts(svg, "axis-label")).toEqual(AXES);
    expect(tags(svg, "line", "spoke")).toHaveLength(6);
    const g = outerRing(svg);
    const radii = tags(svg, "circle", "ring").map((t) => num(t, "r") / g.r);
    expect(radii.map((x) => Math.round(x * 10) / 10)).toEqual([0.2, 0.4, 0.6, 0.8, 1.0]);
    expect(texts(svg, "ring-label")).toEqual(["0.2", "0.4", "0.6", "0.8", "1.0"]);
    expect(tags(svg, "polygon", "model")).toHaveLength(3);
    expect(tags(svg, "g", "legend-entry")).toHaveLength(3);
  });

  it("puts vertices where the documented geometry says", () => {
    const m = model("m", {
      raw_metrics: {
        correctness: 1,
        consistency: 0.5,
        robustness: 0.25,
        logical_coherence: 0.8,
        efficiency: 0,
        stability: 0.6,
      },
    });
    const svg = radarSvg(report([m]));
    const g = outerRing(svg);
    const values = [1, 0.5, 0.25, 0.8, 0, 0.6];
    const pts = points(tags(svg, "polygon", "model")[0]);
    expect(pts).toHaveLength(6);
    pts.forEach(([x, y], i) => {
      const [ex, ey] = expectedVertex(g, i, values[i]);
      expect(x).toBeCloseTo(ex, 1);
      expect(y).toBeCloseTo(ey, 1);
    });
    // A metric of 1.0 lies on the outer ring, straight above the centre.
    expect(Math.hypot(pts[0][0] - g.cx, pts[0][1] - g.cy)).toBeCloseTo(g.r, 1);
    expect(pts[0][0]).toBeCloseTo(g.cx, 1);
  });

  it("has only finite numbers in its geometry and font sizes of at least 11px", () => {
    const svg = radarSvg(
      report([model("a"), model("b", { raw_metrics: metrics({ robustness: null, efficiency: Number.NaN }) })]),
    );
    for (const m of svg.matchAll(/\s(x|y|x1|y1|x2|y2|cx|cy|r|width|height)="([^"]*)"/g))
      expect(Number.isFinite(Number(m[2])), m[0]).toBe(true);
    for (const p of tags(svg, "polygon"))
      for (const [x, y] of points(p)) expect(Number.isFinite(x) && Number.isFinite(y)).toBe(true);
    const sizes = [...svg.matchAll(/font-size="([^"]*)"/g)].map((m) => Number(m[1]));
    expect(sizes.length).toBeGreaterThan(0);
    for (const s of sizes) expect(s).toBeGreaterThanOrEqual(11);
  });

  it("places axis labels outside the outer ring and inside the canvas", () => {
    const svg = radarSvg(report([model("a")]));
    const g = outerRing(svg);
    const width = num(tags(svg, "svg")[0], "width");
    for (const t of tags(svg, "text", "axis-label")) {
      const x = num(t, "x");
      const y = num(t, "y");
      expect(Math.hypot(x - g.cx, y - g.cy)).toBeGreaterThan(g.r);
      expect(x).toBeGreaterThan(0);
      expect(x).toBeLessThan(width);
      // Labels right of centre grow rightwards, left of centre leftwards, so none crosses the ring.
      const anchor = attr(t, "text-anchor");
      if (x > g.cx + 1) expect(anchor).toBe("start");
      else if (x < g.cx - 1) expect(anchor).toBe("end");
      else expect(anchor).toBe("middle");
    }
  });

  it("escapes model names and strips characters XML cannot hold", () => {
    const name = "a<b & \"c\" 'd'\u0001";
    const svg = radarSvg(report([model(name)]));
    assertWellFormed(svg);
    expect(svg).not.toContain("a<b");
    expect(svg).toContain("a&lt;b &amp; &quot;c&quot; &apos;d&apos;<");
    expect(svg).not.toContain("\u0001");
  });

  it("shows a null metric honestly: vertex at the centre, dashed outline, no marker, n/a in the legend", () => {
    const full = model("full");
    const gap = model("gap", { raw_metrics: metrics({ robustness: null }) });
    const svg = radarSvg(report([full, gap]));
    const g = outerRing(svg);
    const [pFull, pGap] = tags(svg, "polygon", "model");
    expect(attr(pFull, "stroke-dasharray")).toBeUndefined();
    expect(attr(pGap, "stroke-dasharray")).toMatch(/^\d+(\.\d+)? \d+(\.\d+)?$/);
    const robustness = points(pGap)[2];
    expect(robustness[0]).toBeCloseTo(g.cx, 1);
    expect(robustness[1]).toBeCloseTo(g.cy, 1);
    // Markers only on measured vertices: 6 + 5.
    expect(tags(svg, "circle", "vertex")).toHaveLength(11);
    const legend = svg.match(/<g class="legend-entry">[\s\S]*?<\/g>/g)!;
    expect(legend[0]).not.toContain("n/a");
    expect(legend[1]).toContain("gap (n/a: Robustness)");
    // Measured by one model: the axis label itself stays plain.
    expect(texts(svg, "axis-label")[2]).toBe("Robustness");
  });

  it("marks an axis n/a when no model has that metric", () => {
    const svg = radarSvg(
      report([
        model("a", { raw_metrics: metrics({ logical_coherence: null }) }),
        model("b", { raw_metrics: metrics({ logical_coherence: null }) }),
      ]),
    );
    expect(texts(svg, "axis-label")[3]).toBe("Coherence (n/a)");
  });

  it("cycles through 10 distinct colours", () => {
    const svg = radarSvg(report(Array.from({ length: 11 }, (_, i) => model(`m${i}`))));
    const strokes = tags(svg, "polygon", "model").map((p) => attr(p, "stroke"));
    expect(new Set(strokes.slice(0, 10)).size).toBe(10);
    expect(strokes[10]).toBe(strokes[0]);
    for (const p of tags(svg, "polygon", "model")) expect(num(p, "fill-opacity")).toBeCloseTo(0.15, 2);
  });

  it("keeps long legend labels within the canvas", () => {
    const long = "x".repeat(200);
    const svg = radarSvg(report([model(long), model("short")]));
    assertWellFormed(svg);
    const legendText = svg.match(/<g class="legend-entry">[\s\S]*?<\/g>/)![0];
    expect(legendText).toContain("…");
    expect(legendText).toContain(`<title>${long}</title>`);
  });

  it("renders the frame for a run without models", () => {
    const svg = radarSvg(report([]));
    assertWellFormed(svg);
    expect(tags(svg, "polygon", "model")).toHaveLength(0);
    expect(texts(svg, "axis-label")).toEqual(AXES);
  });
});
