// Public door of the statistics helpers (STYLE "For assay" §8: one file per statistic).
export { wilson } from "./wilson.ts";
