import { describe, expect, it } from "vitest";
import { exports } from "cloudflare:workers";
import committed from "../../sdk/openapi.json";
import { createClient } from "../../sdk/src/client/index.ts";
import { getIdfTable, scoreVrty, scoreVrtyBatch } from "../../sdk/src/index.ts";
import { call, newTenant } from "./helpers.ts";

describe("the generated SDK against the Worker", () => {
  it("the Worker serves exactly the committed OpenAPI document", async () => {
    expect(await (await call("/openapi.json")).json()).toEqual(committed);
  });

  it("scores through the SDK's typed functions", async () => {
    const { key } = await newTenant();
    const client = createClient({
      baseUrl: "http://assay.test",
      auth: () => key,
      fetch: (input: RequestInfo | URL, init?: RequestInit) => exports.default.fetch(new Request(input, init)),
    });
    const one = await scoreVrty({ client, body: { prompt: "What is the capital of France?", response: "Paris." } });
    expect(one.error).toBeUndefined();
    expect(one.data!.composite).toBe(0.35);
    const table = await getIdfTable({ client, path: { table_id: "default" } });
    expect(one.data!.idf_sha256).toBe(table.data!.sha256);
    const batch = await scoreVrtyBatch({
      client,
      body: {
        pairs: [{ prompt: "a b", response: "a b" }, { prompt: "x" } as unknown as { prompt: string; response: string }],
      },
    });
    expect(batch.data!.succeeded).toBe(1);
    const bad = await scoreVrty({ client, body: { prompt: 1 as unknown as string, response: "x" } });
    expect(bad.response?.status).toBe(400);
    expect((bad.error as { errors: { path: string }[] }).errors[0].path).toBe("prompt");
  });
});
