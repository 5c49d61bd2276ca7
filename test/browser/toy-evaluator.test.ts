// Issue 24: a sixth evaluator is one folder and one line in the dashboard. The toy evaluator's dashboard
// folder (test/fixtures/toy-sum/dashboard/) is copied into a copy of dashboard/ as src/evaluators/toy-sum/,
// one line is added to src/evaluators/index.ts, and nothing else changes: the copy must type-check and
// build with the dashboard's own config and build script, and, served against a Worker with the toy's
// server plug-in (test/support/toy-server.ts), show "toy-sum" under "New run", start a run from its form
// and draw its result on the run page. A registry that needed anything more (a field the toy lacks, a
// switch on the evaluator's name in a page) fails here.
import { spawn } from "node:child_process";
import { cpSync, mkdirSync, mkdtempSync, readFileSync, rmSync, symlinkSync, writeFileSync } from "node:fs";
import { extname, join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { Browser } from "playwright-core";
import { browserMissing, DEV_KEY, launch, openPage, screenshot, SKIP_REASON } from "./browser.ts";
import { startToyServer } from "../support/toy-server.ts";
import type { DevServer } from "../../scripts/wrangler-dev.ts";

const root = join(import.meta.dirname, "..", "..");
const LINE = 'import "./toy-sum/index.ts";';
const TYPES: Record<string, string> = {
  ".html": "text/html",
  ".js": "text/javascript",
  ".css": "text/css",
  ".svg": "image/svg+xml",
};

/** Runs a command to its end; rejects with its output when it fails. */
function run(command: string, args: string[], cwd: string): Promise<void> {
  return new Promise((resolve, reject) => {
    const child = spawn(command, args, { cwd, stdio: ["ignore", "pipe", "pipe"] });
    let out = "";
    child.stdout.on("data", (b: Buffer) => (out += b.toString()));
    child.stderr.on("data", (b: Buffer) => (out += b.toString()));
    child.once("error", reject);
    child.once("exit", (code) =>
      code === 0 ? resolve() : reject(new Error(`${command} ${args.join(" ")} exited ${code}:\n${out}`)),
    );
  });
}

/** `lines` with LINE after the last evaluator's import line: where a newcomer adds it. */
function withToyLine(lines: string[]): string[] {
  const last = lines.findLastIndex((l) => l.startsWith('import "./'));
  return [...lines.slice(0, last + 1), LINE, ...lines.slice(last + 1)];
}

if (browserMissing) describe("the toy evaluator in the dashboard", () => it.skip(SKIP_REASON, () => {}));

describe.skipIf(browserMissing)("the toy evaluator in the dashboard", () => {
  let browser: Browser;
  let toy: DevServer;
  let dir: string;

  beforeAll(async () => {
    mkdirSync(join(root, "test-artifacts"), { recursive: true });
    // Inside the repository, so the copy resolves its packages from the same node_modules as dashboard/.
    dir = mkdtempSync(join(root, "test-artifacts", "toy-dashboard-"));
    const copy = join(dir, "dashboard");
    cpSync(join(root, "dashboard"), copy, {
      recursive: true,
      filter: (src) => !src.startsWith(join(root, "dashboard", "node_modules")),
    });
    symlinkSync(join(root, "dashboard", "node_modules"), join(copy, "node_modules"));
    // The folder…
    cpSync(join(root, "test", "fixtures", "toy-sum", "dashboard"), join(copy, "src", "evaluators", "toy-sum"), {
      recursive: true,
    });
    // …and the line.
    const index = join(copy, "src", "evaluators", "index.ts");
    const before = readFileSync(index, "utf8").split("\n");
    const after = withToyLine(before);
    expect(after.filter((l) => !before.includes(l))).toEqual([LINE]);
    expect(after.length).toBe(before.length + 1);
    writeFileSync(index, after.join("\n"));
    // The server and the build are independent: start both at once.
    const server = startToyServer();
    try {
      await run(
        process.execPath,
        [join(root, "node_modules", "typescript", "bin", "tsc"), "--noEmit", "-p", copy],
        root,
      );
      await run("npm", ["run", "build", "--silent"], copy);
    } finally {
      toy = await server;
    }
    browser = await launch();
  });

  afterAll(async () => {
    await browser?.close();
    await toy?.stop();
    if (dir) rmSync(dir, { recursive: true, force: true });
  });

  it("is offered under New run, starts a run from its form and shows its result", async () => {
    const { page, context, requests } = await openPage(browser);
    // The copy's build is the page: /app/ and its assets come from it, everything else from the toy's Worker.
    const built = join(dir, "public", "app");
    await page.route(`${toy.base}/app/**`, (route) => {
      const path = new URL(route.request().url()).pathname.replace(/^\/app\//, "") || "index.html";
      route.fulfill({
        status: 200,
        contentType: TYPES[extname(path)] ?? "application/octet-stream",
        body: readFileSync(join(built, path)),
      });
    });
    await page.goto(`${toy.base}/app/`);
    await page.getByLabel("API key").fill(DEV_KEY);
    await page.getByRole("button", { name: "Sign in" }).click();
    await page.getByRole("button", { name: "Sign out" }).waitFor();

    await page.locator("details.menu summary").click();
    await page.getByRole("link", { name: "toy-sum", exact: true }).click();
    await page.getByRole("heading", { name: "New toy-sum run" }).waitFor();
    const numbers = [1, 2, 3.5, 4];
    await page.getByLabel("Numbers").fill(numbers.join(", "));
    await page.getByRole("button", { name: "Start run" }).click();

    const article = page.locator("article.run");
    await expect.poll(() => article.getAttribute("data-status")).toBe("succeeded");
    expect(await article.getAttribute("data-evaluator")).toBe("toy-sum");
    const sum = numbers.reduce((a, b) => a + b, 0);
    await expect.poll(() => page.locator('[data-field="sum"]').textContent()).toBe(String(sum));
    expect(await page.locator('[data-field="units"]').textContent()).toBe(String(numbers.length));

    // The API's own result for the run the page opened says the same.
    const id = decodeURIComponent(new URL(page.url()).hash.replace("#/runs/", ""));
    const res = await fetch(`${toy.base}/v1/runs/${id}`, { headers: { Authorization: `Bearer ${DEV_KEY}` } });
    expect(((await res.json()) as { result: unknown }).result).toEqual({ sum, units: numbers.length });
    await screenshot(page, "toy-sum-run");
    expect(requests.filter((u) => new URL(u).origin !== new URL(toy.base).origin && !u.startsWith("data:"))).toEqual(
      [],
    );
    await context.close();
  });
});
