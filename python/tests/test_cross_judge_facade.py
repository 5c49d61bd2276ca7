"""assay_client.cross_judge against the real server and the loopback fake model endpoint.

Needs ASSAY_URL, ASSAY_API_KEY and FAKE_OPENAI_URL (loopback, checked by support.env). Every vendor's
base URL is pointed at the fake endpoint (``<VENDOR>_BASE_URL``) before any call, so nothing can leave
the machine. Each test has its own scenario ids (= model names, support.scenario_id). Expected values come from what the scenarios were told to answer,
from exact computations here, and from the server's own records read with plain urllib.
"""

from __future__ import annotations

import json
import os
import tempfile
import unittest
from collections import defaultdict
from itertools import permutations
from pathlib import Path
from typing import Any, DefaultDict, Dict, List, Optional, Tuple
from unittest import mock

from support import (
    api_get,
    client,
    fake_openai_url,
    judge_runs_with,
    recorded_requests,
    register_scenario,
    scenario_id,
)

from assay_client import AssayError
from assay_client.cross_judge import VENDOR_KEY_ENV, Critic, Ensemble, vendor_base_url_env

WAIT = 120.0  # bounds each run's wait; the runs here take a second or two


def verdict_json(kind: str, confidence: float, reasoning: str) -> str:
    return json.dumps({"kind": kind, "confidence": confidence, "reasoning": reasoning})


def scenario(prefix: str, **fields: Any) -> str:
    """A fake-endpoint scenario of this test's own; its id is the model name to use."""
    return register_scenario({"id": scenario_id(prefix), **fields})


def nominal_alpha(units: List[List[str]]) -> Optional[float]:
    """Textbook nominal Krippendorff's alpha (coincidence matrix); units with < 2 values are dropped."""
    o: DefaultDict[Tuple[str, str], float] = defaultdict(float)
    for values in units:
        if len(values) < 2:
            continue
        for a, b in permutations(range(len(values)), 2):
            o[(values[a], values[b])] += 1 / (len(values) - 1)
    n_c: DefaultDict[str, float] = defaultdict(float)
    for (c, _k), w in o.items():
        n_c[c] += w
    n = sum(n_c.values())
    disagree = sum(w for (c, k), w in o.items() if c != k)
    expected = sum(n_c[c] * n_c[k] for c in n_c for k in n_c if c != k)
    if n < 2 or expected == 0:
        return None
    return 1 - (n - 1) * disagree / expected


def sim(name: str, label: str) -> Critic:
    """A simulated critic that always answers `label` (no endpoint, no key)."""
    return Critic(name=name, model=f"sim:{name}", simulator={"bias": {"label": label, "rate": 1}})


