import { describe, expect, it } from "vitest";
import { webhookUrlProblem } from "../../../src/runs/webhooks/url.ts";

describe("webhookUrlProblem", () => {
  it.each([
    ["https://hooks.example.com/x", false, null],
    ["http://hooks.example.com/x", false, "must use https"],
    ["http://127.0.0.1:9999/h", true, null],
    ["http://localhost/h", true, null],
    ["http://[::1]:80/h", true, null],
    ["http://127.0.0.1:9999/h", false, "loopback addresses are accepted only in local development"],
    ["https://user:pw@hooks.example.com/", false, "must not contain credentials"],
    ["not a url", false, "must be an absolute URL"],
    ["ftp://hooks.example.com/", false, "must use https"],
  ])("%s (loopback allowed: %s) → %s", (url, allow, expected) => {
    expect(webhookUrlProblem(url, allow)).toBe(expected);
  });
});
