import type { MiddlewareHandler } from "hono";
import { ApiError } from "../errors.ts";
import { LIMITS } from "../limits.ts";
import { checkJson } from "../json/strict-json.ts";

// Exactly the Content-Types @hono/zod-openapi's body gate lets through (its `jsonRequestRegex`): a type
// it would refuse must be refused here first, as our problem+json 415, not as its bare HTTPException.
const JSON_TYPE = /^application\/([a-z-.]+\+)?json(;\s*[a-zA-Z0-9-]+=([^;]+))*$/i;

/**
 * Content codings a body may arrive in, and the DecompressionStream format for each. `x-gzip` is
 * gzip's old alias (RFC 9110 §8.4.1.3). Brotli and zstd are not decodable in a Worker's standard
 * streams, so they are refused like any unknown coding.
 */
const CODINGS: Record<string, "gzip" | "deflate"> = { gzip: "gzip", "x-gzip": "gzip", deflate: "deflate" };
const ACCEPT_ENCODING = "gzip, deflate";

function formatBytes(n: number): string {
  return n % (1024 * 1024) === 0 ? `${n / (1024 * 1024)} MiB` : `${n} bytes`;
}

function tooLarge(maxBytes: number, decodedFrom?: string): ApiError {
  const what = decodedFrom ? `The request body, decoded from ${decodedFrom},` : "The request body";
  return new ApiError({
    status: 413,
    type: "payload-too-large",
    detail: `${what} exceeds this route's limit of ${formatBytes(maxBytes)} (${maxBytes} bytes).`,
  });
}

/**
 * The one content coding of a request, or null for none/identity.
 * @throws ApiError 415 for a coding we cannot decode or a chain of several (RFC 7694: the answer lists
 * what we accept in `Accept-Encoding`).
 */
function contentCoding(header: string | undefined): string | null {
  const codings = (header ?? "")
    .split(",")
    .map((s) => s.trim().toLowerCase())
    .filter((s) => s !== "" && s !== "identity");
  if (codings.length === 0) return null;
  if (codings.length === 1 && Object.hasOwn(CODINGS, codings[0])) return codings[0];
  throw new ApiError({
    status: 415,
    type: "unsupported-media-type",
    detail: `Content-Encoding '${header}' is not supported: send the body as is, or with one of ${ACCEPT_ENCODING}.`,
    headers: { "Accept-Encoding": ACCEPT_ENCODING },
  });
}

/** Passes bytes through, failing the stream once more than `max` have gone by (the compressed side of a coded body). */
function capped(max: number, onOver: () => ApiError): TransformStream<Uint8Array, Uint8Array> {
  let seen = 0;
  return new TransformStream({
    transform(chunk, controller) {
      seen += chunk.byteLength;
      if (seen > max) controller.error(onOver());
      else controller.enqueue(chunk);
    },
  });
}

/**
 * Reads the whole stream, but never more than `max` bytes of it: past that it cancels the stream
 * (and so whatever feeds it, a decompressor included) and throws `onOver()`. A zip bomb therefore
 * costs at most `max` bytes of memory.
 */
async function readAtMost(
  stream: ReadableStream<Uint8Array>,
  max: number,
  onOver: () => ApiError,
): Promise<Uint8Array> {
  const reader = stream.getReader();
  const chunks: Uint8Array[] = [];
  let total = 0;
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    total += value.byteLength;
    if (total > max) {
      reader.cancel().catch(() => {});
      throw onOver();
    }
    chunks.push(value);
  }
  const out = new Uint8Array(total);
  let at = 0;
  for (const c of chunks) {
    out.set(c, at);
    at += c.byteLength;
  }
  return out;
}

/**
 * Reads a request's body as text, decoding its content coding, with `maxBytes` applied to the raw
 * body and again to the decoded one.
 */
