import type { Context } from "hono";
import type { ContentfulStatusCode } from "hono/utils/http-status";
import { invalidFieldsDetail } from "./json/field-errors.ts";

/**
 * The one error type of the API. Code below the routes throws it; `renderProblem` (used by the root
 * `onError`, `notFound` and the validation hook) is the only place that writes problem+json (RFC 9457).
 */
export type FieldError = { path: string; message: string };

/** Problem types, documented in docs/errors.md. Relative URIs resolve against the API's own origin. */
export const PROBLEM_TYPES = {
  validation: "Validation failed",
  "malformed-json": "Malformed JSON",
  "unsupported-media-type": "Unsupported media type",
  "payload-too-large": "Payload too large",
  unauthenticated: "Unauthenticated",
  "not-found": "Not found",
  "method-not-allowed": "Method not allowed",
  conflict: "Conflict",
  "limit-exceeded": "Limit exceeded",
  "quota-exceeded": "Quota exceeded",
  "idempotency-mismatch": "Idempotency key reused",
  internal: "Internal server error",
} as const;
export type ProblemType = keyof typeof PROBLEM_TYPES;

export type ApiErrorInit = {
  status: number;
  type: ProblemType;
  detail: string;
  errors?: FieldError[];
  headers?: Record<string, string>;
  /** RFC 9457 extension members, written beside the standard ones (a quota's name and limit). */
  extensions?: { quota?: string; limit?: number };
  cause?: unknown;
};

export class ApiError extends Error {
  readonly status: number;
  readonly type: ProblemType;
  readonly detail: string;
  readonly errors?: FieldError[];
  readonly headers?: Record<string, string>;
  readonly extensions?: ApiErrorInit["extensions"];

  constructor(init: ApiErrorInit) {
    super(init.detail, { cause: init.cause });
    this.name = "ApiError";
    this.status = init.status;
    this.type = init.type;
    this.detail = init.detail;
    this.errors = init.errors;
    this.headers = init.headers;
    this.extensions = init.extensions;
  }

  get title(): string {
    return PROBLEM_TYPES[this.type];
  }

  static validation(errors: FieldError[], detail?: string): ApiError {
    return new ApiError({
      status: 400,
      type: "validation",
      detail: detail ?? invalidFieldsDetail(errors),
      errors,
    });
  }

  static notFound(what: string): ApiError {
    return new ApiError({ status: 404, type: "not-found", detail: `${what} was not found.` });
  }

  static unauthenticated(detail: string): ApiError {
    return new ApiError({
      status: 401,
      type: "unauthenticated",
      detail,
      headers: { "WWW-Authenticate": 'Bearer realm="assay"' },
    });
  }
}

export type Problem = {
  type: string;
  title: string;
  status: number;
  detail: string;
  request_id: string;
  errors?: FieldError[];
  quota?: string;
  limit?: number;
};

export function problemBody(err: ApiError, requestId: string): Problem {
  const body: Problem = {
    type: `/problems/${err.type}`,
    title: err.title,
    status: err.status,
    detail: err.detail,
    request_id: requestId,
  };
  if (err.errors) body.errors = err.errors;
  return { ...body, ...err.extensions };
}

/**
 * Writes the problem response through Hono's context, so headers set earlier in the chain
 * (the request id above all) are kept.
 */
export function renderProblem(c: Context, err: ApiError): Response {
  const body = problemBody(err, c.get("requestId") ?? "");
  return c.body(JSON.stringify(body), err.status as ContentfulStatusCode, {
    ...err.headers,
    "Content-Type": "application/problem+json",
  });
}
