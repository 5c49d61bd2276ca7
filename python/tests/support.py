"""What the client's tests share: the server they run against (from the environment the test runner
sets), a tenant of their own, the fake model endpoint's scenarios, and a loopback fault proxy.

The runner (test/python/python.test.ts, or ``npx node test/python/serve.ts`` by hand) passes
ASSAY_URL, ASSAY_API_KEY and FAKE_OPENAI_URL; nothing else of the machine's environment is read, and
every URL a test uses is loopback.
"""

from __future__ import annotations

import http.client
import http.server
import json
import os
import sys
import threading
import urllib.parse
import urllib.request
import uuid
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Dict, List, Optional, Tuple, TypeVar, cast

try:
    import assay_client  # noqa: F401  (installed, or on PYTHONPATH)
except ImportError:  # run from a checkout: the package's source is beside the tests
    sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "src"))

from assay_client import Client  # noqa: E402

#: The local dev server's operator token (.dev.vars.example); valid on no other server.
LOCAL_ADMIN_TOKEN = "assay-local-admin-token"
#: The API document of this checkout (the repository's own file).
OPENAPI = Path(__file__).resolve().parent.parent.parent / "sdk" / "openapi.json"


T = TypeVar("T")


def present(value: Optional[T]) -> T:
    """``value``, which the test requires to be there (and the type checker then knows it is)."""
    if value is None:
        raise AssertionError("expected a value, got None")
    return value


def env(name: str) -> str:
    value = os.environ.get(name)
    if not value:
        raise RuntimeError(
            f"{name} is not set: run these tests through test/python/python.test.ts, or export the "
            "variables `npx node test/python/serve.ts` prints"
        )
    parsed = urllib.parse.urlsplit(value) if name.endswith("_URL") else None
    if parsed is not None and parsed.hostname not in ("127.0.0.1", "localhost", "::1"):
        raise RuntimeError(f"{name} must be a loopback URL in tests, got {value}")
    return value


def client(**kwargs: Any) -> Client:
    """A client of the test server as the dev tenant (``kwargs`` override)."""
    kwargs.setdefault("base_url", env("ASSAY_URL"))
    kwargs.setdefault("api_key", env("ASSAY_API_KEY"))
    return Client(**kwargs)


def admin_client() -> Client:
    return client(admin_token=LOCAL_ADMIN_TOKEN)


def fresh_tenant() -> Tuple[str, str]:
    """A new tenant of the test's own (so its lists and quotas hold only what the test made): its id
    and its API key (``client(api_key=key)``)."""
    created = admin_client().admin.create_tenant({"name": f"py-{uuid.uuid4().hex[:10]}"})
    return created["id"], created["api_key"]["key"]


def fake_openai_url() -> str:
    """The fake model endpoint's base URL (``…/v1``)."""
    return env("FAKE_OPENAI_URL")


def register_scenario(scenario: Dict[str, Any]) -> str:
    """Registers a fake-endpoint scenario (its ``id`` is the model name to use) and returns the id."""
    origin = fake_openai_url().rsplit("/v1", 1)[0]
    request = urllib.request.Request(
        origin + "/_scenarios",
        data=json.dumps(scenario).encode(),
        headers={"Content-Type": "application/json"},
        method="POST",
    )
    with urllib.request.urlopen(request, timeout=30) as answer:
        return json.loads(answer.read())["id"]


def scenario_id(prefix: str) -> str:
    """A scenario id (a model name) no other test uses."""
    return f"py-{prefix}-{uuid.uuid4().hex[:8]}"


# --- a fault proxy --------------------------------------------------------------------------------------


@dataclass
class Fault:
    """How the proxy answers one request instead of forwarding it: a status with headers and body,
    ``hang`` (never answer, until the proxy closes), or ``drop`` (close the connection unanswered).
    ``after_forward``: forward first (the server acts), then answer this instead of its answer."""

    status: int = 503
    headers: Dict[str, str] = field(default_factory=dict)
    body: bytes = b""
    hang: bool = False
    drop: bool = False
    after_forward: bool = False


