/**
 * Removes credentials from text that may be stored or returned (error messages above all). The
 * patterns are those of the chain-determinism harness, applied in its order, plus our own key format.
 */
export function scrubSecrets(text: string): string {
  return text
    .replace(/sk-[A-Za-z0-9_\-]{10,}/g, "sk-<REDACTED>")
    .replace(/assay_sk_[A-Za-z0-9_\-]+/g, "assay_sk_<REDACTED>")
    .replace(/(bearer)\s+[A-Za-z0-9_\-.=]+/gi, "$1 <REDACTED>")
    .replace(/(authorization|api[_\-]?key|x-api-key)(\s*[:=]\s*["']?)([^\s"',<>]+)/gi, "$1$2<REDACTED>");
}
