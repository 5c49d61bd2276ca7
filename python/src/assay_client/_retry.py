"""When a failed request is tried again, and after how long.

An answer the server gave (429, 500, 502, 503, 504) is retried after its ``Retry-After`` when it has one,
else after an exponential backoff with jitter. A 429 without ``Retry-After`` is not retried: the API
omits it exactly where waiting cannot help (a quota spent for the month, docs/errors.md). A
``Retry-After`` longer than ``MAX_RETRY_AFTER`` is not waited out either: a client call that sleeps for
minutes looks hung; the caller gets the error and its ``Retry-After`` in ``problem``.
"""

from __future__ import annotations

import email.utils
import random
import time
from typing import Optional

#: Statuses worth another attempt (the server, or a proxy in front of it, asked for one).
RETRY_STATUSES = frozenset({429, 500, 502, 503, 504})
#: 500, 502 and 504 may come after the server acted on the request: only requests safe to repeat retry them.
UNSAFE_AFTER_PROCESSING = frozenset({500, 502, 504})
#: Longest ``Retry-After`` (seconds) the client waits out by itself.
MAX_RETRY_AFTER = 60.0
BACKOFF_BASE = 0.5
BACKOFF_CAP = 8.0


def parse_retry_after(value: Optional[str], now: Optional[float] = None) -> Optional[float]:
    """Seconds to wait from a ``Retry-After`` header: delta-seconds or an HTTP date (RFC 9110 §10.2.3)."""
    if value is None:
        return None
    value = value.strip()
    try:
        return max(0.0, float(value))
    except ValueError:
        pass
    try:
        when = email.utils.parsedate_to_datetime(value)
    except (TypeError, ValueError):
        return None
    return max(0.0, when.timestamp() - (time.time() if now is None else now))


def backoff(attempt: int) -> float:
    """The pause before retry ``attempt`` (1-based): doubling from BACKOFF_BASE, capped, with full jitter
    over its upper half so that many clients refused at once do not come back at once."""
    ceiling = min(BACKOFF_CAP, BACKOFF_BASE * 2 ** (attempt - 1))
    return ceiling / 2 + random.random() * ceiling / 2


def delay_for_status(status: int, retry_after: Optional[str], attempt: int, *, safe: bool) -> Optional[float]:
    """The pause before retrying an answer with this status, or None when it must not be retried."""
    if status not in RETRY_STATUSES:
        return None
    if status in UNSAFE_AFTER_PROCESSING and not safe:
        return None
    wait = parse_retry_after(retry_after)
    if wait is None:
        return None if status == 429 else backoff(attempt)
    return wait if wait <= MAX_RETRY_AFTER else None
