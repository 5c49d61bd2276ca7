"""assay from Python: ``Client`` for the API, ``AssayError`` for its failures; the standard library only."""

from ._events import RunEvent
from .client import Client
from .errors import AssayError, AssayTimeoutError

__version__ = "0.1.0"

__all__ = ["Client", "AssayError", "AssayTimeoutError", "RunEvent", "__version__"]
