import path from "node:path";
import { defineConfig } from "vitest/config";
import { cloudflareTest, readD1Migrations } from "@cloudflare/vitest-plugin";

// Three projects: the engines (and anything else that needs only Node) run in plain Node; the CLI and
// the dashboard run end to end against wrangler dev (e2e);
// routes, D1, Durable Objects and Queues run inside workerd through the Cloudflare plugin.
export default defineConfig(async () => {
  const migrations = await readD1Migrations(path.join(import.meta.dirname, "migrations"));
  return {
    test: {
      projects: [
        {
          test: {
            name: "node",
            environment: "node",
            globalSetup: ["./test/reference-notice.ts"],
            include: ["test/engines/**/*.test.ts", "test/node/**/*.test.ts"],
          },
        },
        {
          test: {
            name: "e2e",
            environment: "node",
            // The CLI (a child process), the dashboard (in Chromium) and the Python client (python/tests, run by
            // test/python/python.test.ts) against one wrangler dev; a run's
            // end waits on the server.
            // One workerd serves every e2e file at once, and a comparison's bootstrap holds it for seconds:
            // under CI's load a page may wait long for its answer. These bound a wait, not a speed.
            testTimeout: 240_000,
            hookTimeout: 120_000,
            globalSetup: ["./test/cli/setup.ts"],
            include: ["test/cli/**/*.test.ts", "test/browser/**/*.test.ts", "test/python/**/*.test.ts"],
            // One file at a time: they share one wrangler dev (a single workerd thread) and Chromium, and
            // in parallel a page could wait minutes behind another file's comparison.
            fileParallelism: false,
            // expect.poll waits on the page and the server, not on a clock: the test's timeout bounds it.
            expect: { poll: { timeout: 200_000, interval: 100 } },
          },
        },
        {
          plugins: [
            cloudflareTest(({ inject }) => ({
              wrangler: { configPath: "./wrangler.jsonc" },
              miniflare: {
                bindings: {
                  TEST_MIGRATIONS: migrations,
                  ADMIN_TOKEN: "test-admin-token",
                  SECRETS_KEY: "dGVzdC1zZWNyZXRzLWtleS10aGlydHktdHdvLWJ5dGU=",
                  WEBHOOK_BACKOFF_SECONDS: "1",
                  // Results over 256 KiB go to R2 (1 MiB in production): a judge run of a few thousand
                  // units reaches the large-result path (test/api/large-result.test.ts); others stay inline.
                  RESULT_INLINE_BYTES: "262144",
                  // The fake model endpoint and the webhook receiver listen on 127.0.0.1: tests run as local
                  // development does. The production setting (unset) is tested by passing another env.
                  ALLOW_LOOPBACK_DESTINATIONS: "true",
                  FAKE_OPENAI_URL: inject("fakeOpenAIUrl"),
                  WEBHOOK_RECEIVER_URL: inject("webhookReceiverUrl"),
                },
              },
            })),
          ],
          test: {
            name: "workers",
            // Runs end on their own schedule (alarms, queues, a 2-core machine shared with Node tests): a
            // test waits on conditions, and this bounds the wait, not a claim about speed.
            testTimeout: 60_000,
            globalSetup: ["./test/global-setup.ts"],
            include: ["test/api/**/*.test.ts"],
            setupFiles: ["./test/api/apply-migrations.ts"],
          },
        },
      ],
    },
  };
});
