"""``client.runs``: the runs of every evaluator — create, read, list, cancel, delete, samples, events,
wait, result and reports."""

from __future__ import annotations

import time
import uuid
from pathlib import Path
from typing import TYPE_CHECKING, Any, Callable, Dict, Iterator, Mapping, Optional, TypeVar, Union, cast, overload

from ._events import RunEvent, follow_events
from ._http import READ_ERRORS, Transport, quote
from ._ndjson import read_ndjson
from ._operations import operation
from ._pages import each_item
from .errors import AssayError, AssayTimeoutError

if TYPE_CHECKING:
    from .types import (
        ChainDeterminismRun,
        JudgeRun,
        ReasoningQualityRun,
        RplRun,
        Run,
        RunDeletion,
        RunResult,
        Sample,
        WebhookDelivery,
        WebhookResend,
    )

#: One evaluator's run: ``wait`` and ``with_result`` answer the same type they were given.
R = TypeVar("R", "ChainDeterminismRun", "RplRun", "JudgeRun", "ReasoningQualityRun", "Run")

#: The evaluators that make runs, as the API names them in ``POST /v1/<evaluator>/runs``.
EVALUATORS = ("chain-determinism", "rpl", "judge", "reasoning-quality")
#: The file each report format comes from (reasoning-quality runs have all three).
REPORTS = {"csv": "report.csv", "xlsx": "report.xlsx", "svg": "radar.svg"}
_FINAL = ("succeeded", "failed", "canceled")
#: Page size the client asks for when it walks a list to its end (the API's largest).
PAGE = 100


def _complete(http: Transport, response: Any, path: str) -> None:
    """Raises when an answer with a Content-Length ended short of it (http.client reads that as a quiet
    end of the body; a chunked answer cut short raises IncompleteRead instead)."""
    missing = getattr(response, "length", None)
    if missing:
        raise http.cut_off("GET", path, ConnectionError(f"{missing} bytes of the answer never came"))


def new_idempotency_key() -> str:
    """A fresh ``Idempotency-Key``: the one the client sends with a create and reuses on its retries."""
    return str(uuid.uuid4())


def create_run(http: Transport, evaluator: str, body: Mapping[str, Any], idempotency_key: Optional[str]) -> Any:
    """``POST /v1/<evaluator>/runs`` with an ``Idempotency-Key`` (made here unless given). The key makes
    the request safe to send again, so a lost connection or a 5xx is retried with the same key and the
    server answers the same run: one run, however many attempts."""
    if evaluator not in EVALUATORS:
        raise ValueError(f"unknown evaluator {evaluator!r}; one of {', '.join(EVALUATORS)}")
    key = idempotency_key or new_idempotency_key()
    return http.json(
        "POST", f"/v1/{evaluator}/runs", body=dict(body), headers={"Idempotency-Key": key}, safe=True
    )


