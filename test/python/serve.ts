// A wrangler dev (local state in memory) and the fake model endpoint, for running the Python client's
// tests by hand: `npx node test/python/serve.ts` prints the environment to export, and both stay up until
// Ctrl-C. The test suite starts its own (test/cli/setup.ts); this is for working on python/.
import { freePort, startWranglerDev } from "../../scripts/wrangler-dev.ts";
import { startFakeOpenAI } from "../support/fake-openai.ts";

const openai = await startFakeOpenAI({ port: 0 });
const dev = await startWranglerDev(await freePort(), "memory");
console.log(`export ASSAY_URL=${dev.base} ASSAY_API_KEY=assay_sk_local_dev_key FAKE_OPENAI_URL=${openai.url}`);
const stop = async () => {
  await dev.stop();
  await openai.close();
  process.exit(0);
};
process.on("SIGINT", stop);
process.on("SIGTERM", stop);
