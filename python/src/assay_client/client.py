"""``Client``: every route of the assay API (but the dashboard's cookie session), from Python, with the
standard library only."""

from __future__ import annotations

import os
from typing import TYPE_CHECKING, Any, Optional

from ._account import Keys, Prompts, Providers, SettingsApi, UsageApi, Webhooks
from ._admin import Admin
from ._evaluators import ChainDeterminism, Judge, ReasoningQuality, Rpl, Vrty
from ._http import Transport
from ._operations import operation
from ._runs import Runs

if TYPE_CHECKING:
    from .types import Comparison, Health, Index

#: ``npm start`` serves here and seeds LOCAL_DEV_KEY for the tenant ``dev`` (valid nowhere else), as the CLI.
LOCAL_SERVER = "http://127.0.0.1:8787"
LOCAL_DEV_KEY = "assay_sk_local_dev_key"


class Client:
    """A connection to one assay server as one tenant.

    ``base_url`` defaults to ``ASSAY_URL`` (else the local dev server), ``api_key`` to ``ASSAY_API_KEY``
    (else, for the local dev server only, its dev key), ``admin_token`` (for ``client.admin``) to
    ``ASSAY_ADMIN_TOKEN``. ``timeout`` bounds each request's connection and each read (seconds);
    ``max_retries`` is how many times a request is tried again after a 429 or 503 or, for requests safe
    to repeat, a 500/502/504 or a lost connection. Redirects are never followed (they would carry the key
    elsewhere). Every failure raises ``AssayError``.
    """

    def __init__(
        self,
        base_url: Optional[str] = None,
        api_key: Optional[str] = None,
        *,
        timeout: float = 60.0,
        max_retries: int = 4,
        admin_token: Optional[str] = None,
    ) -> None:
        base = (base_url or os.environ.get("ASSAY_URL") or LOCAL_SERVER).rstrip("/")
        key = api_key or os.environ.get("ASSAY_API_KEY") or (LOCAL_DEV_KEY if base == LOCAL_SERVER else None)
        if not key:
            raise ValueError(f"no API key for {base}: pass api_key= or set ASSAY_API_KEY")
        self._http = Transport(base, key, timeout=timeout, max_retries=max_retries)
        self.runs = Runs(self._http)
        self.vrty = Vrty(self._http)
        self.chain_determinism = ChainDeterminism(self._http)
        self.rpl = Rpl(self._http)
        self.judge = Judge(self._http)
        self.reasoning_quality = ReasoningQuality(self._http)
        self.prompts = Prompts(self._http)
        self.providers = Providers(self._http)
        self.keys = Keys(self._http)
        self.webhooks = Webhooks(self._http)
        self.settings = SettingsApi(self._http)
        self.usage = UsageApi(self._http)
        self.admin = Admin(self._http, admin_token or os.environ.get("ASSAY_ADMIN_TOKEN"))

    @property
    def base_url(self) -> str:
        """The server this client talks to."""
        return self._http.base_url

    def __repr__(self) -> str:
        return f"Client(base_url={self._http.base_url!r})"

    @operation("compareRuns")
    def compare(self, a: str, b: str, **params: Any) -> "Comparison":
        """Compares run ``b`` (the change, ``head``) with run ``a`` (``base``), both of one evaluator;
        ``params``: ``confidence``, ``min_effect``."""
        return self._http.json("GET", "/v1/compare", query={"base": a, "head": b, **params}, safe=True)

    @operation("getHealth")
    def health(self) -> "Health":
        """The server's health (no key needed)."""
        return self._http.json("GET", "/healthz", safe=True)

    @operation("getIndex")
    def index(self) -> "Index":
        """The API's index: its name, version and links."""
        return self._http.json("GET", "/", safe=True)
