import type { TestProject } from "vitest/node";
import { startFakeOpenAI } from "./support/fake-openai.ts";
import { startWebhookReceiver } from "./support/webhook-receiver.ts";

// The only faked thing is the model endpoint (and a webhook receiver): real HTTP servers on
// loopback that the Worker under test reaches through the real `openai` client and `fetch`.
export default async function ({ provide }: TestProject) {
  const openai = await startFakeOpenAI({ port: 0 });
  const hooks = await startWebhookReceiver(0);
  provide("fakeOpenAIUrl", openai.url);
  provide("webhookReceiverUrl", hooks.url);
  return async () => {
    await openai.close();
    await hooks.close();
  };
}

declare module "vitest" {
  export interface ProvidedContext {
    fakeOpenAIUrl: string;
    webhookReceiverUrl: string;
  }
}
