"""assay from Python: ``Client`` for the API, ``AssayError`` for its failures, and the API's types by
their schema names (``Run``, ``JudgeRun``, ``VrtyResult``, …); the standard library only."""

from . import types
from ._events import RunEvent
from ._version import __version__
from .client import Client
from .errors import AssayError, AssayTimeoutError
from .types import *  # noqa: F403  (the API's types, re-exported by their schema names)

__all__ = ["Client", "AssayError", "AssayTimeoutError", "RunEvent", "types", "__version__"]
