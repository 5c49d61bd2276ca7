"""Newline-delimited JSON, one value per line, read from an open response as the lines arrive."""

from __future__ import annotations

import json
from typing import IO, Any, Iterator


def read_ndjson(stream: IO[bytes]) -> Iterator[Any]:
    """Each line's JSON value; blank lines are skipped. Holds one line at a time."""
    while True:
        raw = stream.readline()
        if not raw:
            return
        line = raw.strip()
        if line:
            yield json.loads(line)
