/**
 * The vrty v1 English stopword list (spec vrty.md §2.2).
 *
 * Origin: the NLTK English stopword list (NLTK, Apache-2.0), which derives from the Snowball
 * English stop list (Snowball, BSD licence, Martin Porter and Richard Boulton). We keep its 153
 * apostrophe-free entries and drop the 26 apostrophe forms such as "you're": our tokenizer
 * (§2.1) splits those into fragments ("you", "re") that the list already holds.
 *
 * Changing a single word changes every score, so it requires a `VRTY_VERSION` bump and a
 * rebuilt IDF table (the table records {@link STOPWORDS_SHA256}).
 */
export const STOPWORDS: readonly string[] = Object.freeze(
  (
    "i me my myself we our ours ourselves you your yours yourself yourselves he him his himself " +
    "she her hers herself it its itself they them their theirs themselves what which who whom " +
    "this that these those am is are was were be been being have has had having do does did " +
    "doing a an the and but if or because as until while of at by for with about against " +
    "between into through during before after above below to from up down in out on off over " +
    "under again further then once here there when where why how all any both each few more " +
    "most other some such no nor not only own same so than too very s t can will just don " +
    "should now d ll m o re ve y ain aren couldn didn doesn hadn hasn haven isn ma mightn " +
    "mustn needn shan shouldn wasn weren won wouldn"
  ).split(" "),
);

/** Membership test used on every token; a Set keeps it O(1) on the hot path. */
export const STOPWORD_SET: ReadonlySet<string> = new Set(STOPWORDS);

/**
 * SHA-256 (hex) of the list sorted ascending by code unit, joined by "\n", with a trailing "\n".
 * It is a constant, not computed, because `buildIdfTable` is synchronous and WebCrypto is not;
 * a unit test recomputes it so the two cannot drift apart.
 */
export const STOPWORDS_SHA256 = "ca1904afa9752b85e26d5c4998bb7ed1ed30de40945bea384cdeb068c32741b2";

/** The exact text hashed into {@link STOPWORDS_SHA256}. */
export function stopwordsCanonicalText(): string {
  return [...STOPWORDS].sort().join("\n") + "\n";
}
