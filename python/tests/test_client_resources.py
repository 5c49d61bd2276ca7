"""The tenant's own things through the client, on a tenant of the test's own so every list holds only
what the test made: keys, webhook secret, provider connections (used by a run against the fake model
endpoint), prompts, settings, usage, vrty and its IDF tables, suites, datasets, and the admin routes."""

from __future__ import annotations

import json
import unittest
import uuid

from support import OPENAPI, admin_client, present, client, fake_openai_url, fresh_tenant, register_scenario, scenario_id

from assay_client import AssayError, Client

SUITE = OPENAPI.parent.parent / "examples" / "chain-determinism" / "suite.json"


class TenantResources(unittest.TestCase):
    c: Client
    tenant: str

    @classmethod
    def setUpClass(cls) -> None:
        cls.tenant, key = fresh_tenant()
        cls.c = client(api_key=key)

    def test_keys_create_list_revoke(self) -> None:
        made = self.c.keys.create({"name": "py-second"})
        self.assertTrue(made["key"].startswith("assay_sk_"))
        second = client(api_key=made["key"])
        self.assertEqual(second.settings.get(), self.c.settings.get())  # the same tenant
        self.assertIn(made["id"], [k["id"] for k in self.c.keys.list()])
        self.c.keys.revoke(made["id"])
        with self.assertRaises(AssayError) as caught:
            second.runs.get("run_x")
        self.assertEqual(caught.exception.status, 401)

    def test_webhook_secret(self) -> None:
        self.assertEqual(self.c.webhooks.secret_info()["exists"], False)
        secret = self.c.webhooks.rotate_secret()
        info = self.c.webhooks.secret_info()
        self.assertTrue(info["exists"])
        self.assertTrue(secret)

    def test_a_saved_provider_connection_runs_against_the_fake_endpoint(self) -> None:
        name = f"fake-{uuid.uuid4().hex[:6]}"
        model = register_scenario({"id": scenario_id("provider"), "agent": {"calls": 2}})
        saved = self.c.providers.create({"name": name, "base_url": fake_openai_url(), "api_key": "sk-fake-provider-key"})
        self.assertEqual(saved["name"], name)
        self.assertNotIn("sk-fake-provider-key", json.dumps(saved))
        self.assertEqual(self.c.providers.get(name)["base_url"], fake_openai_url())
        self.assertEqual([p["name"] for p in self.c.providers.list()], [name])
        run = self.c.chain_determinism.create(
            {"model": model, "provider": {"connection": name}, "n_queries": 1, "n_replays": 2}
        )
        final = self.c.runs.wait(run)
        self.assertEqual(final["status"], "succeeded")
        self.assertEqual(present(final["result"])["n_total"], 2)
        replaced = self.c.providers.replace(name, {"base_url": fake_openai_url().rstrip("/") + "/"})
        self.assertEqual(replaced["name"], name)
        self.c.providers.delete(name)
        with self.assertRaises(AssayError) as caught:
            self.c.providers.get(name)
        self.assertEqual(caught.exception.status, 404)

    def test_prompts_versions(self) -> None:
        body = {
            "kind": "judge",
            "name": "py-critic",
            "version": "1",
            "system_prompt": "You review one item and answer with JSON only.",
            "user_prompt_template": 'Item:\n{query}\nLabels: {labels}.\nAnswer {{"kind": "<label>", "confidence": <0-1>, "reasoning": "<why>"}}',
        }
        first = self.c.prompts.create(body)
        second = self.c.prompts.create({**body, "version": "2", "system_prompt": "Answer with JSON only."})
        self.assertEqual(sorted(p["ref"] for p in self.c.prompts.list(kind="judge")), ["py-critic@1", "py-critic@2"])
        self.assertEqual(list(self.c.prompts.list(kind="rpl")), [])
        self.assertEqual(sorted(p["version"] for p in self.c.prompts.versions("py-critic")), ["1", "2"])
        self.assertEqual(self.c.prompts.get("py-critic", "1")["sha256"], first["sha256"])
        self.assertNotEqual(first["sha256"], second["sha256"])

    def test_settings_and_usage(self) -> None:
        self.assertEqual(self.c.settings.update({"retention_days": 30})["retention_days"], 30)
        self.assertEqual(self.c.settings.get()["retention_days"], 30)
        usage = self.c.usage.get()
        self.assertIsInstance(usage["runs"], int)

    def test_vrty_score_batch_and_idf_tables(self) -> None:
        one = self.c.vrty.score("What is the capital of France?", "Paris is the capital of France.")
        batch = self.c.vrty.batch(
            [
                {"prompt": "What is the capital of France?", "response": "Paris is the capital of France."},
                {"prompt": "Name a prime.", "response": "Seven."},
            ]
        )
        # The batch's first answer is the single score of the same pair.
        self.assertEqual(json.dumps(present(batch["results"][0].get("result")), sort_keys=True), json.dumps(one, sort_keys=True))
        table = self.c.vrty.idf_tables.create({"name": "py-idf", "documents": ["paris is a city", "seven is a prime", "a city"]})
        self.assertIn(table["id"], [t["id"] for t in self.c.vrty.idf_tables.list()])
        self.assertEqual(self.c.vrty.idf_tables.get(table["id"])["id"], table["id"])
        scored = self.c.vrty.score("What is the capital of France?", "Paris is the capital of France.", idf_table=table["id"])
        self.assertNotEqual(scored["idf_sha256"], one["idf_sha256"])
        self.c.vrty.idf_tables.delete(table["id"])
        with self.assertRaises(AssayError):
            self.c.vrty.idf_tables.get(table["id"])

    def test_suites(self) -> None:
        body = json.loads(SUITE.read_text(encoding="utf-8"))
        suite = self.c.chain_determinism.suites.create({**body, "name": "py-suite"})
        self.assertIn(suite["id"], [s["id"] for s in self.c.chain_determinism.suites.list()])
        self.assertEqual(self.c.chain_determinism.suites.get(suite["id"])["sha256"], suite["sha256"])
        self.c.chain_determinism.suites.delete(suite["id"])
        with self.assertRaises(AssayError):
            self.c.chain_determinism.suites.get(suite["id"])

    def test_datasets(self) -> None:
        items = [{"question": "What is 2 + 3?", "answer": "5"}, {"question": "What is 4 * 2?", "answer": "8"}]
        dataset = self.c.reasoning_quality.datasets.upload({"name": "py-arith", "format": "json", "items": items})
        self.assertEqual([d["id"] for d in self.c.reasoning_quality.datasets.list()], [dataset["id"]])
        detail = self.c.reasoning_quality.datasets.get(dataset["id"])
        self.assertEqual(detail["id"], dataset["id"])
        self.c.reasoning_quality.datasets.delete(dataset["id"])
        self.assertEqual(list(self.c.reasoning_quality.datasets.list()), [])


