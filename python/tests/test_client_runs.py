"""Runs through the client against the real server, on the simulator (``sim:*``): each evaluator's
create and wait, paging, samples as pages and as NDJSON, events across reconnects, cancel, delete,
results, reports and comparisons."""

from __future__ import annotations

import json
import tempfile
import unittest
from pathlib import Path
from typing import List

from _live import stored_result
from support import Background, Fault, FaultProxy, Follower, HeldRun, client, fresh_tenant, present, wait_until

from assay_client import AssayError, AssayTimeoutError, RunEvent

JUDGE = {
    "items": [
        {"id": "q1", "query": "Bank failures and earthquake aftershocks share a universality class."},
        {"id": "q2", "query": "Sorting is O(n log n) in the comparison model."},
    ],
    "critics": [
        {"name": "strict", "model": "sim:critic", "prompt": "strict-reviewer@1"},
        {"name": "general", "model": "sim:critic"},
        {"name": "noisy", "model": "sim:critic", "simulator": {"noise": 0.5}},
    ],
}
RQ = {
    "models": [
        {"name": "careful", "model": "sim:reasoner", "simulator": {"accuracy": 0.9, "verbosity": 6}},
        {"name": "quick", "model": "sim:reasoner", "simulator": {"accuracy": 0.6, "verbosity": 1}},
    ],
    "datasets": [{"synthetic": {"num_reasoning": 4, "num_adversarial": 2, "num_robustness": 2}}],
    "K": 2,
    "P": 2,
}


class EachEvaluator(unittest.TestCase):
    def test_chain_determinism_create_wait_and_result(self) -> None:
        c = client()
        run = c.chain_determinism.create({"model": "sim:agent", "n_queries": 2, "n_replays": 3})
        self.assertEqual(run["evaluator"], "chain-determinism")
        final = c.runs.wait(run)
        self.assertEqual(final["status"], "succeeded")
        self.assertEqual(final["result"], c.runs.result(run["id"]))
        self.assertEqual(present(final["result"])["n_total"], 2 * 3)

    def test_rpl_create_wait_and_result(self) -> None:
        c = client()
        run = c.rpl.create({"claim": "Tariffs raise consumer prices.", "model": "sim:rpl", "K": 8, "R": 2})
        final = c.runs.wait(run)
        self.assertEqual((final["evaluator"], final["status"]), ("rpl", "succeeded"))
        self.assertEqual(final["result"], c.runs.get(run["id"])["result"])
        self.assertEqual(present(final["result"])["claim"], "Tariffs raise consumer prices.")

    def test_judge_create_wait_contested_and_prompts(self) -> None:
        c = client()
        run = c.judge.create(JUDGE)
        final = c.runs.wait(run)
        self.assertEqual((final["evaluator"], final["status"]), ("judge", "succeeded"))
        items = present(final["result"])["items"]
        self.assertEqual([i["id"] for i in items], ["q1", "q2"])
        contested = list(c.judge.contested(run["id"], threshold=1))
        # With the threshold at 1 every item short of full agreement is contested.
        expected = [i["id"] for i in items if (i["krippendorff_alpha"] or 0) < 1 or i["agreement_pct"] < 1]
        self.assertEqual(sorted(i["id"] for i in contested), sorted(expected))
        bank = c.judge.prompts()
        self.assertIn(bank["default"], [f"{p['name']}@{p['version']}" for p in bank["data"]])

    def test_reasoning_quality_create_wait_and_reports(self) -> None:
        c = client()
        run = c.reasoning_quality.create(RQ)
        final = c.runs.wait(run)
        self.assertEqual((final["evaluator"], final["status"]), ("reasoning-quality", "succeeded"))
        result = present(final["result"])
        self.assertEqual(sorted(m["model"] for m in result["models"]), ["careful", "quick"])
        with tempfile.TemporaryDirectory() as folder:
            csv = c.runs.report(run["id"], "csv", Path(folder) / "r.csv")
            xlsx = c.runs.report(run["id"], "xlsx", Path(folder) / "r.xlsx")
            svg = c.runs.report(run["id"], "svg", str(Path(folder) / "r.svg"))
            lines = csv.read_text(encoding="utf-8").splitlines()
            # A header, then a row per (model, strategy) of the result.
            self.assertEqual(len(lines), 1 + 2 * len(result["strategies"]), lines)
            self.assertTrue(lines[0].startswith("model,strategy,"))
            self.assertEqual(xlsx.read_bytes()[:2], b"PK")  # a zip, as every xlsx
            self.assertIn("<svg", svg.read_text(encoding="utf-8"))
        with self.assertRaises(ValueError):
            c.runs.report(run["id"], "pdf", "x.pdf")

    def test_runs_create_takes_any_evaluator_by_name(self) -> None:
        c = client()
        run = c.runs.create("judge", JUDGE)
        self.assertEqual(run["evaluator"], "judge")
        self.assertEqual(c.runs.wait(run["id"])["status"], "succeeded")
        with self.assertRaises(ValueError):
            c.runs.create("vrty", {})


