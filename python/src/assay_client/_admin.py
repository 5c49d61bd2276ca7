"""``client.admin``: the deployment's operator routes (``/v1/admin/*``), authenticated with its
``ADMIN_TOKEN`` instead of a tenant's key."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any, Iterator, Mapping, Optional

from ._http import Transport, quote
from ._operations import operation
from ._pages import each_item
from ._runs import PAGE

if TYPE_CHECKING:
    from .types import ApiKey, CreatedApiKey, CreatedTenant, PlatformUsage, Tenant, TenantQuotas


class Admin:
    """Tenants, their keys and quotas, and the platform's usage. Every call sends the admin token
    (``Client(admin_token=...)`` or ``ASSAY_ADMIN_TOKEN``); without one it raises before sending."""

    def __init__(self, http: Transport, token: Optional[str]) -> None:
        self._http = http
        self.__token = token

    def __repr__(self) -> str:
        return "Admin()"

    def _json(self, method: str, path: str, **kwargs: Any) -> Any:
        if not self.__token:
            raise ValueError("the admin routes need an admin token: Client(admin_token=...) or ASSAY_ADMIN_TOKEN")
        return self._http.json(method, path, token=self.__token, **kwargs)

    def _pages(self, path: str) -> Iterator[Any]:
        return each_item(lambda after: self._json("GET", path, query={"limit": PAGE, "after": after}, safe=True))

    @operation("adminCreateTenant")
    def create_tenant(self, body: Mapping[str, Any]) -> "CreatedTenant":
        """Makes a tenant (and its first key, shown in this answer only)."""
        return self._json("POST", "/v1/admin/tenants", body=dict(body))

    @operation("adminListTenants")
    def tenants(self) -> Iterator["Tenant"]:
        """Every tenant of the deployment."""
        return self._pages("/v1/admin/tenants")

    @operation("adminCreateKey")
    def create_key(self, tenant_id: str, body: Optional[Mapping[str, Any]] = None) -> "CreatedApiKey":
        """Makes a key for a tenant."""
        return self._json("POST", f"/v1/admin/tenants/{quote(tenant_id)}/keys", body=dict(body or {}))

    @operation("adminListKeys")
    def keys(self, tenant_id: str) -> Iterator["ApiKey"]:
        """Every key of a tenant."""
        return self._pages(f"/v1/admin/tenants/{quote(tenant_id)}/keys")

    @operation("adminRevokeKey")
    def revoke_key(self, key_id: str) -> "ApiKey":
        """Revokes any tenant's key."""
        return self._json("DELETE", f"/v1/admin/keys/{quote(key_id)}", safe=True)

    @operation("adminPlatformUsage")
    def platform(self) -> "PlatformUsage":
        """The deployment's usage."""
        return self._json("GET", "/v1/admin/platform", safe=True)

    @operation("adminGetTenantQuotas")
    def quotas(self, tenant_id: str) -> "TenantQuotas":
        """A tenant's quotas and their values."""
        return self._json("GET", f"/v1/admin/tenants/{quote(tenant_id)}/quotas", safe=True)

    @operation("adminSetTenantQuotas")
    def set_quotas(self, tenant_id: str, body: Mapping[str, Any]) -> "TenantQuotas":
        """Sets some of a tenant's quotas (a null value: back to the deployment's default)."""
        return self._json("PUT", f"/v1/admin/tenants/{quote(tenant_id)}/quotas", body=dict(body), safe=True)
