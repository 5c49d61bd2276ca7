// Issue 15: the contract types every result. The generated SDK's `Run` and `Sample` are unions on
// `evaluator`, so a program reads `result.divergence_rate`, `result.aggregates.prob_true_rpl`,
// `result.batch.alpha` and `result.rankings` without a cast once it has narrowed; and not before.
// Issue 24: so is `Comparison`, for its `details`.
import { join } from "node:path";
import ts from "typescript";
import { describe, expect, it } from "vitest";

const ROOT = join(import.meta.dirname, "../..");
const FIXTURE = join(ROOT, "test/fixtures/sdk-results.ts");

const OPTIONS: ts.CompilerOptions = {
  strict: true,
  noEmit: true,
  target: ts.ScriptTarget.ES2022,
  module: ts.ModuleKind.ESNext,
  moduleResolution: ts.ModuleResolutionKind.Bundler,
  allowImportingTsExtensions: true,
  skipLibCheck: true,
  lib: ["lib.es2023.d.ts", "lib.dom.d.ts", "lib.dom.iterable.d.ts"],
  types: [],
};

/** The diagnostics of compiling `file`, whose text may be given instead of read from disk. */
function diagnostics(file: string, text?: string): string[] {
  const host = ts.createCompilerHost(OPTIONS);
  if (text !== undefined) {
    const read = host.readFile.bind(host);
    const exists = host.fileExists.bind(host);
    const get = host.getSourceFile.bind(host);
    host.readFile = (f) => (f === file ? text : read(f));
    host.fileExists = (f) => f === file || exists(f);
    host.getSourceFile = (f, v, ...rest) => (f === file ? ts.createSourceFile(f, text, v) : get(f, v, ...rest));
  }
  const program = ts.createProgram([file], OPTIONS, host);
  return ts.getPreEmitDiagnostics(program).map((d) => ts.flattenDiagnosticMessageText(d.messageText, "\n"));
}

describe("the generated SDK's types", () => {
  it("type every evaluator's result and sample output after narrowing on evaluator (strict, no casts)", () => {
    expect(diagnostics(FIXTURE)).toEqual([]);
  }, 60_000);

  it("do not let a program read one evaluator's result without narrowing", () => {
    const file = join(ROOT, "test/fixtures/sdk-unnarrowed.ts");
    const text =
      'import type { Run } from "../../sdk/src/index.ts";\nexport const f = (run: Run) => run.result?.divergence_rate;\n';
    expect(diagnostics(file, text).join("\n")).toMatch(/divergence_rate/);
  }, 60_000);

  it("do not let a program read one evaluator's comparison details without narrowing", () => {
    const file = join(ROOT, "test/fixtures/sdk-unnarrowed.ts");
    const text =
      'import type { Comparison } from "../../sdk/src/index.ts";\nexport const f = (c: Comparison) => c.details.per_critic;\n';
    expect(diagnostics(file, text).join("\n")).toMatch(/per_critic/);
  }, 60_000);
});