class CrossJudgeTest(unittest.TestCase):
    saved: Dict[str, Optional[str]] = {}

    @classmethod
    def setUpClass(cls) -> None:
        # Before any call: every vendor at the fake endpoint, with a key of our own.
        fake = fake_openai_url()
        for vendor, key_env in VENDOR_KEY_ENV.items():
            for name, value in ((vendor_base_url_env(vendor), fake), (key_env, f"sk-test-{vendor}-key1")):
                cls.saved[name] = os.environ.get(name)
                os.environ[name] = value

    @classmethod
    def tearDownClass(cls) -> None:
        for name, value in cls.saved.items():
            if value is None:
                os.environ.pop(name, None)
            else:
                os.environ[name] = value

    def test_voting_strategies_and_kwargs_map_to_the_servers(self) -> None:
        # a says KEEP, b says REJECT: a 1–1 split, so every strategy's rule shows in the consensus.
        cases = [
            ("majority", {}, "KEEP", {}),  # tie: the first label seen wins
            ("majority", {"priority": ["REJECT", "KEEP"]}, "REJECT", {"priority": ["REJECT", "KEEP"]}),
            ("unanimous", {"fallback": "NEEDS_REVIEW"}, "NEEDS_REVIEW", {"fallback": "NEEDS_REVIEW"}),
            ("weighted", {"weights": {"b": 3.0}, "use_confidence": False}, "REJECT",
             {"use_confidence": False, "weights": {"a": 1, "b": 3}}),  # the server records every weight
            ("first_disagreement", {"disagree_label": "SPLIT_VOTE"}, "SPLIT_VOTE", {"disagree_label": "SPLIT_VOTE"}),
            ("MAJORITY", {}, "KEEP", {}),  # names are case-insensitive and echoed as given
        ]
        for voting, kwargs, consensus, stored_kwargs in cases:
            with self.subTest(voting=voting, kwargs=kwargs):
                ensemble = Ensemble([sim("a", "KEEP"), sim("b", "REJECT")], voting=voting, voting_kwargs=kwargs,
                                    timeout=WAIT)
                got = ensemble.judge("Is a 1-1 split settled by the voting rule?", query_id="split")
                self.assertEqual(got.consensus, consensus)
                self.assertTrue(got.disagreement)
                self.assertEqual(got.voting, voting)
                self.assertEqual([(v.critic_id, v.kind) for v in got.verdicts], [("a", "KEEP"), ("b", "REJECT")])
                run = api_get(f"/v1/runs/{got.run_id}")
                self.assertEqual(run["config"]["voting"], {"strategy": voting.lower(), "kwargs": stored_kwargs})
                self.assertEqual(run["result"]["items"][0]["consensus"], consensus)
                weights = {c["name"]: c["weight"] for c in run["config"]["critics"]}
                self.assertEqual(weights, {"a": 1, "b": 3.0 if voting == "weighted" else 1})

    def test_a_strategys_wrong_option_is_the_servers_400_and_callables_are_refused(self) -> None:
        ensemble = Ensemble([sim("a", "KEEP"), sim("b", "KEEP")], voting="unanimous",
                            voting_kwargs={"priority": ["KEEP"]})
        with self.assertRaises(AssayError) as caught:
            ensemble.judge("x")
        self.assertEqual(caught.exception.status, 400)
        self.assertIn("voting.priority", [e.get("path", e.get("field")) for e in caught.exception.errors])
        with self.assertRaises(TypeError):
            Ensemble([sim("a", "KEEP")], voting=lambda verdicts: ("KEEP", False))

    def test_from_yaml_prompt_sends_the_files_prompts(self) -> None:
        with_system = scenario("cj-yaml-system", text=verdict_json("KEEP", 0.7, "same exponent"))
        without_system = scenario("cj-yaml-default", text=verdict_json("REJECT", 0.4, "different mechanism"))
        template = 'Candidate: {query}\nDomain: {domain}\nOutput JSON: {{"kind": "<KEEP|REJECT>", "confidence": <0-1>}}\n'
        with tempfile.TemporaryDirectory() as tmp:
            full = Path(tmp, "critic.yaml")
            full.write_text(
                'version: "0.3"\n'
                "description: a prompt of this test\n"
                'system_prompt: "You judge physics analogies. Output JSON only."\n'
                "user_prompt_template: |\n"
                + "".join(f"  {line}\n" for line in template.splitlines()),
                encoding="utf-8",
            )
            bare = Path(tmp, "bare.yaml")
            bare.write_text(
                'version: "0.1"\nuser_prompt_template: "Judge {query} in {domain}."\n', encoding="utf-8"
            )
            critics = [
                Critic.from_yaml_prompt(name="full", model=with_system, yaml_path=str(full), vendor="openai",
                                        temperature=0.2),
                Critic.from_yaml_prompt(name="bare", model=without_system, yaml_path=str(bare), vendor="openai"),
            ]
        query = "Avalanches in sandpiles and neuronal avalanches"
        got = Ensemble(critics, timeout=WAIT).judge(query, query_id="yaml-1", context={"domain": "criticality"})
        self.assertEqual([(v.kind, v.confidence, v.reasoning) for v in got.verdicts],
                         [("KEEP", 0.7, "same exponent"), ("REJECT", 0.4, "different mechanism")])

        [full_req] = recorded_requests(with_system)
        self.assertEqual(full_req["body"]["messages"], [
            {"role": "system", "content": "You judge physics analogies. Output JSON only."},
            {"role": "user", "content": template.format(query=query, domain="criticality")},
        ])
        self.assertEqual(full_req["body"]["temperature"], 0.2)
        [bare_req] = recorded_requests(without_system)
        self.assertEqual(bare_req["body"]["messages"], [
            {"role": "system", "content": "You are a careful judge."},  # cross-judge's YAML default
            {"role": "user", "content": f"Judge {query} in criticality."},
        ])

    def test_batch_makes_one_run_with_every_item(self) -> None:
        # Three critics on four items; what each answers is set per item by the query's words.
        answers_of = {
            "x": {"alpha": ("KEEP", 0.9), "beta": ("KEEP", 0.6), "gamma": ("REJECT", 0.8), "delta": ("KEEP", 0.5)},
            "y": {"alpha": ("KEEP", 0.8), "beta": ("REJECT", 0.7), "gamma": ("REJECT", 0.9), "delta": None},
            "z": {"alpha": ("KEEP", 0.7), "beta": ("REJECT", 0.5), "gamma": ("KEEP", 0.4), "delta": ("MERGE", 0.6)},
        }
        prose = "I would rather not answer in JSON."  # delta for y: a PARSE_FAIL verdict, not a vote
        plan = {
            scenario(f"cj-batch-{name}", answers=[
                {"contains": f"item {word}",
                 "content": prose if a is None else verdict_json(a[0], a[1], f"{name} on {word}")}
                for word, a in answers.items()
            ]): answers
            for name, answers in answers_of.items()
        }
        models = list(plan)
        critics = [Critic(name=name, model=m, vendor="openrouter") for name, m in zip(answers_of, models)]
        items = [{"query": f"item {w}", "query_id": f"q-{w}", "meta": {"word": w}} for w in answers_of["x"]]
        batch = Ensemble(critics, voting="majority", timeout=WAIT).judge_batch(items)

        self.assertEqual([r["id"] for r in judge_runs_with(models)], [batch.run_id])  # ONE run
        self.assertEqual(len(batch), 4)
        self.assertTrue(all(r.run_id == batch.run_id for r in batch))
        for model in models:
            self.assertEqual(len(recorded_requests(model)), 4)

        expected_consensus = {"alpha": "KEEP", "beta": "REJECT", "gamma": "REJECT", "delta": "KEEP"}
        units: List[List[str]] = []
        for got in batch:
            word = got.meta["word"]
            self.assertEqual(got.query_id, f"q-{word}")
            valid = [plan[m][word] for m in models if plan[m][word] is not None]
            units.append([a[0] for a in valid])
            self.assertEqual(got.consensus, expected_consensus[word])
            self.assertAlmostEqual(got.agreement_pct, sum(a[0] == got.consensus for a in valid) / len(valid))
            self.assertAlmostEqual(got.avg_confidence, sum(a[1] for a in valid) / len(valid))
            self.assertEqual(got.krippendorff_alpha, 1.0 if len({a[0] for a in valid}) == 1 else 0.0)
            for critic, model, v in zip(critics, models, got.verdicts):
                self.assertEqual(v.critic_id, critic.name)
                answer = plan[model][word]
                if answer is None:
                    self.assertEqual((v.kind, v.error, v.raw_response), ("PARSE_FAIL", "parse_fail", prose))
                else:
                    self.assertEqual((v.kind, v.confidence, v.reasoning, v.error),
                                     (answer[0], answer[1], f"{critic.name} on {word}", None))

        alpha = nominal_alpha(units)
        assert alpha is not None
        assert batch.krippendorff_alpha is not None
        self.assertAlmostEqual(batch.krippendorff_alpha, alpha, places=12)
        stored = api_get(f"/v1/runs/{batch.run_id}")
        self.assertEqual(stored["config"]["n_items"], 4)
        self.assertEqual(stored["progress"]["total"], 12)
        self.assertEqual(stored["result"]["batch"]["alpha"]["alpha"], batch.krippendorff_alpha)
        self.assertEqual([i["consensus"] for i in stored["result"]["items"]], [r.consensus for r in batch])

    def test_an_endpoint_error_is_an_error_verdict_not_a_vote(self) -> None:
        ok = scenario("cj-error-ok", text=verdict_json("REJECT", 0.7, "no"))
        bad = scenario("cj-error-bad", faults=[{"respond": {"status": 400}}])  # a client error: not retried
        template = "Topic {topic}: {query}"
        got = Ensemble(
            [Critic(name="ok", model=ok, vendor="openai", prompt_template=template),
             Critic(name="bad", model=bad, vendor="deepseek", prompt_template=template)],
            timeout=WAIT,
        ).judge("the argument", query_id="err-1", topic="physics", context={"query": "the context's query"})
        self.assertEqual((got.consensus, got.agreement_pct, got.krippendorff_alpha), ("REJECT", 1.0, None))
        self.assertEqual(got.avg_confidence, 0.7)
        self.assertEqual(got.verdicts[1].kind, "ERROR")
        self.assertIn("400", got.verdicts[1].error or "")
        # The critic's default system prompt is cross-judge's; keyword context fills {topic}; a context
        # `query` wins over the argument, as in cross-judge.
        [req] = recorded_requests(ok)
        self.assertEqual(req["body"]["messages"], [
            {"role": "system", "content": "You are a careful judge. Output strict JSON only."},
            {"role": "user", "content": "Topic physics: the context's query"},
        ])

    def test_keys_travel_only_as_the_critics_provider_key(self) -> None:
        model = scenario("cj-keys", text=verdict_json("KEEP", 1, "ok"))
        given = "sk-given-critic-key-9z9z"
        got = Ensemble([Critic(name="k", model=model, vendor="deepseek", api_key=given)], timeout=WAIT).judge("q")
        [req] = recorded_requests(model)
        self.assertEqual(req["headers"]["authorization"], "***" + given[-4:])
        stored = json.dumps(api_get(f"/v1/runs/{got.run_id}"))
        self.assertNotIn(given, stored)

        # No key anywhere: refused before anything is sent, naming the variable cross-judge reads.
        unused = scenario("cj-nokey", text=verdict_json("KEEP", 1, "never asked"))
        saved = os.environ.pop("TOGETHER_API_KEY")
        try:
            with self.assertRaisesRegex(ValueError, "TOGETHER_API_KEY"):
                Ensemble([Critic(name="t", model=unused, vendor="together")]).judge("q")
        finally:
            os.environ["TOGETHER_API_KEY"] = saved
        self.assertEqual(recorded_requests(unused), [])
        with self.assertRaisesRegex(ValueError, "base_url"):
            Ensemble([Critic(name="c", model="m", vendor="my-own-vendor")]).judge("q")

    def test_a_saved_connection_instead_of_a_key(self) -> None:
        model = scenario("cj-connection", text=verdict_json("MERGE", 0.6, "overlaps"))
        name = scenario_id("cj-conn")
        saved_key = "sk-saved-connection-key-c0nn"
        c = client()
        c.providers.create({"name": name, "base_url": fake_openai_url(), "api_key": saved_key})
        try:
            # No key in the environment or the critic: the connection's key is used on the server.
            saved = os.environ.pop("DEEPSEEK_API_KEY")
            try:
                got = Ensemble([Critic(name="s", model=model, connection=name)], timeout=WAIT).judge("q")
            finally:
                os.environ["DEEPSEEK_API_KEY"] = saved
        finally:
            c.providers.delete(name)
        self.assertEqual(got.consensus, "MERGE")
        [req] = recorded_requests(model)
        self.assertEqual(req["headers"]["authorization"], "***" + saved_key[-4:])
        self.assertEqual(api_get(f"/v1/runs/{got.run_id}")["config"]["critics"][0]["connection"], name)