def run_without_result(body: bytes) -> bytes:
    """A run as the API answers it when its result is too large to inline: ``result`` null."""
    return json.dumps({**json.loads(body), "result": None}).encode()


def final_event_without_result(stream: bytes) -> bytes:
    """An event stream whose ``final`` event carries the run with ``result`` null (as above)."""
    lines, final = [], False
    for line in stream.decode("utf-8").split("\n"):
        if line.startswith("event: "):
            final = line == "event: final"
        elif final and line.startswith("data: "):
            line = "data: " + run_without_result(line[len("data: ") :].encode()).decode()
        elif line == "":
            final = False
        lines.append(line)
    return "\n".join(lines).encode()


class ResultWhereverStored(unittest.TestCase):
    def test_wait_and_with_result_fetch_a_result_the_run_does_not_inline(self) -> None:
        # The e2e server inlines every result; the proxy answers as a server with a large one would.
        c = client()
        run = c.chain_determinism.create({"model": "sim:agent", "n_queries": 1, "n_replays": 2})
        c.runs.wait(run)
        stored = stored_result(run["id"])  # what GET /v1/runs/{id}/result serves, read without the client
        self.assertIsNotNone(stored)
        rid = run["id"]
        with FaultProxy() as proxy:
            proxy.rewrite(f"GET /v1/runs/{rid}", run_without_result)
            proxy.rewrite(f"GET /v1/runs/{rid}/events", final_event_without_result)
            through = client(base_url=proxy.url, max_retries=0)
            through._http.sleep = lambda seconds: None  # the poll's pauses are not what this test is about
            bare = through.runs.get(rid)
            self.assertIsNone(bare["result"])
            self.assertEqual(bare["result_url"], f"/v1/runs/{rid}/result")
            followed = through.runs.wait(rid)  # the event stream's final event
            proxy.fail(f"GET /v1/runs/{rid}/events", Fault(status=503))
            polled = through.runs.wait(rid)  # no stream: reads of the run
            filled = through.runs.with_result(bare)
            fetched = len(proxy.requests(f"GET /v1/runs/{rid}/result"))
        expected = {**bare, "result": stored}
        self.assertEqual(followed, expected)
        self.assertEqual(polled, expected)
        self.assertEqual(filled, expected)
        self.assertEqual(fetched, 3)


class Paging(unittest.TestCase):
    def test_runs_list_walks_every_page_newest_first(self) -> None:
        _, key = fresh_tenant()
        c = client(api_key=key)
        created = [c.chain_determinism.create({"model": "sim:agent", "n_queries": 1, "n_replays": 1})["id"] for _ in range(5)]
        with FaultProxy() as proxy:
            listed = [r["id"] for r in client(base_url=proxy.url, api_key=key).runs.list(limit=2)]
            pages = proxy.requests("GET /v1/runs?")
        self.assertEqual(listed, list(reversed(created)))
        self.assertEqual(len(pages), 3)  # 2 + 2 + 1
        self.assertIn("after=", pages[1].path)
        only = [r["id"] for r in c.runs.list(evaluator="judge")]
        self.assertEqual(only, [])

    def test_samples_and_the_ndjson_export_stream_every_sample(self) -> None:
        c = client()
        run = c.chain_determinism.create({"model": "sim:agent", "n_queries": 3, "n_replays": 50})
        final = c.runs.wait(run["id"])
        total = final["progress"]["total"]
        self.assertEqual(total, 150)  # more than one page of 100
        samples = list(c.runs.samples(run["id"]))
        self.assertEqual(len(samples), total)
        self.assertEqual(len({s["unit_id"] for s in samples}), total)
        rows = list(c.runs.export(run["id"]))
        self.assertEqual(len(rows), total)
        # The harness's per-replay rows: every (query, replay) once.
        self.assertEqual(len({(r["query_id"], r["run_idx"]) for r in rows}), total)
        # An export asks for nothing until its first row is read (one never read holds no connection).
        with FaultProxy() as proxy:
            lazy = client(base_url=proxy.url).runs.export(run["id"])
            self.assertEqual(proxy.requests(), [])
            self.assertEqual(next(lazy), rows[0])
            self.assertEqual(len(proxy.requests(f"GET /v1/runs/{run['id']}/samples")), 1)
            self.assertEqual([rows[0], *lazy], rows)
        # A page's cursor resumes after it.
        first = client().runs._http.json("GET", f"/v1/runs/{run['id']}/samples", query={"limit": 40})
        rest = list(c.runs.samples(run["id"], after=first["next_cursor"]))
        self.assertEqual([s["unit_id"] for s in first["data"] + rest], [s["unit_id"] for s in samples])


