"""assay from Python: ``Client`` for the API, ``AssayError`` for its failures."""

from ._events import RunEvent
from .client import Client
from .errors import AssayError, AssayTimeoutError

__all__ = ["Client", "AssayError", "AssayTimeoutError", "RunEvent"]
