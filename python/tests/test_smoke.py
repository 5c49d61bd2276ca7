"""The server the tests run against answers: GET /healthz through urllib, no client involved."""

from __future__ import annotations

import json
import os
import unittest
import urllib.request


class HealthTest(unittest.TestCase):
    def test_healthz_answers_ok_with_the_health_schema(self) -> None:
        base = os.environ["ASSAY_URL"].rstrip("/")
        with urllib.request.urlopen(base + "/healthz", timeout=60) as res:
            self.assertEqual(res.status, 200)
            health = json.load(res)
        with urllib.request.urlopen(base + "/openapi.json", timeout=60) as res:
            schema = json.load(res)["components"]["schemas"]["Health"]
        self.assertEqual(health["status"], "ok")
        self.assertEqual(sorted(health), sorted(schema["required"]))


if __name__ == "__main__":
    unittest.main()
