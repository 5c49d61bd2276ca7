// rpl in the dashboard: its form, its run view (with auto-RPL's stages) and how its runs compare.
import type { RplRun } from "@assay/sdk";
import { registerEvaluator } from "../registry.ts";
import { RplForm } from "./form.tsx";
import { RplView } from "./view.tsx";
import { detailLines, summary } from "./compare.ts";

registerEvaluator<RplRun>({
  name: "rpl",
  title: "rpl",
  runs: { Form: RplForm, View: RplView, summary, compare: { detailLines } },
});
