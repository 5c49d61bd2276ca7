"""Answers cut off part-way: a chunked answer whose connection closes inside a chunk (http.client's
IncompleteRead, an HTTPException and not an OSError), and an NDJSON line that is not JSON. The event
stream takes a cut as a dropped connection and resumes after its last event; an export or a report
cannot resume, so it raises AssayError."""

from __future__ import annotations

import tempfile
import unittest
from pathlib import Path
from typing import Any, Dict, List

from support import Fault, FaultProxy, client

from assay_client import AssayError

RQ_SMALL = {
    "models": [{"name": "only", "model": "sim:reasoner"}],
    "datasets": [{"synthetic": {"num_reasoning": 2, "num_adversarial": 0, "num_robustness": 0}}],
    "K": 1,
    "P": 1,
}


def ended_run() -> str:
    """A small chain-determinism run on the simulator, ended: its streams are complete and fixed."""
    c = client()
    run = c.chain_determinism.create({"model": "sim:agent", "n_queries": 1, "n_replays": 3})
    c.runs.wait(run)
    return run["id"]


class EventsCutInAChunk(unittest.TestCase):
    def test_the_events_resume_after_the_last_whole_event_each_once(self) -> None:
        run_id = ended_run()
        whole = [(e.event, e.id, e.data) for e in client().runs.events(run_id)]
        self.assertEqual([e[0] for e in whole], ["unit", "unit", "unit", "progress", "final"])
        first = whole[0][1]
        path = f"GET /v1/runs/{run_id}/events"
        with FaultProxy() as proxy:
            # The first connection delivers the first unit whole, then closes inside the chunk after it.
            proxy.fail(path, Fault(cut_after=f"\nid: {first}\n\n".encode()))
            c = client(base_url=proxy.url)
            pauses: List[float] = []
            c._http.sleep = pauses.append
            got = [(e.event, e.id, e.data) for e in c.runs.events(run_id)]
            connections = proxy.requests(path)
        self.assertEqual(got, whole)
        self.assertEqual(len(connections), 2)
        self.assertTrue(connections[0].faulted)
        self.assertEqual(connections[1].headers.get("Last-Event-ID"), first)
        self.assertEqual(len(pauses), 1)  # one backoff before reconnecting


class ExportCutInAChunk(unittest.TestCase):
    def test_an_export_cut_off_raises_assay_error_after_the_rows_that_came(self) -> None:
        run_id = ended_run()
        first = next(iter(client().runs.export(run_id)))
        with FaultProxy() as proxy:
            proxy.fail(f"GET /v1/runs/{run_id}/samples", Fault(cut_after=b"\n"))
            rows: List[Dict[str, Any]] = []
            with self.assertRaises(AssayError) as caught:
                for row in client(base_url=proxy.url).runs.export(run_id):
                    rows.append(row)
        self.assertEqual(rows, [first])
        self.assertIsNone(caught.exception.status)
        self.assertIn("cut off", str(caught.exception))

    def test_a_line_that_is_not_json_raises_assay_error(self) -> None:
        run_id = ended_run()
        body = b'{"n": 1}\nnot json\n{"n": 3}\n'
        with FaultProxy() as proxy:
            proxy.fail(f"GET /v1/runs/{run_id}/samples", Fault(status=200, headers={"Content-Type": "application/x-ndjson"}, body=body))
            rows: List[Dict[str, Any]] = []
            with self.assertRaises(AssayError) as caught:
                for row in client(base_url=proxy.url).runs.export(run_id):
                    rows.append(row)
        self.assertEqual(rows, [{"n": 1}])
        self.assertEqual(caught.exception.title, "Invalid response")


class ReportCutInAChunk(unittest.TestCase):
    def test_a_report_cut_off_raises_assay_error_and_leaves_no_file(self) -> None:
        c = client()
        run = c.reasoning_quality.create(RQ_SMALL)
        c.runs.wait(run)
        with FaultProxy() as proxy, tempfile.TemporaryDirectory() as folder:
            proxy.fail(f"GET /v1/runs/{run['id']}/report.csv", Fault(cut_after=b"\n"))
            target = Path(folder) / "r.csv"
            with self.assertRaises(AssayError) as caught:
                client(base_url=proxy.url).runs.report(run["id"], "csv", target)
            self.assertFalse(target.exists())
            # Uncut, the same call writes the whole report.
            whole = client(base_url=proxy.url).runs.report(run["id"], "csv", target)
            self.assertGreater(len(whole.read_text(encoding="utf-8").splitlines()), 1)
        self.assertIsNone(caught.exception.status)


if __name__ == "__main__":
    unittest.main()
