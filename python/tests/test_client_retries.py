"""Retries: 429/503 with Retry-After are waited out and tried again with the same Idempotency-Key, so
one run is made however many attempts it takes; what is unsafe to repeat (a 500, 502 or 504 or a lost
connection after a POST without a key) is not repeated; no pause runs past a wait's timeout; and a
redirect is never followed (it would carry the API key to another host)."""

from __future__ import annotations

import email.utils
import random
import time
import unittest
from typing import List

from support import Fault, FaultProxy, admin_client, client, env, fresh_tenant, present

from assay_client import AssayError, AssayTimeoutError
from assay_client._retry import parse_retry_after


def recording(c) -> List[float]:  # type: ignore[no-untyped-def]
    """Makes the client record its pauses instead of sleeping them (so no test waits on the clock)."""
    pauses: List[float] = []
    c._http.sleep = pauses.append
    return pauses


def small_run(seed: int) -> dict:
    return {"model": "sim:agent", "n_queries": 1, "n_replays": 2, "seed": seed}


def runs_with_seed(seed: int) -> List[str]:
    """The ids of the dev tenant's chain-determinism runs made with this seed (each test draws its own)."""
    return [r["id"] for r in client().runs.list(evaluator="chain-determinism") if str(r["config"].get("seed")) == str(seed)]


class RetryAfter(unittest.TestCase):
    def test_a_create_refused_twice_is_retried_with_the_same_key_and_makes_one_run(self) -> None:
        seed = random.randrange(2**31)
        with FaultProxy() as proxy:
            proxy.fail(
                "POST /v1/chain-determinism/runs",
                Fault(status=503, headers={"Retry-After": "2"}),
                Fault(status=429, headers={"Retry-After": "3"}),
            )
            c = client(base_url=proxy.url)
            pauses = recording(c)
            run = c.chain_determinism.create(small_run(seed))
            attempts = proxy.requests("POST /v1/chain-determinism/runs")
        self.assertEqual(pauses, [2.0, 3.0])
        self.assertEqual(len(attempts), 3)
        self.assertTrue(attempts[0].headers["User-Agent"].startswith("assay-client-python/"))
        self.assertEqual(attempts[0].headers["Authorization"], f"Bearer {env('ASSAY_API_KEY')}")
        keys = {a.headers.get("Idempotency-Key") for a in attempts}
        self.assertEqual(len(keys), 1)
        self.assertNotIn(None, keys)
        self.assertEqual(runs_with_seed(seed), [run["id"]])

    def test_an_answer_lost_after_the_server_acted_is_retried_into_the_same_run(self) -> None:
        # The server makes the run, a 500 or 504 comes back instead; the retry with the same key gets that run.
        for status in (500, 504):
            with self.subTest(status=status):
                seed = random.randrange(2**31)
                with FaultProxy() as proxy:
                    proxy.fail("POST /v1/chain-determinism/runs", Fault(status=status, after_forward=True))
                    c = client(base_url=proxy.url)
                    pauses = recording(c)
                    run = c.chain_determinism.create(small_run(seed))
                    attempts = proxy.requests("POST /v1/chain-determinism/runs")
                self.assertEqual(len(attempts), 2)
                self.assertEqual(len(pauses), 1)  # a backoff: no Retry-After
                self.assertEqual(attempts[0].headers["Idempotency-Key"], attempts[1].headers["Idempotency-Key"])
                self.assertEqual(runs_with_seed(seed), [run["id"]])

    def test_a_500_is_retried_only_when_safe(self) -> None:
        with FaultProxy() as proxy:
            proxy.fail("GET /healthz", Fault(status=500))
            proxy.fail("POST /v1/keys", Fault(status=500, body=b'{"status":500,"title":"Internal Server Error"}'))
            c = client(base_url=proxy.url)
            pauses = recording(c)
            self.assertEqual(c.health()["status"], "ok")
            self.assertEqual(len(proxy.requests("GET /healthz")), 2)
            self.assertEqual(len(pauses), 1)
            # The server may have made the key before failing: a second POST could make a second one.
            with self.assertRaises(AssayError) as caught:
                c.keys.create({"name": "py-500"})
            self.assertEqual(caught.exception.status, 500)
            self.assertEqual(len(proxy.requests("POST /v1/keys")), 1)
            self.assertEqual(len(pauses), 1)

    def test_a_dropped_connection_is_retried_only_when_safe(self) -> None:
        with FaultProxy() as proxy:
            proxy.fail("GET /healthz", Fault(drop=True))
            proxy.fail("POST /v1/keys", Fault(drop=True))
            c = client(base_url=proxy.url)
            recording(c)
            self.assertEqual(c.health()["status"], "ok")
            self.assertEqual(len(proxy.requests("GET /healthz")), 2)
            # Creating a key twice would make two keys: not retried.
            with self.assertRaises(AssayError) as caught:
                c.keys.create({"name": "py-dropped"})
            self.assertIsNone(caught.exception.status)
            self.assertEqual(len(proxy.requests("POST /v1/keys")), 1)

    def test_retries_stop_after_max_retries(self) -> None:
        with FaultProxy() as proxy:
            proxy.fail("GET /healthz", *[Fault(status=503, headers={"Retry-After": "1"}) for _ in range(5)])
            c = client(base_url=proxy.url, max_retries=2)
            pauses = recording(c)
            with self.assertRaises(AssayError) as caught:
                c.health()
            self.assertEqual(caught.exception.status, 503)
            self.assertEqual(caught.exception.retry_after, 1.0)
            self.assertEqual(pauses, [1.0, 1.0])
            self.assertEqual(len(proxy.requests("GET /healthz")), 3)

    def test_a_429_without_retry_after_is_not_retried(self) -> None:
        # The API leaves Retry-After out exactly where waiting cannot help (docs/errors.md).
        with FaultProxy() as proxy:
            proxy.fail("GET /healthz", Fault(status=429, body=b'{"status":429,"title":"Too Many Requests"}'))
            c = client(base_url=proxy.url)
            pauses = recording(c)
            with self.assertRaises(AssayError) as caught:
                c.health()
            self.assertEqual(caught.exception.status, 429)
            self.assertEqual(pauses, [])


