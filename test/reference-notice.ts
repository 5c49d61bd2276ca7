// globalSetup of the Node project: one line before the run when the golden vectors are absent, so a
// fresh clone's "skipped" count explains itself (the parity blocks skip; see test/support/reference.ts).
import { existsSync } from "node:fs";
import { REFERENCE_REQUIRED, REFERENCE_ROOT } from "./support/reference.ts";

export default function () {
  if (existsSync(REFERENCE_ROOT)) return;
  const consequence = REFERENCE_REQUIRED ? "REFERENCE_REQUIRED=1, so they fail" : "they are skipped";
  console.warn(
    `parity tests need the original tools' golden vectors in ${REFERENCE_ROOT} (set REFERENCE_DIR to another folder of the same files); ${consequence}.`,
  );
}