async function readBody(raw: Request, maxBytes: number, coding: string | null): Promise<string> {
  const declared = Number(raw.headers.get("content-length"));
  if (Number.isFinite(declared) && declared > maxBytes) throw tooLarge(maxBytes);
  if (raw.body === null) return "";
  let bytes: Uint8Array;
  if (coding === null) {
    bytes = await readAtMost(raw.body, maxBytes, () => tooLarge(maxBytes));
  } else {
    // The compressed side's own 413, kept here because a pipe may hand the reader another error for it.
    const compressed: { over: ApiError | null } = { over: null };
    const decoded = raw.body
      .pipeThrough(capped(maxBytes, () => (compressed.over = tooLarge(maxBytes))))
      .pipeThrough(new DecompressionStream(CODINGS[coding]));
    try {
      bytes = await readAtMost(decoded, maxBytes, () => tooLarge(maxBytes, coding));
    } catch (e) {
      if (e instanceof ApiError) throw e;
      if (compressed.over) throw compressed.over;
      // What the decompressor throws on bytes that are not its format (or a truncated stream).
      throw new ApiError({
        status: 400,
        type: "malformed-json",
        detail: `The request body is not valid ${coding} data (it says Content-Encoding: ${coding}).`,
        cause: e,
      });
    }
  }
  // As Response.text() decodes: UTF-8, a leading BOM dropped, invalid bytes replaced.
  return new TextDecoder().decode(bytes);
}

/**
 * Guards a route that takes a JSON body, before any validation or handler reads it:
 *
 * - a body of another media type is a 415, and so is a `Content-Encoding` other than gzip or deflate
 *   (those two are decoded);
 * - a body past `maxBytes` is a 413 whose detail states the limit; for a compressed body the limit
 *   applies to the decoded size too, and reading stops there;
 * - an empty body with a JSON type, or one that is not JSON, is a 400 `malformed-json` saying where;
 * - a body nesting deeper than `LIMITS.jsonDepth` or repeating a key is a 400 `validation` naming the
 *   path, found by one iterative scan, so that nothing recursive (zod, `JSON.stringify`, structured
 *   clone, hashing) ever sees a body deep enough to overflow a stack.
 *
 * The text it read is left in Hono's body cache, which is where `c.req.json()` (and so the route's
 * validator) reads it from. A request with no body and no Content-Type falls through to validation,
 * which then names the missing fields.
 */
export function jsonBody(maxBytes: number): MiddlewareHandler[] {
  const guard: MiddlewareHandler = async (c, next) => {
    const length = c.req.header("content-length");
    const hasBody = length ? length !== "0" : c.req.raw.body !== null;
    const type = c.req.header("content-type");
    const isJson = type !== undefined && JSON_TYPE.test(type);
    if (hasBody && !isJson) {
      throw new ApiError({
        status: 415,
        type: "unsupported-media-type",
        detail: `Send the body as application/json (got ${type ? `'${type}'` : "no Content-Type"}).`,
        headers: { "Accept-Post": "application/json" },
      });
    }
    if (!isJson) return next();
    const coding = contentCoding(c.req.header("content-encoding"));
    const text = await readBody(c.req.raw, maxBytes, coding);
    if (/^[ \t\r\n]*$/.test(text)) {
      throw new ApiError({
        status: 400,
        type: "malformed-json",
        detail: "The request body is empty: send a JSON object.",
      });
    }
    const check = checkJson(text, { maxDepth: LIMITS.jsonDepth });
    if (!check.ok && "syntax" in check) {
      const { message, line, column } = check.syntax;
      throw new ApiError({
        status: 400,
        type: "malformed-json",
        detail: `The request body is not valid JSON: ${message} at line ${line}, column ${column}.`,
      });
    }
    if (!check.ok) throw ApiError.validation(check.fields);
    // Hono types the cache by value, but keeps (and awaits) promises there: c.req.json() is
    // `bodyCache.text.then(JSON.parse)`, so the validator parses exactly the text checked above.
    (c.req.bodyCache as { text?: Promise<string> }).text = Promise.resolve(text);
    await next();
  };
  return [guard];
}
