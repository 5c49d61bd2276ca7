"""Server-Sent Events, parsed line by line from an open response (the WHATWG "event stream" format:
``event``, ``data`` over one or more lines, ``id``, ``retry``, ``:`` comments, a blank line ends an event)."""

from __future__ import annotations

from dataclasses import dataclass
from typing import IO, Iterator, List, Optional


@dataclass(frozen=True)
class SseMessage:
    """One dispatched event: its type (``message`` when unnamed), its data lines joined with newlines,
    the stream's last event id when it was dispatched, and a ``retry:`` hint in milliseconds."""

    event: str
    data: str
    id: Optional[str]
    retry: Optional[int]


def read_sse(stream: IO[bytes]) -> Iterator[SseMessage]:
    """Each event of the stream as it arrives; reads one line at a time, never the whole body. An event
    cut off by the end of the stream (no blank line after it) is dropped, as the format says."""
    event = ""
    data: List[str] = []
    last_id: Optional[str] = None
    retry: Optional[int] = None
    while True:
        raw = stream.readline()
        if not raw:
            return
        line = raw.decode("utf-8").rstrip("\n").rstrip("\r")
        if line == "":
            if data:
                yield SseMessage(event or "message", "\n".join(data), last_id, retry)
            event, data, retry = "", [], None
            continue
        if line.startswith(":"):
            continue  # a comment: the server's keep-alive
        name, _, value = line.partition(":")
        if value.startswith(" "):
            value = value[1:]
        if name == "data":
            data.append(value)
        elif name == "event":
            event = value
        elif name == "id":
            if "\0" not in value:
                last_id = value
        elif name == "retry":
            if value.isdigit():
                retry = int(value)
