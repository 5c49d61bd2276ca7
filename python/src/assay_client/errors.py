"""The client's one exception type, built from the API's problem+json (RFC 9457, docs/errors.md)."""

from __future__ import annotations

from http import HTTPStatus
from typing import Any, Dict, List, Mapping, Optional, cast


class AssayError(Exception):
    """Any failure of a call to the API.

    An answer outside 2xx carries its problem+json: ``status``, ``title``, ``detail``, ``type`` and
    ``errors`` (the field errors of a validation failure, each ``{"path", "message"}``); ``problem`` is the
    whole object as the server sent it (``request_id``, a quota's ``quota`` and ``limit``, …). A server
    that could not be reached, or a request that timed out, has ``status`` None.

    ``str()`` reads ``"<status> <title>: <detail>"`` followed by each field error, so a log line names the
    bad field. The API key is never part of it.
    """

    status: Optional[int]
    title: str
    detail: Optional[str]
    type: Optional[str]
    errors: List[Dict[str, Any]]
    problem: Dict[str, Any]
    #: Seconds the server asked to wait before trying again (its ``Retry-After``), when it said.
    retry_after: Optional[float]

    def __init__(
        self,
        title: str,
        *,
        status: Optional[int] = None,
        detail: Optional[str] = None,
        type: Optional[str] = None,
        errors: Optional[List[Dict[str, Any]]] = None,
        problem: Optional[Mapping[str, Any]] = None,
    ) -> None:
        self.status = status
        self.title = title
        self.detail = detail
        self.type = type
        self.errors = list(errors or [])
        self.problem = dict(problem or {})
        self.retry_after = None
        super().__init__(self._line())

    @classmethod
    def from_problem(cls, status: int, problem: Mapping[str, Any]) -> "AssayError":
        """The error of an answer whose body is a problem object (or any JSON object)."""
        raw_errors: Any = problem.get("errors")
        errors: List[Dict[str, Any]] = (
            [cast(Dict[str, Any], e) for e in cast(List[Any], raw_errors) if isinstance(e, dict)]
            if isinstance(raw_errors, list)
            else []
        )
        title = problem.get("title")
        detail = problem.get("detail")
        kind = problem.get("type")
        return cls(
            title if isinstance(title, str) else status_phrase(status),
            status=status,
            detail=detail if isinstance(detail, str) else None,
            type=kind if isinstance(kind, str) else None,
            errors=errors,
            problem=problem,
        )

    @property
    def request_id(self) -> Optional[str]:
        """The server's id of the failed request, to quote when asking about it."""
        rid = self.problem.get("request_id")
        return rid if isinstance(rid, str) else None

    def _line(self) -> str:
        head = f"{self.status} {self.title}" if self.status is not None else self.title
        line = f"{head}: {self.detail}" if self.detail else head
        fields = "; ".join(
            f"{e.get('path', e.get('field', '?'))}: {e.get('message', '')}" for e in self.errors
        )
        return f"{line} ({fields})" if fields else line

    def __repr__(self) -> str:
        return f"AssayError(status={self.status!r}, title={self.title!r}, detail={self.detail!r})"


class AssayTimeoutError(AssayError, TimeoutError):
    """A request, or ``runs.wait``, ran out of time; ``run_id`` names the run a wait was for."""

    run_id: Optional[str]

    def __init__(self, title: str, *, detail: Optional[str] = None, run_id: Optional[str] = None) -> None:
        self.run_id = run_id
        super().__init__(title, detail=detail)


def status_phrase(status: int) -> str:
    """The usual name of an HTTP status (``Not Found``), for an error whose body had no title."""
    # A body without a title (a proxy's HTML page, an empty 502) still gets the status's usual name.
    try:
        return HTTPStatus(status).phrase
    except ValueError:
        return "HTTP error"
