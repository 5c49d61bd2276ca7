"""The facades' tests run against a real server: the Worker under `wrangler dev` and the fake model
endpoint (test/support/fake-openai.ts), named by ASSAY_URL, ASSAY_API_KEY and FAKE_OPENAI_URL (the e2e
setup and test/python/serve.ts print them). Nothing else of the machine's environment is read.

Helpers here talk HTTP with urllib directly, so what a test expects (the run the server stored, the
requests the endpoint saw) is fetched independently of the client under test.
"""

from __future__ import annotations

import contextlib
import json
import os
import re
import subprocess
import sys
import unittest
import urllib.request
from pathlib import Path
from typing import Any, Dict, Iterator, List, Mapping, Optional

# The fake endpoint's control and plain-HTTP reads of the server are the client tests' (support.py);
# re-exported so a facade test imports what it needs from one place.
from support import api_bytes as api_bytes
from support import api_get as api_get
from support import fake_openai_url
from support import recorded_requests as recorded_requests
from support import register_scenario as register_scenario
from support import scenario_id as scenario_id

SRC = Path(__file__).resolve().parents[1] / "src"
LIVE = all(os.environ.get(k) for k in ("ASSAY_URL", "ASSAY_API_KEY", "FAKE_OPENAI_URL"))
needs_server = unittest.skipUnless(LIVE, "needs ASSAY_URL, ASSAY_API_KEY and FAKE_OPENAI_URL (npx node test/python/serve.ts)")

#: Variables the facades read; a test starts from none of them, so no key or URL of the machine leaks in.
MODEL_ENV = (
    "OPENAI_API_KEY", "OPENROUTER_API_KEY", "ANTHROPIC_API_KEY", "GOOGLE_API_KEY", "GEMINI_API_KEY",
    "DEEPSEEK_API_KEY", "OPENAI_BASE_URL", "OPENROUTER_BASE_URL", "ANTHROPIC_BASE_URL", "GEMINI_BASE_URL",
    "DEEPSEEK_BASE_URL", "CHAIN_DET_BASE_URL", "HERETIX_RPL_SEED", "HERETIX_RPL_NO_CACHE", "HERETIX_PROMPTS_DIR",
)  # fmt: skip


def fake_url() -> str:
    """The fake endpoint's OpenAI base URL (…/v1): loopback."""
    return fake_openai_url().rstrip("/")


def every_vendor_at_the_fake() -> Dict[str, str]:
    """Every vendor URL a facade may use, pointed at the loopback fake endpoint."""
    url = fake_url()
    names = ("OPENAI_BASE_URL", "OPENROUTER_BASE_URL", "ANTHROPIC_BASE_URL", "GEMINI_BASE_URL", "DEEPSEEK_BASE_URL", "CHAIN_DET_BASE_URL")
    return {k: url for k in names}


def clean_env(**extra: str) -> Dict[str, str]:
    """os.environ without the model variables, plus `extra` (for patch.dict(..., clear=True) or a subprocess)."""
    env = {k: v for k, v in os.environ.items() if k not in MODEL_ENV}
    env.update(extra)
    return env


def _request(method: str, url: str, body: Any = None, headers: Optional[Mapping[str, str]] = None) -> bytes:
    data = json.dumps(body).encode() if body is not None else None
    req = urllib.request.Request(url, data=data, method=method, headers={"content-type": "application/json", **(headers or {})})
    with urllib.request.urlopen(req, timeout=60) as res:
        return res.read()


def stored_result(run_id: str) -> Any:
    """The run's result wherever the server keeps it (GET /v1/runs/{id}/result)."""
    return api_get(f"/v1/runs/{run_id}/result")


def run_module(args: List[str], cwd: Path, env: Mapping[str, str]) -> subprocess.CompletedProcess:
    """`python <args>` in `cwd` with the package importable, as a user's shell would run it."""
    full = dict(env, PYTHONPATH=str(SRC))
    return subprocess.run([sys.executable, *args], cwd=cwd, env=full, capture_output=True, text=True, timeout=600)


def run_shell(script: str, cwd: Path, env: Mapping[str, str]) -> subprocess.CompletedProcess:
    """A README's shell lines, run by bash, with `python` this interpreter and the package importable."""
    bindir = cwd / ".bin"
    bindir.mkdir(exist_ok=True)
    shim = bindir / "python"
    shim.write_text(f'#!/bin/sh\nexec "{sys.executable}" "$@"\n')
    shim.chmod(0o755)
    full = dict(env, PYTHONPATH=str(SRC), PATH=f"{bindir}:{env.get('PATH', '')}")
    return subprocess.run(["bash", "-e", "-c", script], cwd=cwd, env=full, capture_output=True, text=True, timeout=600)


README = Path(__file__).resolve().parents[1] / "README.md"


def readme_example(section: str) -> str:
    """The first ```python block under `### <section>` of python/README.md."""
    text = README.read_text(encoding="utf-8")
    start = text.index(f"\n### {section}\n")
    end = text.find("\n## ", start + 1)
    nxt = text.find("\n### ", start + 1)
    stop = min(x for x in (end, nxt, len(text)) if x != -1)
    block = re.search(r"```python\n(.*?)```", text[start:stop], re.S)
    if block is None:
        raise AssertionError(f"python/README.md has no python example under ### {section}")
    return block.group(1)


@contextlib.contextmanager
def saved_connection(api_key: str) -> Iterator[str]:
    """A provider connection of the dev tenant to the fake endpoint (POST /v1/providers), deleted after."""
    name = scenario_id("py-conn")
    headers = {"authorization": f"Bearer {os.environ['ASSAY_API_KEY']}"}
    base = os.environ["ASSAY_URL"].rstrip("/")
    _request("POST", f"{base}/v1/providers", {"name": name, "base_url": fake_url(), "api_key": api_key}, headers)
    try:
        yield name
    finally:
        _request("DELETE", f"{base}/v1/providers/{name}", headers=headers)
