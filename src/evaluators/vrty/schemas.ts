/**
 * vrty's request shapes, declared once for both sides that validate them: the API (routes.ts) and
 * `assay vrty --local`, which bundles this file so that a bad pair fails there exactly as it fails on
 * the server. Hence plain zod and the API's limits only: no Hono, no Workers. OpenAPI names and
 * descriptions are zod metadata (`.meta`), which the API's document reads like `.openapi()`.
 */
// A namespace import, so that the CLI's bundler keeps only the parts of zod these schemas use.
import * as z from "zod";
import { LIMITS } from "../../limits.ts";

export const DEFAULT_IDF_TABLE = "default";

const Text = (what: string) =>
  z
    .string()
    .max(LIMITS.textChars)
    .meta({ description: `${what}; only its first 2,048 tokens are scored` });

// Each request shape lists its fields itself rather than extending one pair schema: an extended strict
// object becomes an `allOf` of two parts that each forbid the other's fields, which no body satisfies
// under JSON Schema 2020-12.
const pairFields = { prompt: Text("The prompt"), response: Text("The response to score") };

export const IdfTableRef = z
  .string()
  .min(1)
  .default(DEFAULT_IDF_TABLE)
  .meta({ description: "Id of a custom IDF table, or `default` for the built-in one", example: DEFAULT_IDF_TABLE });

/** The body of `POST /v1/vrty/score`. */
export const VrtyScoreRequest = z.strictObject({ ...pairFields, idf_table: IdfTableRef }).meta({
  id: "VrtyScoreRequest",
  example: { prompt: "What is the capital of France?", response: "Paris is the capital of France." },
});

/** One pair of `POST /v1/vrty/score/batch`, validated on its own: a bad pair gets an error entry, the others are scored. */
export const VrtyBatchPair = z
  .strictObject({
    ...pairFields,
    id: z.string().max(200).optional().meta({ description: "Your id for the pair, echoed in its result" }),
  })
  .meta({ id: "VrtyBatchPair" });
