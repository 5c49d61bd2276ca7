import { classifyHostAddress, type AddressKind } from "./ip.ts";

/**
 * Where the API may send a request of its own (a webhook delivery, a model call): the one policy,
 * applied to the text of a URL when a run is created and again to every request when it is sent.
 *
 * Refused, whatever the setting: schemes other than http(s); credentials in the URL (`user:pw@`) or
 * in its query (`?api_key=…`), which would be stored and shown with the URL; private, shared (CGNAT),
 * link-local, unspecified, reserved and cloud-metadata addresses, in every spelling the URL parser
 * accepts (see ip.ts); single-label and special-use local names (`metadata`, `*.internal`, `*.local`).
 * Loopback (127.0.0.0/8, ::1, `localhost`, `*.localhost`) only where `allowLoopback` is set, which is
 * local development. A host name is judged by its text: a Worker cannot resolve names itself, so a
 * public name whose DNS answer is private is not caught here.
 */
export type DestinationPolicy = {
  /** Loopback destinations are accepted (local development only). */
  allowLoopback: boolean;
  /** Plain http for any host (model endpoints, often local servers over a tunnel) or for loopback only (webhooks). */
  http: "any" | "loopback";
};

/** The development setting, read from the Worker's env: only `.dev.vars` and the test bindings set it. */
export function loopbackAllowed(env: { ALLOW_LOOPBACK_DESTINATIONS?: string }): boolean {
  return env.ALLOW_LOOPBACK_DESTINATIONS === "true";
}

/** Webhook targets: https, or loopback http where loopback is allowed. */
export const webhookPolicy = (allowLoopback: boolean): DestinationPolicy => ({ allowLoopback, http: "loopback" });

/** OpenAI-compatible endpoints (`provider.base_url`): http or https. */
export const endpointPolicy = (allowLoopback: boolean): DestinationPolicy => ({ allowLoopback, http: "any" });

/** Names that reach a cloud's instance-metadata service. */
const METADATA_NAMES = new Set([
  "metadata.google.internal",
  "metadata.goog",
  "metadata",
  "instance-data",
  "instance-data.ec2.internal",
]);

/** Special-use suffixes that name hosts of a local network, never public ones (RFC 6762, RFC 8375, ICANN's `.internal`). */
const LOCAL_SUFFIXES = ["local", "localdomain", "internal", "home.arpa"];

/**
 * Query parameters that carry a credential. A name is split into words (`api_key`, `apiKey`,
 * `X-Api-Key` → api, key) and refused if it is one of WHOLE or ends in one of LAST_WORDS; refusing a
 * harmless `sort_key` costs a rename, accepting a key leaks it.
 */
const SECRET_WHOLE = new Set(["apikey", "auth", "authorization", "bearer", "jwt", "session", "sessionid"]);
const SECRET_LAST_WORDS = new Set([
  "key",
  "token",
  "secret",
  "password",
  "passwd",
  "pwd",
  "passphrase",
  "signature",
  "sig",
  "credential",
  "credentials",
]);

export function isSecretParameter(name: string): boolean {
  const words = name
    .replace(/([a-z0-9])([A-Z])/g, "$1_$2")
    .toLowerCase()
    .split(/[^a-z0-9]+/)
    .filter(Boolean);
  if (!words.length) return false;
  return SECRET_WHOLE.has(words.join("")) || SECRET_LAST_WORDS.has(words[words.length - 1]);
}

const REFUSED: Record<Exclude<AddressKind, "public" | "loopback">, string> = {
  private: "private address",
  "link-local": "link-local address",
  unspecified: "unspecified address",
  metadata: "metadata address",
  reserved: "reserved address",
};

/** Why the host of a parsed URL is refused, or null. Loopback is reported apart (the caller decides). */
function hostProblem(url: URL): { loopback: true } | { problem: string } | null {
  const address = classifyHostAddress(url.hostname);
  if (address) {
    if (address.kind === "public") return null;
    if (address.kind === "loopback") return { loopback: true };
    const shown = url.hostname.replace(/^\[|\]$/g, "") + (address.ipv4 ? ` (${address.ipv4})` : "");
    return { problem: `${REFUSED[address.kind]} ${shown} is not allowed` };
  }
  // A trailing dot is the same name to DNS ("localhost." is localhost).
  const name = url.hostname.replace(/\.+$/, "");
  if (name === "localhost" || name.endsWith(".localhost")) return { loopback: true };
  if (METADATA_NAMES.has(name)) return { problem: `metadata host ${name} is not allowed` };
  if (!name.includes(".") || LOCAL_SUFFIXES.some((s) => name.endsWith(`.${s}`))) {
    return { problem: `local host name ${name} is not allowed: use a public host name` };
  }
  return null;
}

/** Whether `raw` names a loopback host (127.0.0.0/8, ::1, `localhost`, in any spelling), read as the policy reads it. */
export function isLoopbackDestination(raw: string): boolean {
  try {
    const host = hostProblem(new URL(raw));
    return host !== null && "loopback" in host;
  } catch {
    return false;
  }
}

/**
 * Why `raw` may not be a destination under `policy`, or null when it may. The messages are meant for
 * a problem's `errors[].message` under the field's own path.
 */
export function destinationProblem(raw: string, policy: DestinationPolicy): string | null {
  if (raw.trim() === "") return "must not be empty";
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    return "must be an absolute URL";
  }
  if (url.protocol !== "https:" && url.protocol !== "http:")
    return policy.http === "any" ? "must use http or https" : "must use https";
  if (url.username || url.password) return "must not contain credentials";
  const secrets = [...new Set([...url.searchParams.keys()].filter(isSecretParameter))];
  if (secrets.length) return `must not carry credentials in its query string (${secrets.join(", ")})`;
  const host = hostProblem(url);
  if (host && "problem" in host) return host.problem;
  if (host?.loopback) return policy.allowLoopback ? null : "loopback addresses are accepted only in local development";
  if (url.protocol === "http:" && policy.http === "loopback") return "must use https";
  return null;
}