@dataclass
class Seen:
    method: str
    path: str
    #: The request's headers, looked up without regard to case (as HTTP names are).
    headers: "http.client.HTTPMessage"
    faulted: bool


class FaultProxy:
    """A loopback HTTP proxy in front of the test server. Requests whose ``METHOD path`` starts with a
    registered prefix take that prefix's queued faults one by one, then are forwarded; every request is
    recorded (method, path, headers). Streams (events, NDJSON) are forwarded as they arrive."""

    def __init__(self, upstream: Optional[str] = None) -> None:
        self.upstream = urllib.parse.urlsplit(upstream or env("ASSAY_URL"))
        self.seen: List[Seen] = []
        self._faults: List[Tuple[str, List[Fault]]] = []
        self._lock = threading.Lock()
        self._closing = threading.Event()
        proxy = self

        class Handler(http.server.BaseHTTPRequestHandler):
            # HTTP/1.0: one request per connection, and a body ends when the connection closes.
            protocol_version = "HTTP/1.0"

            def log_message(self, format: str, *args: Any) -> None:
                pass  # quiet: the tests assert on ``seen`` instead

            def _handle(self) -> None:
                proxy._serve(self)

            do_GET = do_POST = do_PUT = do_DELETE = _handle

        self._server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self._server.daemon_threads = True
        self._thread = threading.Thread(target=self._server.serve_forever, daemon=True)
        self._thread.start()

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self._server.server_address[1]}"

    def fail(self, prefix: str, *faults: Fault) -> None:
        """Answers the next requests matching ``prefix`` (e.g. ``"POST /v1/judge/runs"``) with ``faults``."""
        with self._lock:
            self._faults.append((prefix, list(faults)))

    def requests(self, prefix: str = "") -> List[Seen]:
        with self._lock:
            return [s for s in self.seen if f"{s.method} {s.path}".startswith(prefix)]

    def close(self) -> None:
        self._closing.set()
        self._server.shutdown()
        self._server.server_close()

    def __enter__(self) -> "FaultProxy":
        return self

    def __exit__(self, *exc: Any) -> None:
        self.close()

    def _take_fault(self, line: str) -> Optional[Fault]:
        with self._lock:
            for prefix, queue in self._faults:
                if line.startswith(prefix) and queue:
                    return queue.pop(0)
        return None

    def _serve(self, handler: http.server.BaseHTTPRequestHandler) -> None:
        length = int(handler.headers.get("Content-Length") or 0)
        body = handler.rfile.read(length) if length else None
        fault = self._take_fault(f"{handler.command} {handler.path}")
        with self._lock:
            self.seen.append(Seen(handler.command, handler.path, cast(http.client.HTTPMessage, handler.headers), fault is not None))
        if fault is not None and fault.hang:
            self._closing.wait()
            return
        if fault is not None and fault.drop:
            handler.close_connection = True
            return
        if fault is not None and not fault.after_forward:
            self._answer(handler, fault)
            return
        upstream = http.client.HTTPConnection(self.upstream.netloc, timeout=120)
        headers = {k: v for k, v in handler.headers.items() if k.lower() not in ("host", "connection")}
        upstream.request(handler.command, handler.path, body=body, headers=headers)
        answer = upstream.getresponse()
        if fault is not None:  # the server acted; its answer is lost on the way back
            answer.read()
            upstream.close()
            self._answer(handler, fault)
            return
        handler.send_response(answer.status)
        for name, value in answer.getheaders():
            if name.lower() not in ("transfer-encoding", "connection", "content-length"):
                handler.send_header(name, value)
        handler.end_headers()
        while True:
            chunk = answer.read1(65536)
            if not chunk:
                break
            handler.wfile.write(chunk)
            handler.wfile.flush()
        upstream.close()

    @staticmethod
    def _answer(handler: http.server.BaseHTTPRequestHandler, fault: Fault) -> None:
        handler.send_response(fault.status)
        for name, value in fault.headers.items():
            handler.send_header(name, value)
        handler.send_header("Content-Length", str(len(fault.body)))
        handler.end_headers()
        handler.wfile.write(fault.body)
