/**
 * The one place where a run request's endpoints are read: every `provider` object of a request (a
 * chain-determinism or rpl run's, a judge critic's, a reasoning-quality model's and its `ls`/`ss`
 * backends') goes through `resolveProviders` before its module looks at it.
 *
 * A `provider` gives an endpoint inline (`base_url`, `api_key`) or names a saved connection
 * (`connection`, see `/v1/providers`). A connection is resolved here into its base URL and its key,
 * decrypted, exactly as if the request had sent them: the module then puts the key among the run's
 * own secrets and the URL in the run's config, so the run never reads the connection again (deleting
 * or replacing it later does not touch a run already created). The name is kept (`connection`) so the
 * run's config can say where its endpoint came from; the key never is.
 *
 * Every URL, inline or saved, is checked here against the destination policy under the Worker's
 * setting (loopback only in local development): the schema (`BaseUrl`) cannot see the setting, and a
 * saved URL may predate a change of the rules.
 */
import { getConnections } from "../../db/provider-connections.ts";
import { ApiError, type FieldError } from "../../errors.ts";
import { destinationProblem, endpointPolicy } from "../../net/destination.ts";
import { decryptSecret } from "../../secrets.ts";
import type { CreateContext } from "./plugin.ts";

/** A request's `provider`, as every evaluator's schema takes it. */
export type ProviderRef = { base_url?: string; api_key?: string; connection?: string };

/** A `provider` once resolved: what the request gave, or what its connection holds (and the connection's name). */
export type ResolvedProvider = { base_url?: string; api_key?: string; connection?: string };

/**
 * Resolves the `provider` objects of one request. `refs` pairs each one's path (`critics.0.provider`)
 * with its value, if given; the answer has the same order, undefined where the request gave none.
 * Throws one 400 naming every field at fault: a connection the tenant does not have, a connection
 * given together with `base_url` or `api_key`, a URL the destination policy refuses, or a saved key
 * that no longer decrypts (SECRETS_KEY rotated).
 */
export async function resolveProviders(
  ctx: Pick<CreateContext, "env" | "db" | "tenantId" | "allowLoopback">,
  refs: Array<[path: string, ref: ProviderRef | undefined]>,
): Promise<(ResolvedProvider | undefined)[]> {
  const names = [...new Set(refs.flatMap(([, ref]) => (ref?.connection !== undefined ? [ref.connection] : [])))];
  const saved = new Map((await getConnections(ctx.db, ctx.tenantId, names)).map((row) => [row.name, row]));
  const policy = endpointPolicy(ctx.allowLoopback);
  const errors: FieldError[] = [];
  const out: (ResolvedProvider | undefined)[] = [];
  for (const [at, ref] of refs) {
    if (!ref) {
      out.push(undefined);
      continue;
    }
    if (ref.connection === undefined) {
      const problem = ref.base_url === undefined ? null : destinationProblem(ref.base_url, policy);
      if (problem) errors.push({ path: `${at}.base_url`, message: problem });
      out.push({ ...ref });
      continue;
    }
    const extra = (["base_url", "api_key"] as const).filter((k) => ref[k] !== undefined);
    if (extra.length) {
      errors.push({
        path: `${at}.connection`,
        message: `give either a connection or ${extra.join(" and ")}, not both: the connection holds its own`,
      });
      out.push(undefined);
      continue;
    }
    const row = saved.get(ref.connection);
    if (!row) {
      errors.push({
        path: `${at}.connection`,
        message: `no saved connection '${ref.connection}' for this tenant (see GET /v1/providers)`,
      });
      out.push(undefined);
      continue;
    }
    const problem = destinationProblem(row.baseUrl, policy);
    if (problem) errors.push({ path: `${at}.connection`, message: `its base_url is refused: ${problem}` });
    let apiKey: string | undefined;
    try {
      apiKey = row.apiKeyEnc === null ? undefined : await decryptSecret(ctx.env.SECRETS_KEY, row.apiKeyEnc);
    } catch {
      // Saved under another SECRETS_KEY (rotated since): only saving the key again can help.
      errors.push({
        path: `${at}.connection`,
        message: `its saved key cannot be decrypted (SECRETS_KEY changed since it was saved): save it again with PUT /v1/providers/${row.name}`,
      });
    }
    out.push({ base_url: row.baseUrl, api_key: apiKey, connection: row.name });
  }
  if (errors.length) throw ApiError.validation(errors);
  return out;
}
