"""One HTTP exchange with the API, over urllib.request: JSON in and out, the key as a Bearer token,
retries (``_retry``), timeouts, and every failure turned into an ``AssayError``."""

from __future__ import annotations

import http.client
import json
import socket
import time
import urllib.error
import urllib.parse
import urllib.request
from typing import Any, Callable, Dict, Mapping, Optional, cast

from ._retry import backoff, delay_for_status, parse_retry_after
from ._version import __version__
from .errors import AssayError, AssayTimeoutError, status_phrase

# Transport failures: nothing (or not all) came back. Whether they are retried depends on the request.
_CONNECTION_ERRORS = (urllib.error.URLError, ConnectionError, http.client.HTTPException, socket.timeout, OSError)
#: What reading an open answer's body may raise when the connection drops, times out, or is cut inside
#: a chunk (``http.client.IncompleteRead``, an HTTPException and not an OSError).
READ_ERRORS = (OSError, http.client.HTTPException)


USER_AGENT = f"assay-client-python/{__version__}"


class Transport:
    """Sends requests to one server with one key. Holds the key privately: it is never part of a repr,
    an exception or a log line."""

    #: How a pause between attempts is waited out; a test may replace it to record the pauses.
    sleep: Callable[[float], None]

    def __init__(self, base_url: str, api_key: Optional[str], *, timeout: float, max_retries: int) -> None:
        parsed = urllib.parse.urlsplit(base_url)
        if parsed.scheme not in ("http", "https") or not parsed.netloc:
            raise ValueError(f"base_url must be an http(s) URL, got {base_url!r}")
        self.base_url = base_url.rstrip("/")
        self.__key = api_key
        self.timeout = timeout
        self.max_retries = max_retries
        self.sleep = time.sleep
        # The usual *_proxy variables are honoured. Redirects are not followed: urllib's default handler
        # would send the Authorization header on to whatever host a Location names (and turn a POST into
        # a GET); the API never redirects its routes, so a 3xx is an error that names where it pointed.
        self._opener = urllib.request.build_opener(_RefuseRedirects())

    def __repr__(self) -> str:
        return f"Transport(base_url={self.base_url!r})"

    def url(self, path: str, query: Optional[Mapping[str, Any]] = None) -> str:
        url = self.base_url + path
        if query:
            items = {k: _query_value(v) for k, v in query.items() if v is not None}
            if items:
                url += "?" + urllib.parse.urlencode(items, doseq=True)
        return url

    def open(
        self,
        method: str,
        path: str,
        *,
        query: Optional[Mapping[str, Any]] = None,
        body: Any = None,
        headers: Optional[Mapping[str, str]] = None,
        safe: bool = False,
        token: Optional[str] = None,
        timeout: Optional[float] = None,
        deadline: Optional[float] = None,
    ) -> http.client.HTTPResponse:
        """Sends the request, retrying as ``_retry`` says, and returns the open 2xx response (the caller
        reads and closes it). ``safe``: the request may be sent twice without harm (GET, PUT, DELETE, a POST
        with an Idempotency-Key, a pure computation), so a lost connection or a 500/502/504 is retried too.
        ``token`` replaces the API key (the admin routes' operator token). ``deadline`` (a
        ``time.monotonic()`` value) bounds the attempts, their pauses and each one's socket timeout: a
        pause that would end past it (a long ``Retry-After``) raises AssayTimeoutError at once instead."""
        data = None
        all_headers = {"User-Agent": USER_AGENT, "Accept": "application/json"}
        bearer = token if token is not None else self.__key
        if bearer:
            all_headers["Authorization"] = f"Bearer {bearer}"
        if body is not None:
            data = json.dumps(body, separators=(",", ":"), ensure_ascii=False).encode("utf-8")
            all_headers["Content-Type"] = "application/json"
        all_headers.update(headers or {})
        url = self.url(path, query)
        attempt = 0
        while True:
            attempt += 1
            request = urllib.request.Request(url, data=data, headers=all_headers, method=method)
            limit = timeout if timeout is not None else self.timeout
            try:
                return self._opener.open(request, timeout=self._time_left(method, path, deadline, limit))
            except urllib.error.HTTPError as answer:
                pause = delay_for_status(answer.code, answer.headers.get("Retry-After"), attempt, safe=safe)
                if pause is None or attempt > self.max_retries:
                    raise _error_of(answer) from None
                answer.close()
            except _CONNECTION_ERRORS as failure:
                if not safe or attempt > self.max_retries:
                    raise self._unreachable(method, path, failure) from None
                pause = backoff(attempt)
            if deadline is not None and time.monotonic() + pause >= deadline:
                # Trying again sooner than asked would not help, and waiting would pass the deadline.
                raise AssayTimeoutError(
                    "Request timed out",
                    detail=f"{method} {path}: no time left for another attempt (the next one was due in {pause:g} s)",
                )
            self.sleep(pause)

    def _time_left(self, method: str, path: str, deadline: Optional[float], limit: float) -> float:
        """The socket timeout of one attempt: ``limit``, or less when ``deadline`` is nearer."""
        if deadline is None:
            return limit
        left = deadline - time.monotonic()
        if left <= 0:
            raise AssayTimeoutError("Request timed out", detail=f"{method} {path}: the deadline passed")
        return min(limit, left)

    def json(self, method: str, path: str, **kwargs: Any) -> Any:
        """``open`` and read the answer's JSON (None for an empty answer, a 204)."""
        with self.open(method, path, **kwargs) as response:
            try:
                raw = response.read()
            except READ_ERRORS as failure:
                # The answer was cut off after its status line; not retried here, the request was served.
                raise self.cut_off(method, path, failure) from None
        if not raw:
            return None
        try:
            return json.loads(raw)
        except ValueError:
            raise AssayError(
                "Invalid response", status=response.status, detail=f"{method} {path} answered non-JSON"
            ) from None

    def cut_off(self, method: str, path: str, failure: BaseException) -> AssayError:
        """The AssayError of an answer whose body stopped coming (``READ_ERRORS``) after a 2xx status."""
        if isinstance(failure, (socket.timeout, TimeoutError)):
            return AssayTimeoutError(
                "Request timed out", detail=f"{method} {path}: the answer stopped coming from {self.base_url}"
            )
        return AssayError("Connection failed", detail=f"{method} {path}: the answer was cut off: {failure!r}")

    def _unreachable(self, method: str, path: str, failure: BaseException) -> AssayError:
        reason = getattr(failure, "reason", None) or failure
        if isinstance(reason, (socket.timeout, TimeoutError)) or isinstance(failure, (socket.timeout, TimeoutError)):
            return AssayTimeoutError(
                "Request timed out", detail=f"{method} {path}: no answer from {self.base_url} within the timeout"
            )
        return AssayError("Connection failed", detail=f"{method} {path}: cannot reach {self.base_url}: {reason}")


