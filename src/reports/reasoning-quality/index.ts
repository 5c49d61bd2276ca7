/**
 * Reasoning-quality reports as pure render functions: an `RqReport` in, a file's content out
 * (CSV text, XLSX bytes, SVG text). No I/O, no Node APIs: they run in workerd as in Node.
 */
export type { RqMetrics, RqModelReport, RqReport } from "./types.ts";
export { reportCsv } from "./csv.ts";
export { reportXlsx } from "./xlsx.ts";
export { radarSvg } from "./radar.ts";