class Runs:
    """The runs of every evaluator (``/v1/runs``)."""

    def __init__(self, http: Transport) -> None:
        self._http = http

    @operation(
        "createChainDeterminismRun", "createRplRun", "createJudgeRun", "createReasoningQualityRun"
    )
    def create(self, evaluator: str, body: Mapping[str, Any], *, idempotency_key: Optional[str] = None) -> "Run":
        """Starts a run of ``evaluator`` (``"judge"``, ``"rpl"``, …) from its request body; answers at once
        with the run, ``queued`` or ``running``. See ``create_run`` for the Idempotency-Key."""
        return create_run(self._http, evaluator, body, idempotency_key)

    @operation("getRun")
    def get(self, run_id: str) -> "Run":
        """The run as it is now (``result`` inlined while small; see ``result``)."""
        return self._http.json("GET", f"/v1/runs/{quote(run_id)}", safe=True)

    @operation("listRuns")
    def list(self, *, evaluator: Optional[str] = None, status: Optional[str] = None, limit: Optional[int] = None) -> Iterator["Run"]:
        """Every run of the tenant, newest first, page by page (``limit`` runs per page, the API's
        largest by default), optionally only one evaluator's or one status's."""
        query = {"evaluator": evaluator, "status": status, "limit": limit or PAGE}
        return each_item(lambda after: self._http.json("GET", "/v1/runs", query={**query, "after": after}, safe=True))

    @operation("cancelRun")
    def cancel(self, run_id: str) -> "Run":
        """Cancels a run that has not ended and returns it; an ended run is a 409 AssayError."""
        return self._http.json("POST", f"/v1/runs/{quote(run_id)}/cancel")

    @operation("deleteRun")
    def delete(self, run_id: str) -> "Optional[RunDeletion]":
        """Deletes an ended run and all its data. Returns ``{"id", "status": "deleting"}`` when the server
        finishes the deletion in the background (202), None when everything is already gone (204)."""
        return self._http.json("DELETE", f"/v1/runs/{quote(run_id)}", safe=True)

    @operation("getRunResult")
    def result(self, run_id: str) -> "RunResult":
        """The result of an ended run, wherever it is stored (inline in the run, or in object storage
        when too large to inline)."""
        return self._http.json("GET", f"/v1/runs/{quote(run_id)}/result", safe=True)

    @operation("listSamples")
    def samples(self, run_id: str, *, after: Optional[str] = None, limit: Optional[int] = None) -> Iterator["Sample"]:
        """Every sample of the run, in write order, as ``Sample`` objects (typed per evaluator), one page
        of ``limit`` in memory at a time; ``after`` resumes after a page's ``next_cursor``."""
        path = f"/v1/runs/{quote(run_id)}/samples"
        query = {"limit": limit or PAGE}
        return each_item(lambda cursor: self._http.json("GET", path, query={**query, "after": cursor}, safe=True), after)

    @operation("listSamples")
    def export(self, run_id: str, *, after: Optional[str] = None) -> Iterator[Dict[str, Any]]:
        """Every sample of the run as the original tool writes its per-unit rows (for chain-determinism,
        the harness's per-replay rows), streamed as NDJSON: read and parsed one line at a time, so an
        export of any size never sits in memory whole. Nothing is requested before the first row is
        asked for, and the connection closes when the rows end or the iterator is closed. A stream cut
        off, or a line that is not JSON, raises AssayError."""
        path = f"/v1/runs/{quote(run_id)}/samples"
        headers = {"Accept": "application/x-ndjson"}
        with self._http.open("GET", path, query={"after": after}, headers=headers, safe=True) as response:
            try:
                yield from read_ndjson(response)
            except READ_ERRORS as failure:
                raise self._http.cut_off("GET", path, failure) from None
            except ValueError as bad:
                raise AssayError("Invalid response", status=response.status, detail=f"GET {path}: {bad}") from None
            _complete(self._http, response, path)

    @operation("streamRunEvents")
    def events(self, run_id: str, *, last_event_id: Optional[str] = None) -> Iterator[RunEvent]:
        """The run's events (``unit``, ``progress``, ``final``), each once and in order, until the final
        one; reconnects with ``Last-Event-ID`` whenever the server closes a stream before the run's end.
        ``last_event_id`` resumes after that event."""
        return follow_events(self._http, run_id, last_event_id=last_event_id)

    @overload
    def wait(
        self, run_id: str, *, timeout: Optional[float] = None, on_progress: Optional[Callable[[RunEvent], None]] = None
    ) -> "Run": ...

    @overload
    def wait(
        self, run_id: R, *, timeout: Optional[float] = None, on_progress: Optional[Callable[[RunEvent], None]] = None
    ) -> R: ...

    def wait(
        self,
        run_id: "Union[str, Run]",
        *,
        timeout: Optional[float] = None,
        on_progress: Optional[Callable[[RunEvent], None]] = None,
    ) -> "Run":
        """Follows the run until it ends and returns it with ``result`` filled in (fetched from
        ``/result`` when the run did not inline it).

        ``run_id``: the run's id, or the run as a ``create`` answered it (the answer is then typed as
        that evaluator's run, so ``wait(client.judge.create(...))["result"]`` is a ``JudgeResult``).
        ``on_progress`` is called with each ``progress`` event (``event.data``: ``{done, failed, total,
        status}``) and then the ``final`` one (``event.data``: the run). ``timeout`` bounds the whole wait
        in seconds: past it, AssayTimeoutError naming the run (which goes on). Follows the event stream;
        when the stream cannot be had (a connection that keeps failing, a 5xx), polls the run instead."""
        rid = run_id if isinstance(run_id, str) else run_id["id"]
        deadline = None if timeout is None else time.monotonic() + timeout
        final: Any = None
        try:
            for event in follow_events(self._http, rid, deadline=deadline):
                if event.event in ("progress", "final") and on_progress is not None:
                    on_progress(event)
                if event.event == "final":
                    final = event.data
        except AssayTimeoutError:
            raise
        except AssayError as error:
            if error.status is not None and error.status < 500:
                raise
        if final is None:  # the stream failed, or answered 204 (its final event was seen before)
            final = self._poll(rid, deadline, on_progress)
        return self.with_result(cast("Run", final))

    def with_result(self, run: R) -> R:
        """The run with its ``result`` filled in from ``/result`` when the API did not inline it."""
        if run.get("result") is None and run.get("result_url"):
            return cast(R, {**run, "result": self.result(run["id"])})
        return run

    def _poll(self, run_id: str, deadline: Optional[float], on_progress: Optional[Callable[[RunEvent], None]]) -> Any:
        # The fallback of ``wait``: read the run until it has ended, backing off up to 5 s between reads.
        pause = 0.5
        path = f"/v1/runs/{quote(run_id)}"
        while True:
            try:
                run = self._http.json("GET", path, safe=True, deadline=deadline)
            except AssayTimeoutError:
                raise AssayTimeoutError(
                    "Wait timed out", detail=f"run {run_id} had not ended in time", run_id=run_id
                ) from None
            if run["status"] in _FINAL:
                if on_progress is not None:
                    on_progress(RunEvent("final", "", run))
                return run
            if deadline is not None and time.monotonic() + pause > deadline:
                raise AssayTimeoutError("Wait timed out", detail=f"run {run_id} had not ended in time", run_id=run_id)
            self._http.sleep(pause)
            pause = min(pause * 2, 5.0)

    @operation("getReasoningQualityReportCsv", "getReasoningQualityReportXlsx", "getReasoningQualityRadar")
    def report(self, run_id: str, format: str, path: Union[str, Path]) -> Path:
        """Writes the run's report (``"csv"``, ``"xlsx"`` or ``"svg"``: the radar chart) to ``path``,
        streamed to the file in chunks, and returns the path. Reasoning-quality runs have reports."""
        if format not in REPORTS:
            raise ValueError(f"format must be one of {', '.join(REPORTS)}, got {format!r}")
        return self._download(f"/v1/runs/{quote(run_id)}/{REPORTS[format]}", Path(path))

    def _download(self, api_path: str, path: Path) -> Path:
        # Copied chunk by chunk; a download cut off raises AssayError and leaves no partial file behind.
        with self._http.open("GET", api_path, headers={"Accept": "*/*"}, safe=True) as response:
            try:
                with open(path, "wb") as file:
                    while True:
                        try:
                            chunk = response.read(64 * 1024)
                        except READ_ERRORS as failure:
                            raise self._http.cut_off("GET", api_path, failure) from None
                        if not chunk:
                            break
                        file.write(chunk)
                _complete(self._http, response, api_path)
            except AssayError:
                path.unlink(missing_ok=True)
                raise
        return path

    @operation("listWebhookDeliveries")
    def webhook_deliveries(self, run_id: str) -> Iterator["WebhookDelivery"]:
        """Every attempt to deliver the run's webhook, page by page."""
        path = f"/v1/runs/{quote(run_id)}/webhook-deliveries"
        return each_item(lambda after: self._http.json("GET", path, query={"limit": PAGE, "after": after}, safe=True))

    @operation("resendWebhook")
    def resend_webhook(self, run_id: str) -> "WebhookResend":
        """Delivers the ended run's webhook once more."""
        return self._http.json("POST", f"/v1/runs/{quote(run_id)}/webhook-deliveries/resend")
