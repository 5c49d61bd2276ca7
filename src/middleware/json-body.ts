import type { MiddlewareHandler } from "hono";
import { bodyLimit } from "hono/body-limit";
import { ApiError } from "../errors.ts";

const JSON_TYPE = /^application\/([\w.+-]+\+)?json\s*(;|$)/i;

function formatBytes(n: number): string {
  return n % (1024 * 1024) === 0 ? `${n / (1024 * 1024)} MiB` : `${n} bytes`;
}

/**
 * Guards a route that takes a JSON body: a body of another media type is a 415 and a body past
 * `maxBytes` a 413 whose detail states the limit. A request with no body at all falls through to
 * validation, which then names the missing fields.
 */
export function jsonBody(maxBytes: number): MiddlewareHandler[] {
  const mediaType: MiddlewareHandler = async (c, next) => {
    const hasBody = c.req.header("content-length") ? c.req.header("content-length") !== "0" : c.req.raw.body !== null;
    const type = c.req.header("content-type");
    if (hasBody && !(type && JSON_TYPE.test(type))) {
      throw new ApiError({
        status: 415,
        type: "unsupported-media-type",
        detail: `Send the body as application/json (got ${type ? `'${type}'` : "no Content-Type"}).`,
        headers: { "Accept-Post": "application/json" },
      });
    }
    await next();
  };
  const size = bodyLimit({
    maxSize: maxBytes,
    onError: () => {
      throw new ApiError({
        status: 413,
        type: "payload-too-large",
        detail: `The request body exceeds this route's limit of ${formatBytes(maxBytes)} (${maxBytes} bytes).`,
      });
    },
  });
  return [mediaType, size];
}
