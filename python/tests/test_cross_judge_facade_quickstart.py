"""cross-judge's README "Quickstart: 3-model judge", unchanged but for its import line, runs on assay.

The README is read at test time from the seeds folder next to $REFERENCE_DIR (tests/_seeds.py; never
copied here). Without it the test skips saying so; with REFERENCE_REQUIRED=1 it fails. Every vendor is
pointed at the loopback fake endpoint through the environment; one fake scenario per model of the
example answers the verdict JSON its prompt asks for, a different one per critic (2 KEEP, 1 REJECT), so
consensus, agreement and alpha are not trivial. The printed output is checked against the run the server stored and against the
scenarios' verdicts.
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
from collections import Counter
from pathlib import Path
from types import SimpleNamespace
from typing import Any, Dict, List, Tuple

from _seeds import seed_readme
from support import api_get, fake_openai_url, judge_runs_with, recorded_requests, register_scenario

from assay_client.cross_judge import VENDOR_KEY_ENV, vendor_base_url_env

SRC = str(Path(__import__("assay_client").__file__).resolve().parent.parent)
# What the i-th critic of the example answers: label, confidence, reasoning.
ANSWERS: List[Tuple[str, float, str]] = [
    ("KEEP", 0.9, "Both show power-law size distributions with cascade dynamics near criticality."),
    ("REJECT", 0.55, "Bank failures are driven by contagion through balance sheets, not stress transfer."),
    ("KEEP", 0.8, "Omori-like decay appears in both; the scaling collapse supports one class."),
]


def keyword(call: ast.Call, name: str) -> ast.expr:
    return next(k.value for k in call.keywords if k.arg == name)


class CrossJudgeQuickstartTest(unittest.TestCase):
    def test_readme_quickstart_runs_unchanged_but_for_the_import(self) -> None:
        readme = seed_readme(self, "cross-judge")  # skips (fails under REFERENCE_REQUIRED=1) without the seeds
        section = readme.split("\n## Quickstart: 3-model judge\n", 1)[1]
        block = re.search(r"^```python\n(.*?)^```", section, re.S | re.M)
        assert block is not None
        code, replaced = re.subn(r"^from cross_judge import ", "from assay_client.cross_judge import ",
                                 block.group(1), flags=re.M)
        self.assertEqual(replaced, 1)
        self.assertNotRegex(code, r"^\s*import cross_judge", "only the import line may change")

        # The example's critics (in order), its prompts and its query, read from its own lines.
        tree = ast.parse(code)
        critics: List[Dict[str, Any]] = []
        for node in tree.body:
            if isinstance(node, ast.Assign) and isinstance(node.value, ast.Call) \
                    and getattr(node.value.func, "id", "") == "Critic":
                call = node.value
                template = keyword(call, "prompt_template")
                critics.append({
                    "var": getattr(node.targets[0], "id"),
                    "name": ast.literal_eval(keyword(call, "name")),
                    "model": ast.literal_eval(keyword(call, "model")),
                    "system": ast.literal_eval(keyword(call, "system_prompt")),
                    # `prompt_template=claude.prompt_template` reuses another critic's template.
                    "template": ast.literal_eval(template) if isinstance(template, ast.Constant)
                    else next(c["template"] for c in critics if c["var"] == getattr(template, "value").id),
                })
        self.assertEqual(len(critics), len(ANSWERS))
        judge_call = next(n for n in ast.walk(tree) if isinstance(n, ast.Call)
                          and getattr(n.func, "attr", "") == "judge")
        query = ast.literal_eval(keyword(judge_call, "query"))
        query_id = ast.literal_eval(keyword(judge_call, "query_id"))
        assign = next(n for n in tree.body if isinstance(n, ast.Assign) and n.value is judge_call)
        rest = ast.Module(body=tree.body[tree.body.index(assign) + 1:], type_ignores=[])

        # The scenarios are named after the example's models (registering one forgets its old requests).
        models = [c["model"] for c in critics]
        for critic, (kind, confidence, reasoning) in zip(critics, ANSWERS):
            register_scenario({"id": critic["model"], "text": json.dumps(
                {"kind": kind, "confidence": confidence, "reasoning": reasoning})})
        before = {r["id"] for r in judge_runs_with(models)}

        # Every vendor at the fake endpoint, each with a key of our own, before anything runs.
        keys = {vendor: f"sk-test-{vendor}-{i}abc" for i, vendor in enumerate(VENDOR_KEY_ENV)}
        child_env = {**os.environ, "PYTHONPATH": SRC + os.pathsep + os.environ.get("PYTHONPATH", "")}
        for vendor, key_env in VENDOR_KEY_ENV.items():
            child_env[vendor_base_url_env(vendor)] = fake_openai_url()
            child_env[key_env] = keys[vendor]
        done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, env=child_env,
                              timeout=300)
        self.assertEqual(done.returncode, 0, done.stderr)

        # The run it made, as the server stored it.
        [run] = [r for r in judge_runs_with(models) if r["id"] not in before]
        run = api_get(f"/v1/runs/{run['id']}")
        [item] = run["result"]["items"]
        self.assertEqual(item["id"], query_id)
        samples = api_get(f"/v1/runs/{run['id']}/samples?limit=100")["data"]
        by_critic = {s["output"]["critic"]: s["output"]["verdict"] for s in samples}
        stored = SimpleNamespace(
            consensus=item["consensus"],
            agreement_pct=float(item["agreement_pct"]),
            krippendorff_alpha=float(item["krippendorff_alpha"]),
            verdicts=[SimpleNamespace(critic_id=c["name"], kind=by_critic[c["name"]]["kind"],
                                      confidence=float(by_critic[c["name"]]["confidence"]),
                                      reasoning=by_critic[c["name"]]["reasoning"]) for c in critics],
        )
        # ... which is what the scenarios' verdicts make by majority vote.
        labels = [a[0] for a in ANSWERS]
        winner, votes = Counter(labels).most_common(1)[0]
        self.assertEqual(stored.consensus, winner)
        self.assertEqual(stored.agreement_pct, votes / len(labels))
        self.assertEqual(stored.krippendorff_alpha, 0.0)  # the library's per-item alpha on a split panel
        self.assertEqual([(v.kind, v.confidence, v.reasoning) for v in stored.verdicts], ANSWERS)

        # The printed output: the example's own statements after the call, on the stored run.
        expected = io.StringIO()
        with contextlib.redirect_stdout(expected):
            exec(compile(rest, "<cross-judge README>", "exec"), {getattr(assign.targets[0], "id"): stored})
        self.assertEqual(done.stdout, expected.getvalue())
        self.assertIn(f"Consensus: {winner}", done.stdout)

        # Each model was asked once, with its critic's prompts and the key of its vendor's variable.
        vendors = [ast.literal_eval(keyword(n, "vendor")) for n in ast.walk(tree)
                   if isinstance(n, ast.Call) and getattr(n.func, "id", "") == "Critic"]
        for critic, vendor in zip(critics, vendors):
            [req] = recorded_requests(critic["model"])
            self.assertEqual(req["body"]["messages"], [
                {"role": "system", "content": critic["system"]},
                {"role": "user", "content": critic["template"].format(query=query)},
            ])
            self.assertEqual(req["headers"]["authorization"], "***" + keys[vendor][-4:])


if __name__ == "__main__":
    unittest.main()
