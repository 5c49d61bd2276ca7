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
import time
import urllib.parse
import urllib.request
import uuid
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Callable, Dict, Generic, Iterator, List, Optional, Tuple, TypeVar, cast

try:
    import assay_client  # noqa: F401  (installed, or on PYTHONPATH)
except ImportError:  # run from a checkout: the package's source is beside the tests
    sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "src"))

from assay_client import AssayError, Client  # noqa: E402

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
    return f"{prefix}-{uuid.uuid4().hex[:10]}"


def _scenario_call(method: str, scenario: str, what: str) -> Dict[str, Any]:
    origin = fake_openai_url().rsplit("/v1", 1)[0]
    url = f"{origin}/_scenarios/{urllib.parse.quote(scenario, safe='')}/{what}"
    request = urllib.request.Request(url, data=b"" if method == "POST" else None, method=method)
    with urllib.request.urlopen(request, timeout=30) as answer:
        return json.loads(answer.read())


def scenario_stats(scenario: str) -> Dict[str, Any]:
    """What the fake endpoint sees of a scenario's requests now (``received``, ``in_flight``, ``held``)."""
    return _scenario_call("GET", scenario, "stats")


def release_scenario(scenario: str) -> None:
    """Answers the requests a ``hold_after`` scenario holds, and holds no more."""
    _scenario_call("POST", scenario, "release")


def recorded_requests(scenario: str) -> List[Dict[str, Any]]:
    """The requests the fake endpoint received for a scenario, in arrival order."""
    return _scenario_call("GET", scenario, "requests")["requests"]


def api_bytes(path: str, accept: str = "application/json") -> bytes:
    """GET an assay route over plain HTTP, not through the client under test (for expected values)."""
    request = urllib.request.Request(
        env("ASSAY_URL").rstrip("/") + path,
        headers={"Authorization": f"Bearer {env('ASSAY_API_KEY')}", "Accept": accept},
    )
    with urllib.request.urlopen(request, timeout=60) as answer:
        return answer.read()


def api_get(path: str) -> Any:
    return json.loads(api_bytes(path))


def judge_runs_with(models: List[str]) -> List[Dict[str, Any]]:
    """The stored judge runs whose critics use exactly these models (all pages), read without the client."""
    runs: List[Dict[str, Any]] = []
    after = ""
    while True:
        page = api_get("/v1/runs?evaluator=judge&limit=100" + (f"&after={after}" if after else ""))
        runs += [r for r in page["data"] if [c["model"] for c in r["config"]["critics"]] == models]
        after = page.get("next_cursor") or ""
        if not after:
            return runs


def wait_until(condition: Callable[[], bool], what: str, timeout: float = 120.0) -> None:
    """Returns once ``condition()`` holds, checking it again and again. ``timeout`` only bounds the
    wait (a condition that never comes fails the test, naming ``what``); nothing here assumes how long
    anything takes."""
    deadline = time.monotonic() + timeout
    while not condition():
        if time.monotonic() > deadline:
            raise AssertionError(f"gave up waiting for {what} after {timeout} s")
        time.sleep(0.05)


class HeldRun:
    """A chain-determinism run on the fake model endpoint whose every model request is held (the
    scenario's ``hold_after: 0``) until ``release()``: it cannot end, whatever the machine's speed,
    before the test allows it. ``close()`` (give it to ``addCleanup``) cancels the run if it has not
    ended and releases what is held, so nothing is left running."""

    def __init__(self, c: Client, name: str, n_replays: int = 4) -> None:
        self.client = c
        self.model = register_scenario({"id": scenario_id(name), "agent": {"calls": 1}, "hold_after": 0})
        body = {"model": self.model, "provider": {"base_url": fake_openai_url()}, "n_queries": 1, "n_replays": n_replays, "concurrency": 1}
        self.run = c.chain_determinism.create(body)
        self.id: str = self.run["id"]

    def wait_held(self) -> None:
        """Returns once the run's first model request is being held: the run is under way, and stuck."""
        wait_until(lambda: scenario_stats(self.model)["held"] >= 1, f"a held request of run {self.id}")

    def release(self) -> None:
        release_scenario(self.model)

    def close(self) -> None:
        try:
            self.client.runs.cancel(self.id)
        except AssayError as error:
            if error.status not in (404, 409):  # 409: it had ended; 404: the test deleted it
                raise
        self.release()


