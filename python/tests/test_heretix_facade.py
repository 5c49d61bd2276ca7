"""assay_client.heretix against the real server: its result is the run the server stored, keys and URLs
come from Heretix's environment, config errors name the field, and Heretix's own quick-start (read
from its README at test time) runs with only the command changed."""

from __future__ import annotations

import json
import os
import re
import tempfile
import unittest
from pathlib import Path
from typing import Any, Mapping
from unittest import mock

from _live import (
    api_get,
    clean_env,
    every_vendor_at_the_fake,
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

from assay_client import AssayError, heretix
from assay_client._model_keys import ConfigError
from assay_client._yaml import load_yaml

ANSWER = {
    "prob_true": 0.7,
    "confidence_self": 0.6,
    "assumptions": [],
    "reasoning_bullets": ["a", "b", "c"],
    "contrary_considerations": ["x", "y"],
    "ambiguity_flags": [],
}


def heretix_row(r: Mapping[str, Any]) -> str:
    """Heretix's console row, computed here from the stored result with Python's own format specs."""
    a = r["aggregates"]
    return (
        f"v={r['prompt_version']}  p={a['prob_true_rpl']:.3f}  CI95=[{a['ci95'][0]:.3f},{a['ci95'][1]:.3f}]  "
        f"width={a['ci_width']:.3f}  stab={a['stability_score']:.3f}  compl={a['rpl_compliance_rate']:.2f}  cache={a['cache_hit_rate']:.2f}"
    )


@needs_server
class HeretixRun(unittest.TestCase):
    def test_the_result_is_the_run_the_server_stored(self) -> None:
        with mock.patch.dict(os.environ, clean_env(), clear=True):
            result = heretix.run({"claim": "Tariffs raise consumer prices (py facade).", "model": "sim:rpl", "K": 4, "R": 2, "B": 1000})
        stored = stored_result(result["execution_id"])
        self.assertEqual({k: v for k, v in result.items() if k != "execution_id"}, stored)
        self.assertEqual(api_get(f"/v1/runs/{result['execution_id']}")["evaluator"], "rpl")
        for key in ("prob_true_rpl", "ci95", "ci_width", "stability_score", "stability_band", "rpl_compliance_rate", "cache_hit_rate"):
            self.assertIn(key, result["aggregates"])
        for key in ("method", "B", "center", "trim", "bootstrap_seed", "n_templates", "counts_by_template", "imbalance_ratio", "template_iqr_logit"):
            self.assertIn(key, result["aggregation"])

    def test_a_live_model_takes_heretixs_environment(self) -> None:
        model = scenario_id("py-heretix-live")
        register_scenario({"id": model, "text": json.dumps(ANSWER)})
        env = clean_env(OPENAI_API_KEY="sk-heretix-py-4321", HERETIX_RPL_SEED="12345", **every_vendor_at_the_fake())
        with mock.patch.dict(os.environ, env, clear=True):
            result = heretix.run({"claim": "Live key (py).", "model": model, "K": 2, "R": 2, "T": 2})
        self.assertEqual(result, {"execution_id": result["execution_id"], **stored_result(result["execution_id"])})
        self.assertAlmostEqual(result["aggregates"]["prob_true_rpl"], 0.7, places=12)
        self.assertEqual(result["aggregation"]["bootstrap_seed"], "12345")
        requests = recorded_requests(model)
        self.assertEqual(len(requests), 4)  # K × R model calls, each reaching the loopback endpoint
        self.assertTrue(all(r["headers"]["authorization"] == "***4321" for r in requests))

    def test_a_live_model_without_a_key_refuses_to_start(self) -> None:
        with mock.patch.dict(os.environ, clean_env(), clear=True):
            with self.assertRaisesRegex(ConfigError, r"OPENAI_API_KEY not set \(required for live runs with model gpt-5"):
                heretix.run({"claim": "No key (py)."})

    def test_config_errors_name_the_field(self) -> None:
        with self.assertRaisesRegex(ConfigError, r"unknown key 'samples'"):
            heretix.run({"claim": "x", "model": "sim:rpl", "samples": 3})
        with self.assertRaisesRegex(ConfigError, r"claims_file is not supported"):
            heretix.run({"claim": "x", "model": "sim:rpl", "claims_file": "c.txt"})
        with mock.patch.dict(os.environ, clean_env(), clear=True):
            with self.assertRaises(AssayError) as cm:
                heretix.run({"claim": "Refused (py).", "model": "sim:rpl", "K": 0})
        self.assertEqual(cm.exception.status, 400)
        self.assertIn("K", json.dumps(cm.exception.errors))

    def test_a_heretix_prompt_yaml_is_pushed_and_named(self) -> None:
        name = scenario_id("py_bank").replace("-", "_")
        with tempfile.TemporaryDirectory() as tmp:
            prompts = Path(tmp) / "prompts"
            prompts.mkdir()
            (prompts / f"{name}.yaml").write_text(BANK.replace("VERSION", f"{name}_2026-01-02"))
            cfg = Path(tmp) / "run.yaml"
            cfg.write_text(f'claim: "Coffee improves concentration."\nmodel: sim:rpl\nprompt_version: {name}\nK: 4\nR: 2\nB: 1000\n')
            with mock.patch.dict(os.environ, clean_env(), clear=True):
                result = heretix.run(cfg)
        run = api_get(f"/v1/runs/{result['execution_id']}")
        self.assertEqual(run["config"]["prompt_version"], f"{name}@{name}_2026-01-02")
        self.assertEqual(api_get(f"/v1/prompts/{name}/{name}_2026-01-02")["kind"], "rpl")

    def test_several_prompt_versions_are_an_ab_group(self) -> None:
        names = [scenario_id("py_ab").replace("-", "_") for _ in range(2)]
        with tempfile.TemporaryDirectory() as tmp, mock.patch.dict(os.environ, clean_env(HERETIX_PROMPTS_DIR=tmp), clear=True):
            for n in names:
                (Path(tmp) / f"{n}.yaml").write_text(BANK.replace("VERSION", f"{n}_v1"))
            cfg = {"claim": "A/B (py).", "model": "sim:rpl", "prompt_version": names, "K": 4, "R": 2, "B": 1000}
            results = heretix.run_versions(cfg)
            with self.assertRaisesRegex(ConfigError, "names 2 prompt versions: use heretix.run_versions"):
                heretix.run(cfg)
        runs = [api_get(f"/v1/runs/{r['execution_id']}") for r in results]
        self.assertEqual([r["config"]["prompt_version"] for r in runs], [f"{n}@{n}_v1" for n in names])
        self.assertEqual(len({r["config"]["group_id"] for r in runs}), 1)
        for r in results:
            self.assertEqual({k: v for k, v in r.items() if k != "execution_id"}, stored_result(r["execution_id"]))

    def test_the_readmes_example(self) -> None:
        with tempfile.TemporaryDirectory() as tmp:
            out = run_module(["-c", readme_example("Heretix (rpl)")], Path(tmp), clean_env())
        self.assertEqual(out.returncode, 0, out.stderr)
        p, lo, hi, band = re.fullmatch(r"(\S+) \[(\S+), (\S+)\] (\w+)\n", out.stdout).groups()  # type: ignore[union-attr]
        self.assertTrue(0 <= float(lo) <= float(p) <= float(hi) <= 1)
        self.assertIn(band, ("high", "medium", "low"))

    def test_a_saved_connection_instead_of_the_environments_key(self) -> None:
        model = scenario_id("py-heretix-conn")
        register_scenario({"id": model, "text": json.dumps(ANSWER)})
        with saved_connection("sk-heretix-conn-3131") as name, mock.patch.dict(os.environ, clean_env(), clear=True):
            result = heretix.run({"claim": "Saved connection (py).", "model": model, "K": 2, "R": 2, "T": 2, "connection": name})
        self.assertEqual(api_get(f"/v1/runs/{result['execution_id']}")["status"], "succeeded")
        requests = recorded_requests(model)
        self.assertEqual(len(requests), 4)
        self.assertTrue(all(r["headers"]["authorization"] == "***3131" for r in requests))


BANK = """version: VERSION
system: |
  You estimate how likely a short claim is to be true, from what you already know.
user_template: |
  Claim: "{CLAIM}"

  Reply with the JSON object only.
paraphrases:
  - "How likely is this claim to be true? {CLAIM}"
  - "Estimate the probability that this holds: {CLAIM}"
  - "What is the chance that this statement is true? {CLAIM}"
  - "Give the probability that this claim is correct: {CLAIM}"
"""


@needs_server
class HeretixQuickStart(unittest.TestCase):
    """The README's "CLI Usage": its config heredoc and its run command, with `uv run heretix run`
    → `python -m assay_client.heretix run`. Heretix reads the bank from heretix/prompts/<version>.yaml
    of its checkout; the test writes one there (our texts: Heretix's own are not published)."""

    def test_the_readmes_quick_start(self) -> None:
        readme = seed_readme(self, "Heretix")
        heredoc = re.search(r"^cat > (\S+) << 'EOF'\n.*?^EOF$", readme, re.S | re.M)
        command = re.search(r"^uv run heretix run --config .*$", readme, re.M)
        self.assertIsNotNone(heredoc, "the README's config heredoc (cat > … << 'EOF') is gone")
        self.assertIsNotNone(command, "the README's `uv run heretix run --config …` line is gone")
        assert heredoc is not None and command is not None
        line = command.group(0).replace("uv run heretix run", "python -m assay_client.heretix run", 1)
        config = load_yaml(heredoc.group(0).split("\n", 1)[1].rsplit("\nEOF", 1)[0])

        register_scenario({"id": config["model"], "text": json.dumps(ANSWER)})
        with tempfile.TemporaryDirectory() as tmp:
            cwd = Path(tmp)
            (cwd / "runs").mkdir()
            (cwd / "heretix" / "prompts").mkdir(parents=True)
            bank = BANK.replace("VERSION", f"{config['prompt_version']}_{scenario_id('py')}")
            bank += "".join(f'  - "Paraphrase {i} of the claim: {{CLAIM}}"\n' for i in range(5, 17))
            (cwd / "heretix" / "prompts" / f"{config['prompt_version']}.yaml").write_text(bank)
            env = clean_env(OPENAI_API_KEY="sk-heretix-quickstart", **every_vendor_at_the_fake())
            out = run_shell(heredoc.group(0) + "\n" + line, cwd, env)
            self.assertEqual(out.returncode, 0, out.stderr)
            out_file = re.search(r"--out (\S+)", line)
            written = json.loads((cwd / out_file.group(1)).read_text()) if out_file else None

        lines = out.stdout.splitlines()
        self.assertTrue(lines[0].startswith(f"Running {config['model']}  K={config['K']} R={config['R']}  version="), lines[0])
        self.assertIsNotNone(written, "the README's command writes --out")
        assert written is not None
        (result,) = written["runs"]
        stored = stored_result(result["execution_id"])
        self.assertEqual({k: v for k, v in result.items() if k != "execution_id"}, stored)
        self.assertEqual(lines[1], heretix_row(stored))
        self.assertEqual(stored["sampling"], {"K": config["K"], "R": config["R"], "T": config["T"]})
        self.assertEqual(stored["aggregation"]["B"], config["B"])
        requests = recorded_requests(config["model"])
        self.assertEqual(len(requests), config["K"] * config["R"])
        self.assertTrue(all(r["headers"]["authorization"] == "***tart" for r in requests))  # the key's tail


if __name__ == "__main__":
    unittest.main()