class Events(unittest.TestCase):
    def test_events_cross_reconnects_each_once_in_order_to_the_final_state(self) -> None:
        c = client()
        held = HeldRun(c, "reconnects", n_replays=12)
        self.addCleanup(held.close)
        run = held.run
        path = f"GET /v1/runs/{run['id']}/events"
        with FaultProxy() as proxy:
            follower = Follower(client(base_url=proxy.url).runs.events(run["id"]))
            # The run cannot end while its model requests are held: let it go only once the server has
            # closed the first connection and the client has come back (the e2e server's small query
            # budget closes every connection after a few polls).
            wait_until(lambda: len(proxy.requests(path)) >= 2, "a second connection to the event stream")
            held.release()
            follower.join()
            connections = proxy.requests(path)
        self.assertIsNone(follower.error)
        events = follower.items
        ids = [e.id for e in events]
        self.assertEqual(len(ids), len(set(ids)))
        self.assertEqual(events[-1].event, "final")
        self.assertEqual(events[-1].data, c.runs.get(run["id"]))
        units = [e.data["seq"] for e in events if e.event == "unit"]
        self.assertEqual(units, sorted(units))
        self.assertEqual(len(units), 12)
        # Several connections, each resuming from the last id the one before it delivered.
        self.assertGreater(len(connections), 1)
        self.assertNotIn("Last-Event-ID", connections[0].headers)
        delivered = set(ids)
        for later in connections[1:]:
            self.assertIn(later.headers.get("Last-Event-ID"), delivered)
        # Resuming after an event gives the units after it, then the end.
        cut = next(i for i, e in enumerate(events) if e.event == "unit" and e.data["seq"] == units[5])
        resumed = list(c.runs.events(run["id"], last_event_id=events[cut].id))
        self.assertEqual([e.data["seq"] for e in resumed if e.event == "unit"], units[6:])
        self.assertEqual(resumed[-1].event, "final")
        # After the final event's id: nothing more (the server's 204).
        self.assertEqual(list(c.runs.events(run["id"], last_event_id=events[-1].id)), [])

    def test_a_key_revoked_while_following_ends_the_events_with_a_401(self) -> None:
        c = client()
        made = c.keys.create({"name": "py-events"})
        # A run that cannot end on its own: only the revocation can end the stream.
        held = HeldRun(c, "revoked")
        self.addCleanup(held.close)
        follower = Follower(client(api_key=made["key"]).runs.events(held.id))
        wait_until(lambda: len(follower.items) >= 1, "the first event with the key still active")
        c.keys.revoke(made["id"])
        follower.join()  # the server ends the stream within its re-check bound (docs/events.md)
        error = follower.error
        self.assertIsInstance(error, AssayError)
        self.assertEqual(error.status if isinstance(error, AssayError) else None, 401)
        self.assertNotIn("final", [e.event for e in follower.items])
        # It was the key that ended the stream, not the run's end.
        self.assertNotIn(c.runs.get(held.id)["status"], ("succeeded", "failed", "canceled"))

    def test_wait_reports_increasing_progress(self) -> None:
        c = client()
        held = HeldRun(c, "progress", n_replays=8)
        self.addCleanup(held.close)
        seen: List[RunEvent] = []

        def on_progress(event: RunEvent) -> None:
            # The run is held, so the first progress it reports is short of the end; only then does
            # the test let it finish, so wait must report at least one more.
            if not seen:
                held.release()
            seen.append(event)

        final = c.runs.wait(held.id, timeout=120, on_progress=on_progress)  # the timeout only bounds it
        self.assertEqual(final["status"], "succeeded")
        done = [e.data["done"] for e in seen if e.event == "progress"]
        self.assertEqual(seen[0].event, "progress")
        self.assertLess(done[0], 8)
        self.assertGreater(len(done), 1)
        self.assertEqual(done, sorted(done))
        self.assertEqual(seen[-1].event, "final")
        self.assertEqual(seen[-1].data["progress"]["done"], 8)

    def test_wait_polls_the_run_when_the_event_stream_cannot_be_had(self) -> None:
        c = client()
        run = c.chain_determinism.create({"model": "sim:agent", "n_queries": 1, "n_replays": 2})
        expected = c.runs.wait(run)
        with FaultProxy() as proxy:
            path = f"GET /v1/runs/{run['id']}/events"
            proxy.fail(path, *[Fault(status=503) for _ in range(3)])
            waiting = client(base_url=proxy.url, max_retries=2)
            waiting._http.sleep = lambda seconds: None  # the 503s' backoff is not what this test is about
            seen: List[RunEvent] = []
            final = waiting.runs.wait(run["id"], on_progress=seen.append)
            self.assertEqual(len(proxy.requests(path)), 3)  # the stream, refused on every attempt
            reads = [r for r in proxy.requests("GET ") if r.path == f"/v1/runs/{run['id']}"]
            self.assertEqual(len(reads), 1)  # then one read of the run, already ended
        self.assertEqual(final, expected)
        self.assertEqual([e.event for e in seen], ["final"])

    def test_wait_times_out_naming_the_run_and_cancel_ends_it(self) -> None:
        c = client()
        held = HeldRun(c, "timeout")
        self.addCleanup(held.close)
        run = held.run
        held.wait_held()  # under way, and it cannot end until released: the wait below must time out
        waiting = Background(lambda: c.runs.wait(run["id"], timeout=1.0))
        waiting.join()  # bounds the wait should wait() ever ignore its timeout
        timed_out = waiting.error
        self.assertIsInstance(timed_out, AssayTimeoutError)
        self.assertEqual(timed_out.run_id if isinstance(timed_out, AssayTimeoutError) else None, run["id"])
        self.assertIn(run["id"], str(timed_out))
        canceled = c.runs.cancel(run["id"])
        self.assertEqual(canceled["id"], run["id"])
        held.release()  # the held request is answered; the run stays canceled
        final = c.runs.wait(run["id"])
        self.assertEqual(final["status"], "canceled")
        with self.assertRaises(AssayError) as again:
            c.runs.cancel(run["id"])
        self.assertEqual(again.exception.status, 409)
        deletion = c.runs.delete(run["id"])
        self.assertIn(deletion, (None, {"id": run["id"], "status": "deleting"}))
        with self.assertRaises(AssayError) as gone:
            c.runs.get(run["id"])
        self.assertEqual(gone.exception.status, 404)


