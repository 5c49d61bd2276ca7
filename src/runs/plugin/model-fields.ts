// The request fields that name a model, shared by every run evaluator's request schema, and the one
// "simulator or endpoint" check.
import { z } from "@hono/zod-openapi";
import { ApiError, type FieldError } from "../../errors.ts";
import { destinationProblem, endpointPolicy } from "../../net/destination.ts";
import { PROVIDER_SECRET, SIM_DIVERGENCE, type ModelSettings } from "../../providers/index.ts";
import { resolveProviders, type ProviderRef } from "./connections.ts";
import type { CreateContext } from "./plugin.ts";
import { callTimeoutField } from "./step-limits.ts";

/**
 * A provider key. It is sent in an HTTP header (`Authorization: Bearer …`), which holds only ASCII, so
 * anything else is refused here, naming the field, instead of failing every call of the run (a pasted
 * placeholder such as `sk-or-…` ends in the non-ASCII `…`). Spaces are refused too: no key has them,
 * and a pasted key with a trailing newline or space would be sent wrong.
 */
export const ProviderKey = z
  .string()
  // A key this short cannot be told apart from ordinary text, so it could not be kept out of stored
  // answers without destroying them; no real key is, and a keyless local server needs none.
  .min(8, "must be at least 8 characters (leave it out for an endpoint that needs no key)")
  .max(4096)
  .regex(/^[\x21-\x7e]+$/, "must be printable ASCII without spaces: it is sent in an HTTP header")
  .openapi({ description: "Secret: encrypted for the life of the run, never stored in plain text or returned" });

/**
 * An OpenAI-compatible endpoint's base URL (`provider.base_url` of every evaluator). The schema applies
 * the destination policy's text rules (net/destination.ts): http(s), no credentials in it or in its
 * query, no private, link-local, metadata, unspecified or local-name host. Whether loopback is
 * accepted depends on the Worker's setting, which a schema cannot see: run requests check that in
 * `resolveProviders` (connections.ts), other routes with `checkEndpointUrls`, once the body has parsed.
 */
export const BaseUrl = z.url({ protocol: /^https?$/, abort: true }).superRefine((url, ctx) => {
  const problem = destinationProblem(url, endpointPolicy(true));
  if (problem) ctx.addIssue({ code: "custom", message: problem });
});

/**
 * The name of a saved provider connection (`/v1/providers`): what runs write in `provider.connection`
 * and what `/v1/providers/{name}` addresses, so it is a plain path segment.
 */
export const ConnectionName = z
  .string()
  .regex(
    /^[A-Za-z0-9][A-Za-z0-9._-]{0,63}$/,
    "1 to 64 letters, digits, '.', '_' or '-', starting with a letter or digit",
  )
  .openapi({ example: "openrouter" });

/**
 * `provider` of every model a run request names (the run's model, a judge critic, a reasoning-quality
 * model and its backends): an endpoint given inline, or a saved connection by name, which stands for its
 * `base_url` and `api_key` (connections.ts resolves it). Either `base_url` or `connection`
 * is needed, except for a judge critic whose `vendor` gives the URL.
 */
export const Provider = z
  .strictObject({
    base_url: BaseUrl.optional().openapi({
      description: "Any OpenAI-compatible endpoint (for a judge critic, it overrides the vendor's)",
      example: "https://openrouter.ai/api/v1",
    }),
    api_key: ProviderKey.optional(),
    connection: ConnectionName.optional().openapi({
      description:
        "A saved provider connection (`POST /v1/providers`) instead of `base_url` and `api_key`: its endpoint and key are used as if given here, copied into the run when it is created",
    }),
  })
  .openapi("Provider", {
    description: "Where to call a model: `base_url` (+ `api_key`), or `connection`, the name of a saved connection",
  });

/**
 * Refuses, naming each field, the endpoint URLs the destination policy refuses under the Worker's
 * setting (`allowLoopback`: `loopbackAllowed(env)`), i.e. loopback outside local development; the
 * rest was refused by `BaseUrl` already. `urls` pairs each field's path with its value, if given.
 */
export function checkEndpointUrls(
  urls: Array<[path: string, url: string | null | undefined]>,
  allowLoopback: boolean,
): void {
  const errors: FieldError[] = [];
  for (const [path, url] of urls) {
    const problem = url == null ? null : destinationProblem(url, endpointPolicy(allowLoopback));
    if (problem) errors.push({ path, message: problem });
  }
  if (errors.length) throw ApiError.validation(errors);
}

/** `latency_ms` of every simulator: a delay before each simulated answer. */
const SimLatency = z
  .number()
  .int()
  .min(0)
  .max(60_000)
  .default(0)
  .openapi({ description: "Delay before each simulated answer" });

