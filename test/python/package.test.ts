// The Python package as a user installs it, offline: the wheel `pip wheel --no-deps --no-build-isolation`
// builds with the in-tree backend (python/build_backend), its metadata and RECORD, a fresh virtual
// environment that installs it with --no-index and calls the e2e server from it; the sdist, and the
// editable install a developer makes. Expected values come from package.json, sha256 computed here, and
// the server's own answer over plain HTTP.
import { execFileSync } from "node:child_process";
import { createHash } from "node:crypto";
import { mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { unzipSync } from "fflate";
import { afterAll, beforeAll, describe, expect, inject, it } from "vitest";
import { DEV_KEY, findPython, PYTHON_DIR, pythonEnv, pythonRequired, ROOT } from "./python.ts";

const python = findPython();
const VERSION: string = JSON.parse(readFileSync(join(ROOT, "package.json"), "utf8")).version;
const WHEEL = `assay_client-${VERSION}-py3-none-any.whl`;
const server = { assayUrl: inject("assayUrl"), fakeOpenAIUrl: inject("fakeOpenAIUrl") };

describe.skipIf(!python.ok && !pythonRequired())("the Python package, built and installed offline", () => {
  const tmp = mkdtempSync(join(tmpdir(), "assay-python-package-"));
  afterAll(() => rmSync(tmp, { recursive: true, force: true }));
  const exe = python.ok ? python.executable : "python3";

  /**
   * The environment of every command here: pythonEnv's, without python/src on PYTHONPATH (what is imported
   * must come from the installed package), and pip with no index, no prompt, no version check.
   */
  const env = () => {
    const e = pythonEnv(server, tmp, { PIP_NO_INDEX: "1", PIP_NO_INPUT: "1", PIP_DISABLE_PIP_VERSION_CHECK: "1" });
    delete e.PYTHONPATH;
    return e;
  };
  const run = (cmd: string, args: string[], cwd = tmp) =>
    execFileSync(cmd, args, { cwd, env: env(), encoding: "utf8", stdio: ["ignore", "pipe", "pipe"] });
  const buildWheel = (source: string, out: string) => {
    run(exe, ["-m", "pip", "wheel", "--no-deps", "--no-build-isolation", "--no-index", source, "-w", out]);
    return readdirSync(out);
  };

  let wheel: Record<string, Uint8Array>;
  beforeAll(() => {
    if (!python.ok) throw new Error(python.reason);
    expect(buildWheel(PYTHON_DIR, join(tmp, "dist"))).toEqual([WHEEL]);
    wheel = unzipSync(readFileSync(join(tmp, "dist", WHEEL)));
  });
  const text = (name: string) => new TextDecoder().decode(wheel[name]);
  const distInfo = `assay_client-${VERSION}.dist-info`;

  it("builds assay_client-<the repository's version>-py3-none-any.whl with pip wheel, offline", () => {
    expect(Object.keys(wheel)).toContain("assay_client/__init__.py");
    expect(Object.keys(wheel)).toContain("assay_client/types.py");
  });

  it("says its name, version and Python in METADATA, and depends on nothing", () => {
    const headers = text(`${distInfo}/METADATA`).split("\n\n")[0].split("\n");
    expect(headers).toContain("Name: assay-client");
    expect(headers).toContain(`Version: ${VERSION}`);
    expect(headers).toContain("Requires-Python: >=3.10");
    expect(headers).toContain("License: MIT");
    expect(headers.filter((h) => h.startsWith("Requires-Dist:"))).toEqual([]);
  });

  it("ships py.typed (PEP 561), so type checkers read the package's annotations", () => {
    expect(wheel["assay_client/py.typed"]).toBeDefined();
  });

  it("lists every file in RECORD with its sha256 and size", () => {
    const record = text(`${distInfo}/RECORD`).trim().split("\n");
    const listed = record.map((line) => line.split(",")[0]).sort();
    expect(listed).toEqual(Object.keys(wheel).sort());
    for (const line of record) {
      const [name, hash, size] = line.split(",");
      if (name === `${distInfo}/RECORD`) {
        expect([hash, size]).toEqual(["", ""]);
        continue;
      }
      const digest = createHash("sha256").update(wheel[name]).digest("base64url");
      expect([hash, size], name).toEqual([`sha256=${digest}`, String(wheel[name].length)]);
    }
  });

  it("installs in a fresh virtual environment with --no-index and calls the server from there", async () => {
    const venv = join(tmp, "venv");
    run(exe, ["-m", "venv", venv]);
    const venvPython = join(venv, "bin", "python");
    run(venvPython, ["-m", "pip", "install", "--no-index", "--no-deps", join(tmp, "dist", WHEEL)]);
    const script = `
import importlib.metadata, json, assay_client
from assay_client import Client
print(json.dumps({
    "file": assay_client.__file__,
    "version": importlib.metadata.version("assay-client"),
    "score": Client().vrty.score("What is the capital of France?", "Paris is the capital of France."),
}))
`;
    const out = JSON.parse(run(venvPython, ["-c", script]));
    expect(out.file.startsWith(join(venv, "lib"))).toBe(true);
    expect(out.version).toBe(VERSION);
    const direct = await fetch(`${server.assayUrl}/v1/vrty/score`, {
      method: "POST",
      headers: { Authorization: `Bearer ${DEV_KEY}`, "Content-Type": "application/json" },
      body: JSON.stringify({ prompt: "What is the capital of France?", response: "Paris is the capital of France." }),
    });
    expect(direct.status).toBe(200);
    expect(out.score).toEqual(await direct.json());
  });

  it("builds the same wheel again, byte for byte", () => {
    expect(buildWheel(PYTHON_DIR, join(tmp, "again"))).toEqual([WHEEL]);
    expect(readFileSync(join(tmp, "again", WHEEL)).equals(readFileSync(join(tmp, "dist", WHEEL)))).toBe(true);
  });

  it("makes an sdist that pip builds into the same wheel, offline", () => {
    const sdists = join(tmp, "sdist");
    mkdirSync(sdists);
    const backend = `import sys; sys.path.insert(0, "build_backend"); import stdlib_wheel; print(stdlib_wheel.build_sdist(sys.argv[1]))`;
    const name = run(exe, ["-c", backend, sdists], PYTHON_DIR).trim();
    expect(name).toBe(`assay_client-${VERSION}.tar.gz`);
    expect(buildWheel(join(sdists, name), join(tmp, "from-sdist"))).toEqual([WHEEL]);
    const fromSdist = unzipSync(readFileSync(join(tmp, "from-sdist", WHEEL)));
    expect(Object.keys(fromSdist).sort()).toEqual(Object.keys(wheel).sort());
    for (const f of Object.keys(wheel)) expect(Buffer.from(fromSdist[f]).equals(Buffer.from(wheel[f])), f).toBe(true);
  });

  it("installs editable (pip install -e python/): the venv imports the checkout's sources", () => {
    const venv = join(tmp, "venv-editable");
    run(exe, ["-m", "venv", venv]);
    const venvPython = join(venv, "bin", "python");
    run(venvPython, ["-m", "pip", "install", "--no-index", "--no-deps", "--no-build-isolation", "-e", PYTHON_DIR]);
    const file = run(venvPython, ["-c", "import assay_client; print(assay_client.__file__)"]).trim();
    expect(file).toBe(join(PYTHON_DIR, "src", "assay_client", "__init__.py"));
  });
});
