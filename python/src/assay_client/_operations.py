"""Which API operation each public method calls: its ``operationId`` in /openapi.json, so a test can
check that every operation of the document has a method (python/tests/test_client_coverage.py)."""

from __future__ import annotations

from typing import Callable, TypeVar

F = TypeVar("F", bound=Callable[..., object])


def operation(*operation_ids: str) -> Callable[[F], F]:
    """Marks a method as calling these operations (``method.operation_ids``)."""

    def mark(method: F) -> F:
        setattr(method, "operation_ids", operation_ids)
        return method

    return mark
