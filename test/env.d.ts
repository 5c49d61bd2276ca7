declare namespace Cloudflare {
  interface Env {
    TEST_MIGRATIONS: import("cloudflare:test").D1Migration[];
    FAKE_OPENAI_URL: string;
    WEBHOOK_RECEIVER_URL: string;
  }
}
