/** Text helpers for the XML-based outputs (SVG, and the strings inside the XLSX). */

/**
 * Characters XML 1.0 cannot carry at all, not even as character references: C0 controls other
 * than tab/LF/CR, lone surrogates, U+FFFE and U+FFFF. A model name holding one would make the
 * whole SVG or workbook unreadable, so they are dropped rather than escaped.
 */
const XML_INVALID =
  /[\u0000-\u0008\u000B\u000C\u000E-\u001F\uFFFE\uFFFF]|[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/g;

/** `s` without the characters XML 1.0 forbids. */
export function xmlSafe(s: string): string {
  return s.replace(XML_INVALID, "");
}

const ENTITIES: Record<string, string> = { "&": "&amp;", "<": "&lt;", ">": "&gt;", '"': "&quot;", "'": "&apos;" };

/** `s` made safe for XML text and for attribute values in either kind of quotes. */
export function escapeXml(s: string): string {
  return xmlSafe(s).replace(/[&<>"']/g, (c) => ENTITIES[c]);
}
