"""vrty's own README quick-start, unchanged but for its import line, runs on assay.

The README is read at test time from the seeds folder next to $REFERENCE_DIR (tests/_seeds.py; never
copied into the repository). Without it the test skips saying so; with REFERENCE_REQUIRED=1 it fails.
The example's printed output is checked against the server's answer, fetched with a plain urllib POST.
"""

from __future__ import annotations

import ast
import contextlib
import io
import json
import os
import re
import subprocess
import sys
import unittest
import urllib.request
from pathlib import Path
from types import SimpleNamespace
from typing import Any, Dict, List, Optional

from _seeds import seed_readme
from support import env

SRC = str(Path(__import__("assay_client").__file__).resolve().parent.parent)


def python_blocks(markdown: str) -> List[str]:
    return re.findall(r"^```python\n(.*?)^```", markdown, re.S | re.M)


def server_score(prompt: str, response: str) -> Dict[str, Any]:
    req = urllib.request.Request(
        env("ASSAY_URL") + "/v1/vrty/score",
        data=json.dumps({"prompt": prompt, "response": response}).encode(),
        headers={"Authorization": f"Bearer {env('ASSAY_API_KEY')}", "Content-Type": "application/json"},
    )
    with urllib.request.urlopen(req, timeout=60) as res:
        return json.loads(res.read())


def as_vrty_score(answer: Dict[str, Any]) -> SimpleNamespace:
    """The server's answer with vrty's attribute access (numbers as floats, as vrty's are)."""
    return SimpleNamespace(**{k: float(v) if isinstance(v, (int, float)) else v for k, v in answer.items()})


class VrtyQuickstartTest(unittest.TestCase):
    def test_readme_example_runs_unchanged_but_for_the_import(self) -> None:
        readme = seed_readme(self, "vrty")  # skips (fails under REFERENCE_REQUIRED=1) without the seeds
        # The quick-start is the first Python block that imports from vrty.
        block = next(b for b in python_blocks(readme) if re.search(r"^from vrty import ", b, re.M))
        code, replaced = re.subn(r"^from vrty import ", "from assay_client.vrty import ", block, flags=re.M)
        self.assertEqual(replaced, 1)
        self.assertNotRegex(code, r"^\s*import vrty", "the example must need only its import line changed")

        # What the example scores and prints, read from its own lines.
        tree = ast.parse(block)
        call = next(
            n for n in ast.walk(tree)
            if isinstance(n, ast.Call) and isinstance(n.func, ast.Name) and n.func.id == "score"
        )
        prompt, response = (ast.literal_eval(a) for a in call.args)
        assign = next(n for n in tree.body if isinstance(n, ast.Assign) and n.value is call)
        target = assign.targets[0]
        assert isinstance(target, ast.Name)
        rest = ast.Module(body=tree.body[tree.body.index(assign) + 1:], type_ignores=[])
        prints = [n for n in ast.walk(rest) if isinstance(n, ast.Call) and getattr(n.func, "id", "") == "print"]
        self.assertGreater(len(prints), 0)

        # The expected output: the example's own statements after the call, on the server's answer.
        expected = io.StringIO()
        with contextlib.redirect_stdout(expected):
            exec(compile(rest, "<vrty README>", "exec"), {target.id: as_vrty_score(server_score(prompt, response))})

        child_env = {**os.environ, "PYTHONPATH": SRC + os.pathsep + os.environ.get("PYTHONPATH", "")}
        done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, env=child_env,
                              timeout=120)
        self.assertEqual(done.returncode, 0, done.stderr)
        self.assertEqual(done.stdout, expected.getvalue())
        self.assertEqual(len(done.stdout.splitlines()), len(prints))


if __name__ == "__main__":
    unittest.main()