class CriticKeys(unittest.TestCase):
    """A critic of a real model without a key: refused before anything is sent, unless it names its own
    endpoint (a vendor without a preset, e.g. a local server, may take none). Offline: to_request() only."""

    def setUp(self) -> None:
        no_model_env = {k: v for k, v in os.environ.items() if not k.endswith(("_API_KEY", "_BASE_URL"))}
        patcher = mock.patch.dict(os.environ, no_model_env, clear=True)
        patcher.start()
        self.addCleanup(patcher.stop)

    def test_a_vendor_with_a_preset_needs_its_key(self) -> None:
        for vendor, key_env in VENDOR_KEY_ENV.items():
            with self.subTest(vendor=vendor), self.assertRaisesRegex(ValueError, f"Critic 'c': no API key: pass api_key= or set {key_env}"):
                Critic(name="c", model="some-model", vendor=vendor).to_request()

    def test_a_vendor_without_a_preset_needs_a_base_url_and_then_no_key(self) -> None:
        with self.assertRaisesRegex(ValueError, "unknown vendor 'mine'. Pass base_url explicitly"):
            Critic(name="c", model="local-model", vendor="mine").to_request()
        local = "http://127.0.0.1:9/v1"
        self.assertEqual(Critic(name="c", model="local-model", vendor="mine", base_url=local).to_request()["provider"], {"base_url": local})

    def test_the_environments_key_travels_with_the_vendor(self) -> None:
        os.environ["DEEPSEEK_API_KEY"] = "sk-cj-offline-1234"
        critic = Critic(name="c", model="deepseek-chat").to_request()
        self.assertEqual((critic["vendor"], critic["provider"]), ("deepseek", {"api_key": "sk-cj-offline-1234"}))


if __name__ == "__main__":
    unittest.main()
