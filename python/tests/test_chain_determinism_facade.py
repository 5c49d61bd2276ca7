"""assay_client.chain_determinism against the real server: eval's summary is the run the server stored,
its files are the server's rows, keys and URLs come from the harness's environment, errors name the
field, and the harness's own quick-start (read from its README at test time) runs with only the module
name changed, printing the summary the server computed."""

from __future__ import annotations

import json
import os
import re
import tempfile
import unittest
from pathlib import Path
from unittest import mock

from _live import (
    api_bytes,
    api_get,
    clean_env,
    every_vendor_at_the_fake,
    fake_url,
    needs_server,
    readme_example,
    recorded_requests,
    register_scenario,
    run_module,
    run_shell,
    saved_connection,
    scenario_id,
    stored_result,
)
from _seeds import seed_readme

from assay_client import AssayError, chain_determinism
from assay_client._model_keys import ConfigError

SUMMARY_KEYS = [
    "model", "n_queries", "n_replays", "temperature", "elapsed_s", "n_total", "n_errors",
    "n_measurable", "n_diverged", "divergence_rate", "wilson_ci_95", "per_query",
]  # fmt: skip


def latest_run(model: str) -> dict:
    """The newest chain-determinism run of `model`, from GET /v1/runs."""
    runs = api_get("/v1/runs?evaluator=chain-determinism&limit=20")["data"]
    return next(r for r in runs if r["config"]["model"] == model)


def ndjson(run_id: str) -> list:
    text = api_bytes(f"/v1/runs/{run_id}/samples", accept="application/x-ndjson").decode()
    return [json.loads(line) for line in text.splitlines() if line.strip()]


@needs_server
class Eval(unittest.TestCase):
    def test_the_summary_is_the_run_the_server_stored_and_the_files_its_rows(self) -> None:
        model = scenario_id("sim:py-cd")
        with tempfile.TemporaryDirectory() as tmp, mock.patch.dict(os.environ, clean_env(), clear=True):
            out, runs_out = Path(tmp) / "s.json", Path(tmp) / "r.jsonl"
            summary = chain_determinism.eval(model=model, n_queries=3, n_replays=4, seed=7, out=str(out), runs_out=str(runs_out))
            written = json.loads(out.read_text())
            rows = [json.loads(line) for line in runs_out.read_text().splitlines()]
        run = latest_run(model)
        stored = stored_result(run["id"])
        self.assertEqual(list(summary), SUMMARY_KEYS)
        self.assertEqual(written, summary)
        for key in SUMMARY_KEYS:
            if key not in ("elapsed_s", "per_query", "wilson_ci_95"):
                self.assertEqual(summary[key], stored[key], key)
        self.assertEqual(summary["wilson_ci_95"], list(stored["wilson_ci_95"]))
        self.assertEqual([q["query_id"] for q in summary["per_query"]], [q["query_id"] for q in stored["per_query"]])
        for mine, theirs in zip(summary["per_query"], stored["per_query"]):
            self.assertEqual(mine, {k: theirs[k] for k in mine})
        self.assertEqual((summary["n_total"], summary["n_queries"]), (12, 3))
        # --runs-out: the server's per-replay rows, every one, grouped by query in suite order.
        self.assertEqual(sorted(rows, key=json.dumps), sorted(ndjson(run["id"]), key=json.dumps))
        order = [q["query_id"] for q in stored["per_query"]]
        self.assertEqual([r["query_id"] for r in rows], [q for q in order for _ in range(4)])

    def test_a_live_model_takes_the_harnesss_environment(self) -> None:
        model = scenario_id("py-cd-live")
        register_scenario({"id": model, "agent": {"calls": 2}})
        env = clean_env(OPENROUTER_API_KEY="sk-or-py-cd-9876", OPENROUTER_BASE_URL=fake_url(), OPENAI_BASE_URL=fake_url())
        with mock.patch.dict(os.environ, env, clear=True):
            summary = chain_determinism.eval(model=model, n_queries=2, n_replays=2)
        stored = stored_result(latest_run(model)["id"])
        self.assertEqual(summary["divergence_rate"], stored["divergence_rate"])
        self.assertEqual(summary["n_errors"], 0)
        requests = recorded_requests(model)
        self.assertEqual(len(requests), 2 * 2 * 3)  # 4 replays of 2 tool calls and a final answer
        # Only OPENROUTER_API_KEY is set: the harness's OpenRouter route, whose URL the env overrides.
        self.assertTrue(all(r["headers"]["authorization"] == "***9876" for r in requests))

    def test_errors(self) -> None:
        with mock.patch.dict(os.environ, clean_env(), clear=True):
            with self.assertRaisesRegex(ConfigError, "no model key: set OPENAI_API_KEY or OPENROUTER_API_KEY"):
                chain_determinism.eval(model="gpt-4o")
            with self.assertRaises(AssayError) as cm:
                chain_determinism.eval(model="sim:py-cd-refused", n_replays=0)
        self.assertEqual(cm.exception.status, 400)
        self.assertEqual([e.get("path") for e in cm.exception.errors], ["n_replays"])

    def test_the_command_without_a_key_exits_2_as_the_harness(self) -> None:
        with tempfile.TemporaryDirectory() as tmp:
            out = run_shell("python -m assay_client.chain_determinism eval --model gpt-4o", Path(tmp), clean_env())
        self.assertEqual(out.returncode, 2)
        self.assertEqual(out.stderr, "error: no model key: set OPENAI_API_KEY or OPENROUTER_API_KEY (a sim:* model needs none)\n")
        self.assertEqual(out.stdout, "")

    def test_the_readmes_example(self) -> None:
        with tempfile.TemporaryDirectory() as tmp:
            out = run_module(["-c", readme_example("chain-determinism-harness")], Path(tmp), clean_env())
        self.assertEqual(out.returncode, 0, out.stderr)
        self.assertRegex(out.stdout, r"^\d+\.\d% \[\S+, \S+\] \d+ / \d+\n$")

    def test_a_saved_connection_instead_of_the_environments_key(self) -> None:
        model = scenario_id("py-cd-conn")
        register_scenario({"id": model, "agent": {"calls": 1}})
        with saved_connection("sk-cd-conn-4242") as name, mock.patch.dict(os.environ, clean_env(), clear=True):
            summary = chain_determinism.eval(model=model, n_queries=1, n_replays=2, connection=name)
        self.assertEqual((summary["n_total"], summary["n_errors"]), (2, 0))
        requests = recorded_requests(model)
        self.assertEqual(len(requests), 2 * 2)  # 2 replays of one tool call and a final answer
        self.assertTrue(all(r["headers"]["authorization"] == "***4242" for r in requests))