class Background(Generic[T]):
    """Runs ``work`` in a thread of its own, so a test can wait on what the server does meanwhile;
    ``join`` bounds the wait for its end, so a regression that never returns fails instead of hanging."""

    def __init__(self, work: Callable[[], T]) -> None:
        self.result: Optional[T] = None
        self.error: Optional[BaseException] = None
        self._work = work
        self._thread = threading.Thread(target=self._run, daemon=True)
        self._thread.start()

    def _run(self) -> None:
        try:
            self.result = self._work()
        except BaseException as error:  # handed to the test, which asserts on it
            self.error = error

    def join(self, timeout: float = 120.0) -> None:
        """Returns once ``work`` has returned (``result``) or raised (``error``); fails past ``timeout``."""
        self._thread.join(timeout)
        if self._thread.is_alive():
            raise AssertionError(f"still running after {timeout} s")


class Follower(Background[None]):
    """Follows an iterator (a run's events) in the background, keeping its ``items`` as they come."""

    def __init__(self, events: Iterator[Any]) -> None:
        self.items: List[Any] = []
        super().__init__(lambda: self.items.extend(events))


# --- a fault proxy --------------------------------------------------------------------------------------


@dataclass
class Fault:
    """How the proxy answers one request instead of forwarding it: a status with headers and body,
    ``hang`` (never answer, until the proxy closes), or ``drop`` (close the connection unanswered).
    ``after_forward``: forward first (the server acts), then answer this instead of its answer.
    ``cut_after``: forward, then pass the server's answer on chunked (HTTP/1.1) up to the end of the first
    occurrence of these bytes, and close the connection 8 bytes into the next chunk (the status and the
    other fields are not used)."""

    status: int = 503
    headers: Dict[str, str] = field(default_factory=dict)
    body: bytes = b""
    hang: bool = False
    drop: bool = False
    after_forward: bool = False
    cut_after: Optional[bytes] = None


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
    recorded (method, path, headers). Streams (events, NDJSON) are forwarded as they arrive, but for the
    answers ``rewrite`` changes."""

    def __init__(self, upstream: Optional[str] = None) -> None:
        self.upstream = urllib.parse.urlsplit(upstream or env("ASSAY_URL"))
        self.seen: List[Seen] = []
        self._faults: List[Tuple[str, List[Fault]]] = []
        self._rewrites: Dict[str, Callable[[bytes], bytes]] = {}
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

    def rewrite(self, line: str, change: Callable[[bytes], bytes]) -> None:
        """Passes the server's answer to every request whose ``METHOD path`` is exactly ``line`` through
        ``change`` (the whole body, read to its end), keeping its status and content type."""
        with self._lock:
            self._rewrites[line] = change

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
        if fault is not None and not fault.after_forward and fault.cut_after is None:
            self._answer(handler, fault)
            return
        upstream = http.client.HTTPConnection(self.upstream.netloc, timeout=120)
        headers = {k: v for k, v in handler.headers.items() if k.lower() not in ("host", "connection")}
        upstream.request(handler.command, handler.path, body=body, headers=headers)
        answer = upstream.getresponse()
        with self._lock:
            change = self._rewrites.get(f"{handler.command} {handler.path}")
        if fault is not None and fault.cut_after is not None:
            self._cut(handler, answer, fault.cut_after)
            upstream.close()
            return
        if change is not None:
            changed = change(answer.read())
            upstream.close()
            kind = answer.getheader("Content-Type", "application/json")
            self._answer(handler, Fault(status=answer.status, headers={"Content-Type": kind}, body=changed))
            return
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
    def _cut(handler: http.server.BaseHTTPRequestHandler, answer: http.client.HTTPResponse, marker: bytes) -> None:
        # Written by hand: the handler speaks HTTP/1.0, which has no chunks.
        whole = answer.read()
        end = whole.find(marker)
        if end < 0:
            raise AssertionError(f"the answer never had {marker!r} to cut after: {whole[:200]!r}")
        end += len(marker)
        rest = whole[end:] or b"more to come"
        head = f"HTTP/1.1 {answer.status} {answer.reason}\r\n"
        head += f"Content-Type: {answer.getheader('Content-Type', 'application/octet-stream')}\r\n"
        head += "Transfer-Encoding: chunked\r\nConnection: close\r\n\r\n"
        handler.wfile.write(head.encode("latin-1"))
        handler.wfile.write(b"%x\r\n%s\r\n" % (end, whole[:end]))
        # The next chunk announces all the rest, and the connection closes 8 bytes into it (whatever
        # followed the marker, a next event or line, arrives cut short).
        handler.wfile.write(b"%x\r\n%s" % (len(rest), rest[:8]))
        handler.wfile.flush()
        handler.close_connection = True

    @staticmethod
    def _answer(handler: http.server.BaseHTTPRequestHandler, fault: Fault) -> None:
        handler.send_response(fault.status)
        for name, value in fault.headers.items():
            handler.send_header(name, value)
        handler.send_header("Content-Length", str(len(fault.body)))
        handler.end_headers()
        handler.wfile.write(fault.body)