class _RefuseRedirects(urllib.request.HTTPRedirectHandler):
    """Answers every redirect with None: urllib then raises the 3xx as an HTTPError (see ``_error_of``)."""

    def redirect_request(self, req: Any, fp: Any, code: int, msg: str, headers: Any, newurl: str) -> None:
        return None


def _query_value(value: Any) -> Any:
    if isinstance(value, bool):
        return "true" if value else "false"
    return value


def _error_of(answer: urllib.error.HTTPError) -> AssayError:
    """The AssayError of a non-2xx answer: its problem+json, or a plain description of another body."""
    try:
        raw = answer.read()
    except _CONNECTION_ERRORS:
        raw = b""
    finally:
        answer.close()
    if 300 <= answer.code < 400:
        location = answer.headers.get("Location", "nowhere")
        return AssayError(
            status_phrase(answer.code),
            status=answer.code,
            detail=f"the server redirected to {location}; the client follows no redirect (the API makes none)",
        )
    parsed: Any = None
    try:
        parsed = json.loads(raw) if raw else None
    except ValueError:
        pass
    if isinstance(parsed, dict):
        error = AssayError.from_problem(answer.code, cast(Dict[str, Any], parsed))
    else:
        kind = answer.headers.get("Content-Type", "no content type")
        error = AssayError(
            status_phrase(answer.code),
            status=answer.code,
            detail=f"the answer was not problem+json ({kind}, {len(raw)} bytes)",
        )
    error.retry_after = parse_retry_after(answer.headers.get("Retry-After"))
    return error


def quote(segment: str) -> str:
    """A path parameter, encoded so that no character of it can change the path."""
    return urllib.parse.quote(str(segment), safe="")
