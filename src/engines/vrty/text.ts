import { STOPWORD_SET } from "./stopwords.ts";
// `Intern` is declared beside the cache that calls it, so that token-cache.ts needs nothing from here.
import { cachedTokenId, FNV_OFFSET, FNV_PRIME, resetTokenCache, type Intern } from "./token-cache.ts";

/** Each of prompt and response is cut to its first MAX_TOKENS tokens, stopwords included (§2.1). */
export const MAX_TOKENS = 2048;

const ASCII_ONLY = /^[\x00-\x7f]*$/;
const NON_ASCII = /[^\x00-\x7f]+/g;

/**
 * Normalisation of spec §2.1: NFKD, drop every code unit above U+007F, lowercase.
 *
 * Pure-ASCII text skips NFKD, which is the identity on ASCII and the most expensive step.
 * Dropping by UTF-16 code unit also removes lone surrogates. `toLowerCase` (never the
 * locale form) sees only ASCII here, so it cannot depend on the runtime's locale or ICU data.
 */
export function normalise(text: string): string {
  const ascii = ASCII_ONLY.test(text) ? text : text.normalize("NFKD").replace(NON_ASCII, "");
  return ascii.toLowerCase();
}

// Character classes of the normalised text, which is all ASCII; any other character keeps the
// table's initial 0.
const TOKEN = 1; // [a-z0-9]
const SPACE = 2; // ASCII whitespace other than newlines: \t \v \f and space
const NEWLINE = 3; // \r \n: every run is a sentence break (§2.3)
const TERMINAL = 4; // . ! ?: a run breaks only if whitespace or the end of text follows

const CLASS = new Uint8Array(128);
for (let c = 0x30; c <= 0x39; c++) CLASS[c] = TOKEN;
for (let c = 0x61; c <= 0x7a; c++) CLASS[c] = TOKEN;
for (const c of [0x09, 0x0b, 0x0c, 0x20]) CLASS[c] = SPACE;
CLASS[0x0a] = NEWLINE;
CLASS[0x0d] = NEWLINE;
for (const c of [0x21, 0x2e, 0x3f]) CLASS[c] = TERMINAL;
// Upper case never reaches the scanner (normalise lowercases), so A-Z stay 0.

/**
 * All tokens of `text` (spec §2.1): maximal runs of [a-z0-9] in the normalised text, stopwords
 * included, no truncation. This is what the IDF builder windows over.
 */
export function tokenize(text: string): string[] {
  const s = normalise(text);
  const out: string[] = [];
  const n = s.length;
  let i = 0;
  while (i < n) {
    if (CLASS[s.charCodeAt(i)] !== TOKEN) {
      i++;
      continue;
    }
    const start = i;
    do i++;
    while (i < n && CLASS[s.charCodeAt(i)] === TOKEN);
    out.push(s.slice(start, i));
  }
  return out;
}

export { resetTokenCache };

/** Counts reported by {@link scanText}; the ids themselves go into caller-owned buffers. */
export type ScanCounts = { total: number; content: number; sentences: number };

/**
 * One pass over a text for scoring: normalise, tokenise, truncate at MAX_TOKENS (§2.1) and
 * split into sentences (§2.3), without allocating per-token objects.
 *
 * - `intern` decides which tokens are content tokens and names them: it returns -1 for a
 *   stopword, else an id; `contentIds[0..content)` receives those ids in text order.
 * - If `sentenceEnds` is given, `sentenceEnds[0..sentences)` receives the exclusive end index
 *   (into `contentIds`) of every kept sentence, i.e. every sentence with ≥ 1 content token.
 *
 * Within one call sequence (see {@link resetTokenCache}) `intern` must be a pure function of
 * the token: repeated tokens are answered from a cache.
 *
 * Stopping right after the 2048th token is the same as cutting the normalised string at that
 * token's end offset: no later character can add a token or a sentence break before it.
 * Sentence breaks only ever fall between tokens, so a stopword-only sentence simply merges
 * into the next one, which has the same effect on content vectors as dropping it.
 */
export function scanText(
  text: string,
  intern: Intern,
  contentIds: Int32Array,
  sentenceEnds: Int32Array | null,
): ScanCounts {
  const s = normalise(text);
  const n = s.length;
  let total = 0;
  let content = 0;
  let sentences = 0;
  let sentenceStart = 0;
  let pendingBreak = false;
  let i = 0;
  while (i < n) {
    let c = s.charCodeAt(i);
    const k = CLASS[c];
    if (k === TOKEN) {
      const start = i;
      let h = FNV_OFFSET;
      do {
        h = Math.imul(h ^ c, FNV_PRIME);
        if (++i === n) break;
        c = s.charCodeAt(i);
      } while (CLASS[c] === TOKEN);
      const id = cachedTokenId(s, start, i, h, intern);
      if (id >= 0) {
        if (pendingBreak && sentenceEnds !== null && content > sentenceStart) {
          sentenceEnds[sentences++] = content;
          sentenceStart = content;
        }
        pendingBreak = false;
        contentIds[content++] = id;
      }
      if (++total === MAX_TOKENS) break;
      continue;
    }
    if (k === NEWLINE) {
      pendingBreak = true;
    } else if (k === TERMINAL) {
      const next = i + 1 < n ? CLASS[s.charCodeAt(i + 1)] : SPACE;
      if (next === SPACE || next === NEWLINE) pendingBreak = true;
    }
    i++;
  }
  if (sentenceEnds !== null && content > sentenceStart) sentenceEnds[sentences++] = content;
  return { total, content, sentences };
}

/**
 * Sentences of `text` as lists of content tokens (§2.3), for tests and diagnostics; scoring
 * uses {@link scanText} directly.
 */
export function contentSentences(text: string): string[][] {
  const ids = new Map<string, number>();
  const list: string[] = [];
  const intern: Intern = (str, start, end) => {
    const tok = str.slice(start, end);
    if (STOPWORD_SET.has(tok)) return -1;
    let id = ids.get(tok);
    if (id === undefined) {
      id = list.push(tok) - 1;
      ids.set(tok, id);
    }
    return id;
  };
  const idsBuf = new Int32Array(MAX_TOKENS);
  const ends = new Int32Array(MAX_TOKENS);
  resetTokenCache();
  const { sentences } = scanText(text, intern, idsBuf, ends);
  const out: string[][] = [];
  let start = 0;
  for (let j = 0; j < sentences; j++) {
    const sentence: string[] = [];
    for (let t = start; t < ends[j]; t++) sentence.push(list[idsBuf[t]]);
    out.push(sentence);
    start = ends[j];
  }
  return out;
}
