import defaultSuite from "../../../prompts/chain-determinism/default-suite.json" with { type: "json" };
import { validateSuite, type Suite } from "../../engines/chain-determinism/index.ts";
import { canonicalJson } from "../../engines/vrty/index.ts";
import { sha256Hex } from "../../crypto.ts";
import { getSuite } from "../../db/suites.ts";
import type { Db } from "../../db/client.ts";

/** Our default suite (prompts/chain-determinism/default-suite.json), validated once at load. */
export const DEFAULT_SUITE: Suite = validateSuite(defaultSuite);

export type LoadedSuite = { id: string; name: string; sha256: string; suite: Suite; createdAt: Date | null };

/** A suite by id: `default` (ours) or one the tenant uploaded; undefined if there is none. */
export async function loadSuite(db: Db, tenantId: string, id: string): Promise<LoadedSuite | undefined> {
  if (id === "default")
    return {
      id,
      name: "assay default (ticketing and inventory)",
      sha256: await sha256Hex(canonicalJson(DEFAULT_SUITE)),
      suite: DEFAULT_SUITE,
      createdAt: null,
    };
  const row = await getSuite(db, tenantId, "chain-determinism", id);
  return row && { id: row.id, name: row.name, sha256: row.sha256, suite: row.data as Suite, createdAt: row.createdAt };
}
