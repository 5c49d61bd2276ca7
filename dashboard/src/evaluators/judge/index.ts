// judge in the dashboard: its form, its run view (verdict grid, agreement, contested queue) and how its
// runs compare.
import type { JudgeRun } from "@assay/sdk";
import { registerEvaluator } from "../registry.ts";
import { JudgeForm } from "./form.tsx";
import { JudgeView } from "./view.tsx";
import { detailLines, summary } from "./compare.ts";

registerEvaluator<JudgeRun>({
  name: "judge",
  title: "judge",
  runs: { Form: JudgeForm, View: JudgeView, summary, compare: { detailLines } },
});
