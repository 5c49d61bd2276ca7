/**
 * How the API words what is wrong with a JSON value: zod's issues as `errors[{path, message}]`, and the
 * problem's detail that names the fields. Free of Hono and Workers, so that `assay vrty --local` words a
 * bad pair with this very code and its errors read as the server's do.
 */
import type { ZodError } from "zod";
import type { JsonFieldProblem } from "./strict-json.ts";

type Issue = { code: string; path: PropertyKey[]; message: string; errors?: Issue[][]; keys?: string[] };

/**
 * Turns zod issues into `errors[{path, message}]`; the path is dotted (`pairs.3.prompt`), `body` for the root.
 * A union that no branch accepted names the field inside the branch that got furthest (every issue below
 * the union, fewest issues), e.g. `ss.fallback` rather than `ss`; if none got past the value's shape, it
 * names the union with each branch's complaint. An unknown key is named itself (`simulator.divergence`),
 * not the object that holds it.
 */
export function fieldErrors(error: ZodError, root = "body"): JsonFieldProblem[] {
  const flatten = (issue: Issue, prefix: PropertyKey[]): JsonFieldProblem[] => {
    const at = [...prefix, ...issue.path];
    if (issue.code === "unrecognized_keys" && issue.keys?.length) {
      return issue.keys.map((k) => ({ path: [...at, k].map(String).join("."), message: "unknown field" }));
    }
    if (issue.code === "invalid_union" && issue.errors?.length) {
      const deeper = issue.errors
        .filter((b) => b.length > 0 && b.every((i) => i.path.length > 0))
        .sort((a, b) => a.length - b.length)[0];
      if (deeper) return deeper.flatMap((i) => flatten(i, at));
      const messages = [...new Set(issue.errors.flatMap((b) => b.map((i) => i.message)))];
      if (messages.length)
        return [{ path: at.length ? at.map(String).join(".") : root, message: messages.join("; or ") }];
    }
    return [{ path: at.length ? at.map(String).join(".") : root, message: issue.message }];
  };
  return (error.issues as unknown as Issue[]).flatMap((issue) => flatten(issue, []));
}

/** A validation problem's detail: each field with a problem, once, in order. */
export function invalidFieldsDetail(errors: JsonFieldProblem[]): string {
  return `The request has invalid fields: ${[...new Set(errors.map((e) => e.path))].join(", ")}.`;
}