class Comparisons(unittest.TestCase):
    def test_compare_two_runs_and_rpl_a_b(self) -> None:
        c = client()
        a = c.chain_determinism.create({"model": "sim:agent", "n_queries": 2, "n_replays": 4, "seed": 1})
        b = c.chain_determinism.create({"model": "sim:agent", "n_queries": 2, "n_replays": 4, "seed": 2})
        c.runs.wait(a["id"])
        c.runs.wait(b["id"])
        comparison = c.compare(a["id"], b["id"], confidence=0.9)
        self.assertEqual(comparison["evaluator"], "chain-determinism")
        self.assertEqual((comparison["base"]["id"] if isinstance(comparison["base"], dict) else comparison["base"]), a["id"])
        r1 = c.rpl.create({"claim": "Coffee is good for you.", "model": "sim:rpl", "K": 4, "R": 1})
        r2 = c.rpl.create({"claim": "Coffee is good for you.", "model": "sim:rpl", "K": 4, "R": 1, "seed": 7})
        c.runs.wait(r1["id"])
        c.runs.wait(r2["id"])
        table = c.rpl.compare([r1["id"], r2["id"]])
        self.assertIn(r1["id"], str(table))


class Webhooks(unittest.TestCase):
    def test_a_run_without_a_webhook_has_no_deliveries_and_cannot_resend(self) -> None:
        c = client()
        run = c.chain_determinism.create({"model": "sim:agent", "n_queries": 1, "n_replays": 1})
        c.runs.wait(run["id"])
        self.assertEqual(list(c.runs.webhook_deliveries(run["id"])), [])
        with self.assertRaises(AssayError) as caught:
            c.runs.resend_webhook(run["id"])
        self.assertEqual(caught.exception.status, 409)


if __name__ == "__main__":
    unittest.main()
