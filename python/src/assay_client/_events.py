"""Following a run's events to its end across the connections the server closes on purpose
(docs/events.md), as the TypeScript SDK's ``followRunEvents``: every event's id is the stream's
position, so reconnecting with the last one as ``Last-Event-ID`` goes on without a gap or a repeat."""

from __future__ import annotations

import json
import time
from dataclasses import dataclass
from http.client import HTTPException  # not ``http.client``: ``http`` names the transport below
from typing import Any, Callable, Dict, Iterator, Optional, cast

from ._http import Transport, quote
from ._retry import backoff
from ._sse import read_sse
from .errors import AssayError, AssayTimeoutError

_RUN_EVENTS = ("unit", "progress", "final")


@dataclass(frozen=True)
class RunEvent:
    """One event of a run: ``unit`` (``{seq, unit_id, status}``), ``progress`` (``{done, failed, total,
    status}``) or ``final`` (the run, as ``runs.get`` answers it). Pass ``id`` as ``last_event_id`` to
    resume after this event."""

    event: str
    id: str
    data: Any


def follow_events(
    http: Transport,
    run_id: str,
    *,
    last_event_id: Optional[str] = None,
    max_failures: int = 5,
    deadline: Optional[float] = None,
    on_connect: Optional[Callable[[Optional[str]], None]] = None,
) -> Iterator[RunEvent]:
    """The run's events in order, each once, until its final event (included). Reconnects with the
    last id after the server's ``reconnect`` (after its ``retry`` pause) and, with backoff, when a
    connection drops; gives up after ``max_failures`` failed connections in a row. A run whose final
    event this ``last_event_id`` already saw yields nothing (the server answers 204). ``deadline`` (a
    ``time.monotonic()`` value) bounds the whole walk: past it, AssayTimeoutError. An API refusal, or the
    stream's ``unauthenticated`` event, raises AssayError."""
    last = last_event_id
    failures = 0
    path = f"/v1/runs/{quote(run_id)}/events"
    while True:
        retry_ms: Optional[int] = None
        received = False
        failure: Optional[BaseException] = None
        timeout = _remaining(deadline, run_id, http.timeout)
        if on_connect is not None:
            on_connect(last)
        headers = {"Accept": "text/event-stream"}
        if last is not None:
            headers["Last-Event-ID"] = last
        try:
            response = http.open("GET", path, headers=headers, safe=True, timeout=timeout, deadline=deadline)
        except AssayTimeoutError:
            raise _timed_out(run_id) from None
        except AssayError as error:
            if error.status is not None:
                raise
            failure = error
        else:
            with response:
                if response.status == 204:
                    return
                try:
                    for message in read_sse(response):
                        if message.event in _RUN_EVENTS and message.id is not None:
                            received = True
                            last = message.id
                            yield RunEvent(message.event, message.id, json.loads(message.data))
                            if message.event == "final":
                                return
                            _remaining(deadline, run_id, http.timeout)
                        elif message.event == "reconnect":
                            retry_ms = message.retry if message.retry is not None else _retry_ms(message.data)
                        elif message.event == "unauthenticated":
                            raise AssayError.from_problem(401, _object(message.data))
                except AssayError:
                    raise
                # A dropped or timed-out connection mid-stream, or one cut inside a chunk (http.client's
                # IncompleteRead is an HTTPException, not an OSError): reconnect after the last event.
                except (OSError, ValueError, HTTPException) as error:
                    failure = error
        _remaining(deadline, run_id, http.timeout)
        if retry_ms is not None and failure is None:
            failures = 0
            _pause(http, retry_ms / 1000, deadline, run_id)
            continue
        # Closed without a word, or dropped: try again with backoff; a connection that delivered
        # events starts the count anew.
        if received:
            failures = 0
        failures += 1
        if failures > max_failures:
            raise AssayError(
                "Connection failed",
                detail=f"lost the event stream of run {run_id} {max_failures} times in a row: {failure or 'closed'}",
            )
        _pause(http, backoff(failures), deadline, run_id)


def _pause(http: Transport, seconds: float, deadline: Optional[float], run_id: str) -> None:
    """Waits ``seconds`` before reconnecting, unless that would end past ``deadline``: then times out now."""
    if deadline is not None and time.monotonic() + seconds >= deadline:
        raise _timed_out(run_id)
    http.sleep(seconds)


def _timed_out(run_id: str) -> AssayTimeoutError:
    return AssayTimeoutError("Wait timed out", detail=f"run {run_id} had not ended in time", run_id=run_id)


def _remaining(deadline: Optional[float], run_id: str, default: float) -> float:
    """The time left before ``deadline`` (at most ``default``); raises once it has passed."""
    if deadline is None:
        return default
    left = deadline - time.monotonic()
    if left <= 0:
        raise _timed_out(run_id)
    return min(default, left)


def _retry_ms(data: str) -> int:
    value = _object(data).get("retry_ms")
    return value if isinstance(value, int) else 0


def _object(data: str) -> Dict[str, Any]:
    try:
        parsed: Any = json.loads(data)
    except ValueError:
        return {}
    return cast(Dict[str, Any], parsed) if isinstance(parsed, dict) else {}
