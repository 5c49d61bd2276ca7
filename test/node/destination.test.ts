// Issue 14, item 4: requests to where they must not go (webhook_url and provider.base_url), and item 5:
// credentials in URLs.
import { describe, expect, it } from "vitest";
import {
  destinationProblem,
  endpointPolicy,
  isSecretParameter,
  loopbackAllowed,
  webhookPolicy,
} from "../../src/net/destination.ts";
import { classifyHostAddress, parseIPv6 } from "../../src/net/ip.ts";
import { LOOPBACK_REFUSED, LOOPBACK_SPELLINGS, REFUSED_HOSTS, REFUSED_TEXT } from "../support/destination-cases.ts";

const production = endpointPolicy(false);
const development = endpointPolicy(true);

describe("destinationProblem: what the URL parser already normalises", () => {
  it.each(LOOPBACK_SPELLINGS)("%s is loopback: refused in production, accepted in development", (url) => {
    expect(destinationProblem(url, production)).toBe(LOOPBACK_REFUSED);
    expect(destinationProblem(url, development)).toBeNull();
  });
});

describe("destinationProblem: refused whatever the setting", () => {
  it.each(REFUSED_HOSTS)("%s → %s", (url, message) => {
    expect(destinationProblem(url, development)).toBe(message);
    expect(destinationProblem(url, production)).toBe(message);
  });

  it.each(REFUSED_TEXT)("%j → %s", (url, message) => {
    expect(destinationProblem(url, development)).toBe(message);
  });

  it("accepts public destinations as they are", () => {
    for (const url of [
      "https://openrouter.ai/api/v1",
      "http://api.example.com:8000/v1",
      "https://1.1.1.1/",
      "https://[2606:4700::1111]/",
      "https://hooks.example.com/h?id=42&run=a",
    ]) {
      expect(destinationProblem(url, production), url).toBeNull();
    }
  });
});

describe("webhook policy", () => {
  it("takes https anywhere public, and plain http only for loopback in development", () => {
    expect(destinationProblem("https://hooks.example.com/x", webhookPolicy(false))).toBeNull();
    expect(destinationProblem("http://hooks.example.com/x", webhookPolicy(true))).toBe("must use https");
    expect(destinationProblem("http://127.0.0.1:9999/h", webhookPolicy(true))).toBeNull();
    expect(destinationProblem("http://127.0.0.1:9999/h", webhookPolicy(false))).toBe(
      "loopback addresses are accepted only in local development",
    );
    expect(destinationProblem("gopher://127.0.0.1:25/x", webhookPolicy(true))).toBe("must use https");
    expect(destinationProblem("http://10.0.0.1/", webhookPolicy(true))).toBe("private address 10.0.0.1 is not allowed");
    expect(destinationProblem("https://hooks.example.com/x?token=t", webhookPolicy(false))).toBe(
      "must not carry credentials in its query string (token)",
    );
  });
});

describe("the setting", () => {
  it('allows loopback only when ALLOW_LOOPBACK_DESTINATIONS is exactly "true"', () => {
    expect(loopbackAllowed({ ALLOW_LOOPBACK_DESTINATIONS: "true" })).toBe(true);
    expect(loopbackAllowed({})).toBe(false);
    expect(loopbackAllowed({ ALLOW_LOOPBACK_DESTINATIONS: "false" })).toBe(false);
    expect(loopbackAllowed({ ALLOW_LOOPBACK_DESTINATIONS: "1" })).toBe(false);
  });
});

describe("secret query parameters", () => {
  it.each([
    "api_key",
    "apikey",
    "APIKey",
    "x-api-key",
    "key",
    "token",
    "access_token",
    "refresh_token",
    "client_secret",
    "password",
    "pwd",
    "sig",
    "X-Amz-Signature",
    "X-Amz-Credential",
    "auth",
    "Authorization",
    "subscription-key",
  ])("%s is a credential", (name) => expect(isSecretParameter(name)).toBe(true));
  it.each(["id", "run", "monkey", "keyword", "tokenizer", "model", "AWSAccessKeyId", "version"])("%s is not", (name) =>
    expect(isSecretParameter(name)).toBe(false),
  );
});

describe("IP literals", () => {
  it("parses the IPv6 forms a URL host can take", () => {
    expect(parseIPv6("::")).toEqual([0, 0, 0, 0, 0, 0, 0, 0]);
    expect(parseIPv6("::ffff:7f00:1")).toEqual([0, 0, 0, 0, 0, 0xffff, 0x7f00, 1]);
    expect(parseIPv6("::ffff:127.0.0.1")).toEqual([0, 0, 0, 0, 0, 0xffff, 0x7f00, 1]);
    expect(parseIPv6("fd00:ec2::254")).toEqual([0xfd00, 0xec2, 0, 0, 0, 0, 0, 0x254]);
    expect(parseIPv6("1:2:3:4:5:6:7:8")).toEqual([1, 2, 3, 4, 5, 6, 7, 8]);
    expect(parseIPv6("1::2::3")).toBeNull();
    expect(parseIPv6("1:2:3")).toBeNull();
  });

  it("names are not addresses", () => {
    expect(classifyHostAddress("example.com")).toBeNull();
    expect(classifyHostAddress("127.0.0.1.nip.io")).toBeNull();
  });
});
