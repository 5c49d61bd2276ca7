/**
 * Webhook targets must be https. Plain http is accepted only for loopback hosts, and only where
 * ALLOW_LOOPBACK_WEBHOOKS is "true" (local development), so a deployment cannot be pointed at
 * its own network.
 */
export function webhookUrlProblem(raw: string, allowLoopback: boolean): string | null {
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    return "must be an absolute URL";
  }
  const host = url.hostname.replace(/^\[|\]$/g, "");
  const loopback = host === "localhost" || host === "::1" || /^127\.\d+\.\d+\.\d+$/.test(host);
  if (loopback) return allowLoopback ? null : "loopback addresses are accepted only in local development";
  if (url.protocol !== "https:") return "must use https";
  if (url.username || url.password) return "must not contain credentials";
  return null;
}
