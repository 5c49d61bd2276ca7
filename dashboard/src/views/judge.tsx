import type { Run } from "@assay/sdk";

export function JudgeView({ run }: { run: Run }) {
  return <pre class="raw">{JSON.stringify(run.result, null, 2)}</pre>;
}
