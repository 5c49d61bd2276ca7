/**
 * A text too long for one stored value, cut into pieces that each fit: a Durable Object's or D1's
 * value is at most 2 MB and a UTF-16 unit is at most 3 UTF-8 bytes, so 500,000 units always fit.
 * Cuts never fall inside a surrogate pair (SQLite would store each half as U+FFFD). Joined in order,
 * the pieces are the text.
 */
export const CHUNK_UNITS = 500_000;

export function chunksOf(text: string, units = CHUNK_UNITS): string[] {
  const out: string[] = [];
  for (let at = 0; at < text.length; ) {
    let end = Math.min(at + units, text.length);
    if (end < text.length && /[\uDC00-\uDFFF]/.test(text[end])) end--;
    out.push(text.slice(at, end));
    at = end;
  }
  return out;
}
