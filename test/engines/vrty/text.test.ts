import { describe, expect, it } from "vitest";
import { MAX_TOKENS, tokenize } from "../../../src/engines/vrty/index.ts";
import { contentSentences, normalise } from "../../../src/engines/vrty/text.ts";

describe("normalise (spec §2.1)", () => {
  it.each([
    ["Pàris ÏS Thé", "paris is the"],
    ["ﬁne Ｆｕｌｌ", "fine full"],
    ["straße øl łódź", "strae l odz"],
    ["巴黎 Paris", " paris"],
    ["\ud800lone\udfff", "lone"],
    ["İstanbul", "istanbul"],
  ])("normalises %j to %j", (input, expected) => {
    expect(normalise(input)).toBe(expected);
  });
});

describe("tokenize (spec §2.1)", () => {
  it("splits on everything outside [a-z0-9], keeping stopwords and numbers", () => {
    expect(tokenize("Paris is the capital of France.")).toEqual(["paris", "is", "the", "capital", "of", "france"]);
    expect(tokenize("isn't 3.14 e-mail_x")).toEqual(["isn", "t", "3", "14", "e", "mail", "x"]);
  });

  it("returns no tokens for text without [a-z0-9]", () => {
    expect(tokenize("")).toEqual([]);
    expect(tokenize("?! —— 日本")).toEqual([]);
  });

  it("does not truncate (the IDF builder needs every token)", () => {
    expect(tokenize("a ".repeat(MAX_TOKENS + 5))).toHaveLength(MAX_TOKENS + 5);
  });
});

describe("sentences (spec §2.3)", () => {
  it("splits at . ! ? runs followed by whitespace or end, and at newline runs", () => {
    expect(contentSentences("Paris big. London small?! Rome\n\nBerlin\r\nMadrid...")).toEqual([
      ["paris", "big"],
      ["london", "small"],
      ["rome"],
      ["berlin"],
      ["madrid"],
    ]);
  });

  it("does not split decimals or a terminator followed by a non-space", () => {
    expect(contentSentences("Pi is 3.14 roughly.Really")).toEqual([["pi", "3", "14", "roughly", "really"]]);
  });

  it("splits abbreviations followed by a space (documented limitation)", () => {
    expect(contentSentences("Fruit e.g. apples")).toEqual([["fruit", "e", "g"], ["apples"]]);
  });

  it("drops sentences without content tokens", () => {
    expect(contentSentences("Paris. It is. Is it? London.")).toEqual([["paris"], ["london"]]);
    expect(contentSentences("It is. ...")).toEqual([]);
  });

  it("splits tabs and form feeds after a terminator, but not other characters", () => {
    expect(contentSentences("a1.\tb2!\fc3?,d4")).toEqual([["a1"], ["b2"], ["c3", "d4"]]);
  });

  it("cuts after the 2048th token before splitting", () => {
    const text = "word ".repeat(MAX_TOKENS - 1) + "last. extra. more";
    const sentences = contentSentences(text);
    expect(sentences).toHaveLength(1);
    expect(sentences[0]).toHaveLength(MAX_TOKENS);
    expect(sentences[0].at(-1)).toBe("last");
  });
});