/** The simulator knobs of a tool-calling agent (chain-determinism). */
export const AgentSimulator = z
  .strictObject({
    divergence: z
      .number()
      .min(0)
      .max(1)
      .default(SIM_DIVERGENCE)
      .openapi({ description: "Probability that a replay departs from the query's usual tool sequence" }),
    latency_ms: SimLatency,
  })
  .optional()
  .openapi({ description: "`sim:*` models only" });

/** The simulator knobs of evaluators whose simulated answers have no other setting (rpl). */
export const LatencySimulator = z
  .strictObject({ latency_ms: SimLatency })
  .optional()
  .openapi({ description: "`sim:*` models only" });

/**
 * The request fields that say which model to call, shared by every run evaluator: an
 * OpenAI-compatible endpoint (`provider.base_url` + `provider.api_key`), or the built-in simulator
 * (`model: "sim:…"`, no provider, no network).
 */
export const ModelFields = {
  model: z.string().min(1).max(200).openapi({
    description: "The model name the endpoint expects, or `sim:<anything>` for the built-in simulator",
    example: "sim:agent",
  }),
  provider: Provider.optional(),
  timeout_s: callTimeoutField(),
  seed: z
    .number()
    .int()
    .min(0)
    .max(2 ** 31 - 1)
    .optional()
    .openapi({ description: "Sent as `seed` to providers that take one; seeds the simulator" }),
};

/** Whether a request names the simulator: `sim:` and anything after it (as every evaluator has always read it). */
export function isSim(model: string): boolean {
  return model.startsWith("sim:");
}

/**
 * The one check of "the simulator or an endpoint" for a model named in a request (a run's model, a judge
 * critic, a reasoning-quality model or backend): a `sim:*` model takes no endpoint (`provider`, `vendor`),
 * any other needs one (`endpoint`: its resolved base URL, if the request gives one), and simulator knobs
 * are for `sim:*` models only. `at` prefixes each path (`critics.0.`); the messages are the same everywhere.
 */
export function simulatorOrEndpoint(
  at: string,
  m: { model: string; provider?: unknown; vendor?: unknown; simulator?: unknown; endpoint: string | null | undefined },
): FieldError[] {
  const errors: FieldError[] = [];
  if (isSim(m.model)) {
    if (m.vendor) errors.push({ path: `${at}vendor`, message: "the simulator (sim:*) takes no vendor" });
    if (m.provider) errors.push({ path: `${at}provider`, message: "the simulator (sim:*) takes no provider" });
    return errors;
  }
  if (m.simulator) errors.push({ path: `${at}simulator`, message: "only for sim:* models" });
  if (!m.endpoint) {
    errors.push(
      m.provider
        ? { path: `${at}provider.base_url`, message: "required unless provider.connection names a saved connection" }
        : {
            path: `${at}provider`,
            message: "required unless model is sim:* (provider.base_url and provider.api_key, or provider.connection)",
          },
    );
  }
  return errors;
}

/**
 * Splits the model fields into the stored config (no secret) and the run's secrets (the API key), the
 * request's `provider` resolved first (a saved connection becomes its URL and key; every URL is checked
 * under the Worker's destination setting, `ctx.allowLoopback`). `simulatorDefaults` are the
 * evaluator's own knobs, so a config holds only those. A config whose endpoint came from a connection
 * names it (`provider.connection`).
 */
export async function modelConfig(
  body: {
    model: string;
    provider?: ProviderRef;
    timeout_s: number;
    seed?: number;
    simulator?: { divergence?: number; latency_ms: number };
  },
  simulatorDefaults: ModelSettings["simulator"] & object,
  ctx: Pick<CreateContext, "env" | "db" | "tenantId" | "allowLoopback">,
): Promise<{ config: ModelSettings; secrets?: Record<string, string> }> {
  const sim = isSim(body.model);
  const [provider] = await resolveProviders(ctx, [["provider", body.provider]]);
  const errors = simulatorOrEndpoint("", { ...body, endpoint: provider?.base_url });
  if (errors.length) throw ApiError.validation(errors);
  return {
    config: {
      model: body.model,
      provider: provider?.base_url
        ? { base_url: provider.base_url, ...(provider.connection ? { connection: provider.connection } : {}) }
        : null,
      timeout_s: body.timeout_s,
      seed: body.seed ?? null,
      simulator: sim ? { ...simulatorDefaults, ...body.simulator } : null,
    },
    secrets: provider?.api_key ? { [PROVIDER_SECRET]: provider.api_key } : undefined,
  };
}
