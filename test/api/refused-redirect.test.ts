// Issue 30: a model-call redirect refused by the destination policy was reported as "network error"
// and retried 3× against the origin. The sample now says the destination was refused, and the origin
// (the loopback fake endpoint) gets one request; the redirect's target gets none (it is refused before
// anything is sent to it, and it is off this machine besides).
import { describe, expect, it } from "vitest";
import { env } from "cloudflare:workers";
import { recordedRequests } from "../support/fake-openai.ts";
import { fakeScenario, newTenant, send, startRun, waitForRun } from "./helpers.ts";

type SampleJson = { status: string; output: { row: { error_category: string | null } } };

describe("a model endpoint that redirects to a refused destination", () => {
  it.each([
    [
      "a metadata address",
      "http://169.254.169.254/latest/meta-data/iam/security-credentials/",
      "redirected to 169.254.169.254: metadata address 169.254.169.254 is not allowed",
    ],
    [
      "a private address",
      "http://10.0.0.1:8000/v1/chat/completions",
      "redirected to 10.0.0.1:8000: private address 10.0.0.1 is not allowed",
    ],
  ])(
    "to %s: the sample says the destination was refused, and the origin got one request",
    async (_, location, refusal) => {
      const { key } = await newTenant();
      const model = await fakeScenario(
        { faults: [{ respond: { status: 307, headers: { location }, body: {} } }] },
        "redir",
      );
      const created = await startRun(key, {
        model,
        provider: { base_url: env.FAKE_OPENAI_URL, api_key: "sk-redirect-key-123456" },
        n_queries: 1,
        n_replays: 2,
        min_success: 2,
      });
      const run = await waitForRun(key, created.id, 30_000);
      const samples = (
        (await (await send("GET", `/v1/runs/${run.id}/samples?limit=100`, key)).json()) as { data: SampleJson[] }
      ).data;
      expect(samples).toHaveLength(2);
      for (const s of samples) {
        expect(s.status).toBe("failed");
        expect(s.output.row.error_category).toBe(
          `api_error: APIConnectionError: Connection error: destination refused, not sent: ${refusal}`,
        );
      }
      // One request per replay: neither the call nor its unit was tried again.
      expect((await recordedRequests(env.FAKE_OPENAI_URL, model)).length).toBe(2);
      expect(run.status).toBe("failed");
    },
  );
});
