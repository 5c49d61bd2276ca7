"""The tenant's own things: API keys, webhook secret, provider connections, prompts, settings, usage."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any, Iterator, Mapping, Optional

from ._http import Transport, quote
from ._operations import operation
from ._pages import each_item
from ._runs import PAGE

if TYPE_CHECKING:
    from .types import (
        ApiKey,
        CreatedApiKey,
        Prompt,
        PromptSummary,
        ProviderConnection,
        Settings,
        Usage,
        WebhookSecret,
        WebhookSecretInfo,
    )


def _pages(http: Transport, path: str, **query: Any) -> Iterator[Any]:
    return each_item(lambda after: http.json("GET", path, query={"limit": PAGE, **query, "after": after}, safe=True))


class Keys:
    """``client.keys``: the tenant's API keys."""

    def __init__(self, http: Transport) -> None:
        self._http = http

    @operation("createKey")
    def create(self, body: Optional[Mapping[str, Any]] = None) -> "CreatedApiKey":
        """Makes a new API key; its secret is in this answer only."""
        return self._http.json("POST", "/v1/keys", body=dict(body or {}))

    @operation("listKeys")
    def list(self) -> Iterator["ApiKey"]:
        """Every key of the tenant (never their secrets)."""
        return _pages(self._http, "/v1/keys")

    @operation("revokeKey")
    def revoke(self, key_id: str) -> "ApiKey":
        """Revokes a key: it stops working within the bound docs/keys.md gives."""
        return self._http.json("DELETE", f"/v1/keys/{quote(key_id)}", safe=True)


class Webhooks:
    """``client.webhooks``: the secret that signs the tenant's webhooks (Standard Webhooks)."""

    def __init__(self, http: Transport) -> None:
        self._http = http

    @operation("rotateWebhookSecret")
    def rotate_secret(self, body: Optional[Mapping[str, Any]] = None) -> "WebhookSecret":
        """Makes a new signing secret (shown in this answer only)."""
        return self._http.json("POST", "/v1/webhooks/secret", body=dict(body) if body else None)

    @operation("getWebhookSecretInfo")
    def secret_info(self) -> "WebhookSecretInfo":
        """Whether a secret is set, and since when (never the secret)."""
        return self._http.json("GET", "/v1/webhooks/secret", safe=True)


class Providers:
    """``client.providers``: saved connections to model endpoints (their keys are stored encrypted and
    never returned)."""

    def __init__(self, http: Transport) -> None:
        self._http = http

    @operation("createProviderConnection")
    def create(self, body: Mapping[str, Any]) -> "ProviderConnection":
        """Saves a connection (``{"name", "base_url", "api_key", ...}``); a taken name is a 409."""
        return self._http.json("POST", "/v1/providers", body=dict(body))

    @operation("listProviderConnections")
    def list(self) -> Iterator["ProviderConnection"]:
        """Every saved connection of the tenant."""
        return _pages(self._http, "/v1/providers")

    @operation("getProviderConnection")
    def get(self, name: str) -> "ProviderConnection":
        """One saved connection."""
        return self._http.json("GET", f"/v1/providers/{quote(name)}", safe=True)

    @operation("replaceProviderConnection")
    def replace(self, name: str, body: Mapping[str, Any]) -> "ProviderConnection":
        """Creates or replaces the connection of this name."""
        return self._http.json("PUT", f"/v1/providers/{quote(name)}", body=dict(body), safe=True)

    @operation("deleteProviderConnection")
    def delete(self, name: str) -> None:
        """Deletes a saved connection."""
        self._http.json("DELETE", f"/v1/providers/{quote(name)}", safe=True)


class Prompts:
    """``client.prompts``: versioned prompts (rpl prompt versions, judge critic prompts)."""

    def __init__(self, http: Transport) -> None:
        self._http = http

    @operation("createPrompt")
    def create(self, body: Mapping[str, Any]) -> "Prompt":
        """Saves a prompt version (the same text again answers the existing version)."""
        return self._http.json("POST", "/v1/prompts", body=dict(body))

    @operation("listPrompts")
    def list(self, *, kind: Optional[str] = None) -> Iterator["PromptSummary"]:
        """Every prompt name of the tenant with its latest version, optionally of one ``kind``."""
        return _pages(self._http, "/v1/prompts", kind=kind)

    @operation("listPromptVersions")
    def versions(self, name: str) -> Iterator["Prompt"]:
        """Every version of one prompt."""
        return _pages(self._http, f"/v1/prompts/{quote(name)}")

    @operation("getPrompt")
    def get(self, name: str, version: str) -> "Prompt":
        """One version of a prompt."""
        return self._http.json("GET", f"/v1/prompts/{quote(name)}/{quote(version)}", safe=True)


class SettingsApi:
    """``client.settings``: the tenant's settings (run retention, …)."""

    def __init__(self, http: Transport) -> None:
        self._http = http

    @operation("getSettings")
    def get(self) -> "Settings":
        """The tenant's settings."""
        return self._http.json("GET", "/v1/settings", safe=True)

    @operation("putSettings")
    def update(self, body: Mapping[str, Any]) -> "Settings":
        """Replaces the tenant's settings and returns them."""
        return self._http.json("PUT", "/v1/settings", body=dict(body), safe=True)


class UsageApi:
    """``client.usage``: what the tenant has used of its quotas."""

    def __init__(self, http: Transport) -> None:
        self._http = http

    @operation("getUsage")
    def get(self) -> "Usage":
        """The tenant's usage and quota standing."""
        return self._http.json("GET", "/v1/usage", safe=True)