class Deadlines(unittest.TestCase):
    def test_wait_does_not_pause_past_its_timeout_for_a_retry_after(self) -> None:
        c = client()
        run = c.chain_determinism.create(small_run(random.randrange(2**31)))
        with FaultProxy() as proxy:
            # The event stream and the run itself ("GET /v1/runs/<id>" starts both) ask for 30 s, again
            # and again: more than the wait's whole timeout.
            proxy.fail(f"GET /v1/runs/{run['id']}", *[Fault(status=503, headers={"Retry-After": "30"}) for _ in range(20)])
            waiting = client(base_url=proxy.url)
            pauses = recording(waiting)
            with self.assertRaises(AssayTimeoutError) as caught:
                waiting.runs.wait(run["id"], timeout=10)
            self.assertGreaterEqual(len(proxy.requests(f"GET /v1/runs/{run['id']}")), 1)
        self.assertEqual(caught.exception.run_id, run["id"])
        self.assertTrue(all(p < 10 for p in pauses), pauses)


class Redirects(unittest.TestCase):
    def test_a_redirect_is_an_error_naming_it_and_nothing_reaches_the_other_host(self) -> None:
        with FaultProxy() as elsewhere, FaultProxy() as proxy:
            away = f"{elsewhere.url}/healthz"
            proxy.fail("GET /healthz", Fault(status=307, headers={"Location": away}))
            # urllib's default handler follows a 302 of a POST as a GET, Authorization and all.
            proxy.fail("POST /v1/keys", Fault(status=302, headers={"Location": away}))
            c = client(base_url=proxy.url)
            with self.assertRaises(AssayError) as followed_get:
                c.health()
            with self.assertRaises(AssayError) as followed_post:
                c.keys.create({"name": "py-redirected"})
            self.assertEqual(elsewhere.seen, [])
        self.assertEqual(followed_get.exception.status, 307)
        self.assertEqual(followed_post.exception.status, 302)
        for error in (followed_get.exception, followed_post.exception):
            self.assertIn(away, str(error))
            self.assertNotIn(env("ASSAY_API_KEY"), str(error))


class RealQuota(unittest.TestCase):
    def test_the_servers_own_429_carries_its_quota_and_retry_after(self) -> None:
        tenant, key = fresh_tenant()
        c = client(api_key=key, max_retries=0)
        admin_client().admin.set_quotas(tenant, {"runs_per_minute": 1})
        c.chain_determinism.create(small_run(1))
        with self.assertRaises(AssayError) as caught:
            c.chain_determinism.create(small_run(2))
        error = caught.exception
        self.assertEqual(error.status, 429)
        self.assertEqual(error.type, "/problems/quota-exceeded")
        self.assertEqual(error.problem["quota"], "runs_per_minute")
        self.assertEqual(error.problem["limit"], 1)
        self.assertIsNotNone(error.retry_after)
        # With retries, the client waits out the server's Retry-After each time (recorded, not slept).
        retrying = client(api_key=key, max_retries=2)
        pauses = recording(retrying)
        with self.assertRaises(AssayError):
            retrying.chain_determinism.create(small_run(3))
        self.assertEqual(len(pauses), 2)
        self.assertTrue(all(0 < p <= 60 for p in pauses), pauses)


class ParseRetryAfter(unittest.TestCase):
    def test_seconds_and_http_dates(self) -> None:
        self.assertEqual(parse_retry_after("7"), 7.0)
        now = time.time()
        date = email.utils.formatdate(now + 30, usegmt=True)
        # An HTTP date has whole seconds: 30 s ahead, less the fraction of the current second.
        self.assertAlmostEqual(present(parse_retry_after(date, now=now)), 30.0, delta=1.0)
        self.assertEqual(parse_retry_after(email.utils.formatdate(now - 30, usegmt=True), now=now), 0.0)
        self.assertIsNone(parse_retry_after("soon"))
        self.assertIsNone(parse_retry_after(None))


if __name__ == "__main__":
    unittest.main()
