"""assay_client.rqeval against the real server: the summary and the outputs folder are the run the
server stored, keys per vendor come from the environment (a model without one is skipped), errors
name the config entry or the request field, and the original's quick-start command (read from its
README at test time) runs with only `python main.py` changed, on a config of the README's own blocks."""

from __future__ import annotations

import json
import os
import re
import tempfile
import unittest
from pathlib import Path
from typing import Any, Dict, List, Mapping
from unittest import mock

from _live import (
    api_bytes,
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

from assay_client import AssayError, rqeval
from assay_client._model_keys import ConfigError
from assay_client._yaml import load_yaml

TINY = {"name": "synthetic", "params": {"num_reasoning": 2, "num_adversarial": 1, "num_robustness": 1}}
METRICS = {"consistency_runs": 2, "robustness_perturbations": 1}


def config(models: List[Dict[str, Any]], **extra: Any) -> Dict[str, Any]:
    return {"experiment": {"name": "py-rq"}, "metrics": METRICS, "models": models, "datasets": [TINY], **extra}


def without_experiment_id(m: Mapping[str, Any]) -> Dict[str, Any]:
    return {k: v for k, v in m.items() if k != "experiment_id"}


def closing_row(m: Mapping[str, Any]) -> str:
    """The original's closing-table row, computed here from the stored result."""
    keys = ("correctness", "consistency", "robustness", "logical_coherence", "efficiency", "stability")
    f = lambda x: f"{x:.3f}" if isinstance(x, (int, float)) else "  n/a"  # noqa: E731
    return f" {m['model']:<24} {'  '.join(f(m['raw_metrics'].get(k)) for k in keys)}   {f(m['aggregated'].get('balanced'))}"


@needs_server
class Run(unittest.TestCase):
    def test_the_summary_and_the_folder_are_the_run_the_server_stored(self) -> None:
        cfg = config(
            [{"name": "Mock-A", "type": "mock"}, {"name": "Mock/B", "type": "mock", "params": {"accuracy_level": 0.4}}],
            aggregation={"strategies": {"mine": {"correctness": 0.5, "robustness": 0.5}}},
        )
        with tempfile.TemporaryDirectory() as tmp, mock.patch.dict(os.environ, clean_env(), clear=True):
            summary = rqeval.run(cfg, out_dir=tmp, log=lambda _: None)
            folder = Path(tmp) / summary["experiment_id"]
            files = {p.name: p.read_bytes() for p in folder.iterdir()}
        stored = stored_result(summary["run_id"])
        self.assertEqual([without_experiment_id(m) for m in summary["results"]], stored["models"])
        self.assertEqual((summary["rankings"], summary["strategies"]), (stored["rankings"], stored["strategies"]))
        self.assertIn("mine", stored["strategies"])
        self.assertEqual(summary["num_models"], 2)
        self.assertTrue(summary["experiment_id"].startswith("py-rq_"))
        self.assertEqual(json.loads(files["summary.json"]), summary)
        self.assertEqual(json.loads(files["Mock_B_result.json"]), summary["results"][1])
        self.assertEqual(files["radar_plot.svg"], api_bytes(f"/v1/runs/{summary['run_id']}/radar.svg", accept="image/svg+xml"))
        self.assertEqual(files["reasoning_quality_results.xlsx"][:2], b"PK")  # a workbook (a zip)
        # The config's K and P, and the original's default mock accuracy (0.8, not the API's 0.7), reached the run.
        run_cfg = api_get(f"/v1/runs/{summary['run_id']}")["config"]
        self.assertEqual((run_cfg["metrics"]["consistency_runs"], run_cfg["metrics"]["robustness_perturbations"]), (2, 1))
        self.assertEqual([m["simulator"]["accuracy"] for m in run_cfg["models"]], [0.8, 0.4])

    def test_keys_per_vendor_from_the_environment_and_a_model_without_one_is_skipped(self) -> None:
        openai_model, deepseek_model = scenario_id("py-rq-openai"), scenario_id("py-rq-deepseek")
        for m in (openai_model, deepseek_model):
            register_scenario({"id": m, "text": "Reasoning step. The answer is 4."})
        models = [
            {"name": "GPT", "type": "openai", "params": {"model_id": openai_model, "api_key_env": "OPENAI_API_KEY", "max_tokens": 64}},
            {"name": "DeepSeek", "type": "deepseek", "params": {"model_id": deepseek_model}},
            {"name": "Claude", "type": "anthropic", "params": {"model_id": "claude-never-called"}},
            {"name": "Named", "type": "openai", "params": {"model_id": "named-never-called", "api_key_env": "RQ_UNSET_KEY"}},
        ]
        env = clean_env(OPENAI_API_KEY="sk-rq-openai-1111", DEEPSEEK_API_KEY="sk-rq-deepseek-2222", **every_vendor_at_the_fake())
        with tempfile.TemporaryDirectory() as tmp, mock.patch.dict(os.environ, env, clear=True):
            summary = rqeval.run(config(models), out_dir=tmp, log=lambda _: None)
        self.assertEqual(summary["skipped_models"], ["Claude", "Named"])
        self.assertEqual([m["model"] for m in summary["results"]], ["GPT", "DeepSeek"])
        self.assertEqual([m["name"] for m in api_get(f"/v1/runs/{summary['run_id']}")["config"]["models"]], ["GPT", "DeepSeek"])
        for scenario, tail in ((openai_model, "1111"), (deepseek_model, "2222")):
            requests = recorded_requests(scenario)
            self.assertGreater(len(requests), 0)
            self.assertTrue(all(r["headers"]["authorization"] == f"***{tail}" for r in requests))
        self.assertEqual(recorded_requests("claude-never-called") + recorded_requests("named-never-called"), [])

    def test_a_dataset_file_is_uploaded(self) -> None:
        items = [{"id": f"q{i}", "question": f"What is {i} + {i}?", "answer": str(2 * i), "type": "reasoning"} for i in range(3)]
        with tempfile.TemporaryDirectory() as tmp, mock.patch.dict(os.environ, clean_env(), clear=True):
            (Path(tmp) / "mine.json").write_text(json.dumps(items))
            path = Path(tmp) / "config.yaml"
            path.write_text(
                "experiment: {name: files}\nmetrics: {consistency_runs: 2, robustness_perturbations: 0}\n"
                "models:\n  - {name: M, type: mock}\ndatasets:\n  - name: mine\n    type: json\n    params: {path: mine.json}\n"
            )
            summary = rqeval.run(path, out_dir=tmp, log=lambda _: None)
        run = api_get(f"/v1/runs/{summary['run_id']}")
        self.assertEqual(run["config"]["n_items"], 3)

    def test_errors_name_the_entry_or_the_field(self) -> None:
        with mock.patch.dict(os.environ, clean_env(), clear=True):
            bad = config([{"type": "mock"}])
            bad["metrics"] = {"consistency_runs": 0}
            with self.assertRaisesRegex(ConfigError, r"metrics\.consistency_runs: must be at least 1"):
                rqeval.run(bad)
            with self.assertRaisesRegex(ConfigError, r"models: every model was skipped for a missing API key \(GPT\)"):
                rqeval.run(config([{"name": "GPT", "type": "openai", "params": {"model_id": "gpt-4o"}}]))
            with self.assertRaisesRegex(ConfigError, r"models\[0\] \(L\): type local"):
                rqeval.run(config([{"name": "L", "type": "local", "params": {"model_id": "x"}}]))
            with self.assertRaises(AssayError) as cm:
                rqeval.run(config([{"name": "same", "type": "mock"}, {"name": "same", "type": "mock"}]))
        self.assertEqual([e.get("path") for e in cm.exception.errors], ["models.1.name"])

    def test_the_readmes_example(self) -> None:
        with tempfile.TemporaryDirectory() as tmp:
            out = run_module(["-c", readme_example("RQEval (reasoning-quality)")], Path(tmp), clean_env())
            self.assertEqual(out.returncode, 0, out.stderr)
            (folder,) = (Path(tmp) / "outputs").iterdir()
            summary = json.loads((folder / "summary.json").read_text())
        (model,) = stored_result(summary["run_id"])["models"]
        self.assertEqual(out.stdout, f"Mock {model['raw_metrics']['correctness']} {model['aggregated']['balanced']}\n")

    def test_a_saved_connection_instead_of_the_environments_key(self) -> None:
        model = scenario_id("py-rq-conn")
        register_scenario({"id": model, "text": "The answer is 4."})
        models = [{"name": "Saved", "type": "openai", "params": {"model_id": model, "connection": "NAME"}}]
        with saved_connection("sk-rq-conn-5353") as name, tempfile.TemporaryDirectory() as tmp:
            models[0]["params"]["connection"] = name
            with mock.patch.dict(os.environ, clean_env(), clear=True):
                summary = rqeval.run(config(models), out_dir=tmp, log=lambda _: None)
        self.assertEqual(summary["skipped_models"], [])
        requests = recorded_requests(model)
        self.assertGreater(len(requests), 0)
        self.assertTrue(all(r["headers"]["authorization"] == "***5353" for r in requests))


class MetricModels(unittest.TestCase):
    """`metrics.ls` / `metrics.ss` naming a model, read by plan() with an empty environment: nothing is
    sent anywhere. Without a key only the block's own base_url may make a keyless provider; else the
    config is refused, as for the models, rather than the server sent to OpenAI without a key."""

    def metrics(self, **blocks: Any) -> Dict[str, Any]:
        return config([{"name": "M", "type": "mock"}], metrics={**METRICS, **blocks})

    def test_a_real_model_without_a_key_is_refused_naming_the_field_and_the_variable(self) -> None:
        for key, model in (("ls", "gpt-4o-mini"), ("ss", "text-embedding-3-small")):
            with self.subTest(key=key):
                with self.assertRaisesRegex(ConfigError, rf"^config: metrics\.{key}: model {model} needs a key: set OPENAI_API_KEY"):
                    rqeval.plan(self.metrics(**{key: {"model": model}}), env={})

    def test_a_named_key_variable_that_is_unset_is_refused_naming_the_field(self) -> None:
        with self.assertRaisesRegex(ConfigError, r"^config: metrics\.ls: RQ_LS_KEY is not set"):
            rqeval.plan(self.metrics(ls={"model": "gpt-4o-mini", "api_key_env": "RQ_LS_KEY"}), env={})

    def test_an_explicit_base_url_needs_no_key(self) -> None:
        local = "http://127.0.0.1:9/v1"
        cfg = self.metrics(ls={"model": "local-checker", "base_url": local}, ss={"model": "local-embed", "base_url": local})
        p = rqeval.plan(cfg, env={})
        self.assertEqual(p.request["ls"], {"model": "local-checker", "method": "model", "provider": {"base_url": local}})
        self.assertEqual(p.request["ss"], {"model": "local-embed", "method": "embeddings", "provider": {"base_url": local}})

    def test_the_environments_key_travels_and_a_sim_model_needs_none(self) -> None:
        env = {"OPENAI_API_KEY": "sk-rq-ls-0000"}
        p = rqeval.plan(self.metrics(ls={"model": "gpt-4o-mini"}, ss={"model": "sim:embed"}), env=env)
        self.assertEqual(p.request["ls"]["provider"], {"base_url": "https://api.openai.com/v1", "api_key": "sk-rq-ls-0000"})
        self.assertEqual(p.request["ss"], {"model": "sim:embed", "method": "embeddings"})


@needs_server
class QuickStart(unittest.TestCase):
    """The README's "Run full evaluation" command, `python main.py --config config/config.yaml` →
    `python -m assay_client.rqeval --config config/config.yaml`, on a config/config.yaml made of the
    README's own blocks (experiment settings, an API model, a custom strategy) plus a small synthetic
    dataset and K=2, P=1 so the run is short. The README's model name is the fake endpoint's scenario."""

    def yaml_block(self, readme: str, *needles: str) -> Dict[str, Any]:
        for block in re.findall(r"```yaml\n(.*?)```", readme, re.S):
            if all(n in block for n in needles):
                return load_yaml(block)
        self.fail(f"the README has no yaml block with {needles}")

    def test_the_readmes_quick_start(self) -> None:
        readme = seed_readme(self, "llm-reasoning-quality")
        command = re.search(r"^python main\.py --config config/config\.yaml$", readme, re.M)
        self.assertIsNotNone(command, "the README's `python main.py --config config/config.yaml` is gone")
        assert command is not None
        cfg: Dict[str, Any] = {}
        cfg.update(self.yaml_block(readme, "experiment:", "max_workers:"))
        cfg.update(self.yaml_block(readme, "models:", 'api_key_env: "OPENAI_API_KEY"'))
        cfg.update(self.yaml_block(readme, "aggregation:", "strategies:"))
        cfg["datasets"], cfg["metrics"] = [TINY], METRICS
        model_id = cfg["models"][0]["params"]["model_id"]
        register_scenario({"id": model_id, "text": "Let me think. The answer is 42."})

        with tempfile.TemporaryDirectory() as tmp:
            (Path(tmp) / "config").mkdir()
            (Path(tmp) / "config" / "config.yaml").write_text(json.dumps(cfg, indent=2))  # JSON is YAML
            env = clean_env(OPENAI_API_KEY="sk-rq-quickstart-7777", **every_vendor_at_the_fake())
            out = run_shell(command.group(0).replace("python main.py", "python -m assay_client.rqeval", 1), Path(tmp), env)
            self.assertEqual(out.returncode, 0, out.stderr)
            folder = Path(tmp) / re.search(r"^  Results -> (.+)$", out.stdout, re.M).group(1)  # type: ignore[union-attr]
            summary = json.loads((folder / "summary.json").read_text())
        stored = stored_result(summary["run_id"])
        self.assertEqual([without_experiment_id(m) for m in summary["results"]], stored["models"])
        self.assertTrue(summary["experiment_id"].startswith(cfg["experiment"]["name"] + "_"))
        self.assertIn(closing_row(stored["models"][0]), out.stdout.splitlines())
        self.assertIn("my_strategy", stored["strategies"])
        requests = recorded_requests(model_id)
        self.assertGreater(len(requests), 0)
        self.assertTrue(all(r["headers"]["authorization"] == "***7777" for r in requests))
        self.assertTrue(all(r["body"]["temperature"] == cfg["models"][0]["params"]["temperature"] for r in requests))


if __name__ == "__main__":
    unittest.main()