class AdminRoutes(unittest.TestCase):
    def test_tenants_keys_quotas_platform(self) -> None:
        admin = admin_client().admin
        tenant, _ = fresh_tenant()
        self.assertIn(tenant, [t["id"] for t in admin.tenants()])
        key = admin.create_key(tenant, {"name": "py-admin"})
        self.assertIn(key["id"], [k["id"] for k in admin.keys(tenant)])
        admin.revoke_key(key["id"])
        self.assertEqual(admin.set_quotas(tenant, {"concurrent_runs": 3})["quotas"]["concurrent_runs"], 3)
        self.assertEqual(admin.quotas(tenant)["quotas"]["concurrent_runs"], 3)
        self.assertIsInstance(admin.platform(), dict)

    def test_admin_routes_need_the_token(self) -> None:
        with self.assertRaises(ValueError):
            Client(base_url="http://127.0.0.1:9", api_key="k").admin.platform()
        with self.assertRaises(AssayError) as caught:
            client(admin_token="not-the-token").admin.platform()
        self.assertEqual(caught.exception.status, 401)
        self.assertNotIn("not-the-token", str(caught.exception))


class ServerInfo(unittest.TestCase):
    def test_health_and_index(self) -> None:
        c = client()
        self.assertEqual(c.health()["status"], "ok")
        self.assertIsInstance(c.index(), dict)


if __name__ == "__main__":
    unittest.main()