@needs_server
class QuickStart(unittest.TestCase):
    """The README's Quickstart block, its export line included, with `python -m
    chain_determinism_harness` → `python -m assay_client.chain_determinism`; every vendor URL points at
    the loopback fake endpoint, whose scenario is the README's model name."""

    def test_the_readmes_quick_start(self) -> None:
        readme = seed_readme(self, "chain-determinism-harness")
        block = next((b for b in re.findall(r"```bash\n(.*?)```", readme, re.S) if "python -m chain_determinism_harness eval" in b), None)
        self.assertIsNotNone(block, "the README's quick-start block is gone")
        assert block is not None
        script = block.replace("python -m chain_determinism_harness", "python -m assay_client.chain_determinism")
        model = re.search(r"--model (\S+)", script).group(1)  # type: ignore[union-attr]
        n_queries = int(re.search(r"--n-queries (\d+)", script).group(1))  # type: ignore[union-attr]
        n_replays = int(re.search(r"--n-replays (\d+)", script).group(1))  # type: ignore[union-attr]
        register_scenario({"id": model, "agent": {"calls": 2}})
        with tempfile.TemporaryDirectory() as tmp:
            out = run_shell(script, Path(tmp), clean_env(**every_vendor_at_the_fake()))
        self.assertEqual(out.returncode, 0, out.stderr)
        run_id = re.search(r"^    run:\s+(\S+)$", out.stdout, re.M).group(1)  # type: ignore[union-attr]
        stored = stored_result(run_id)
        # The closing summary is the server's, byte for byte, in the README's sample-output shape.
        self.assertTrue(out.stdout.endswith(stored["summary_text"]), out.stdout)
        self.assertIn(f"Chain-divergence rate for {model}:", stored["summary_text"])
        self.assertRegex(stored["summary_text"], rf"Total replays:\s+{n_queries * n_replays}\n")
        blocks = re.findall(r"^  \[(\d+)/(\d+)\] (\S+)\n      ok=(\d+)/(\d+)  unique_sequences=(\d+)$", out.stdout, re.M)
        self.assertEqual(len(blocks), n_queries)
        for (i, n, qid, ok, total, unique), q in zip(blocks, stored["per_query"]):
            self.assertEqual((qid, int(ok), int(total), int(n)), (q["query_id"], q["n_success"], q["n_total"], n_queries))
            if q["status"] == "measurable":
                self.assertEqual(int(unique), q["n_unique_sequences"])
        requests = recorded_requests(model)
        self.assertEqual({r["body"]["model"] for r in requests}, {model})
        # The README exports OPENROUTER_API_KEY=sk-or-...: that key, sent to the overridden OpenRouter URL.
        exported = re.search(r"export OPENROUTER_API_KEY=(\S+)", script).group(1)  # type: ignore[union-attr]
        self.assertTrue(all(r["headers"]["authorization"] == "***" + exported[-4:] for r in requests), requests[0]["headers"])


if __name__ == "__main__":
    unittest.main()
