// Runs the fake OpenAI server in its own process, so a benchmark's own event loop cannot delay its
// answers. Prints the URL on the first line of stdout, then serves until killed.
import { startFakeOpenAI } from "../test/support/fake-openai.ts";

const server = await startFakeOpenAI({ port: Number(process.argv[2] ?? 0) });
console.log(server.url);
