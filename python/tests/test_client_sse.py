"""The event-stream and NDJSON readers on byte streams written here by hand, beside the format's rules
(WHATWG HTML, "Server-sent events": fields, comments, multi-line data, a blank line dispatches)."""

from __future__ import annotations

import io
import unittest

import support  # noqa: F401  (puts the package on the path when run from a checkout)

from assay_client._ndjson import read_ndjson
from assay_client._sse import SseMessage, read_sse


class ReadSse(unittest.TestCase):
    def test_fields_comments_multiline_data_and_line_endings(self) -> None:
        stream = io.BytesIO(
            b": keep-alive\n"
            b"event: unit\nid: 1_0_0_2_running\ndata: {\"seq\": 1}\n\n"
            b"event: progress\r\nid: 1_1_0_2_running\r\ndata: {\"done\": 1,\r\ndata:  \"total\": 2}\r\n\r\n"
            b"event: reconnect\nretry: 250\ndata: {}\n\n"
            b"data:no space\n\n"
            b"event: final\nid: cut\ndata: {}\n"  # no blank line: cut off, never dispatched
        )
        self.assertEqual(
            list(read_sse(stream)),
            [
                SseMessage("unit", '{"seq": 1}', "1_0_0_2_running", None),
                # Two data lines join with a newline; only the one space after the colon is dropped.
                SseMessage("progress", '{"done": 1,\n "total": 2}', "1_1_0_2_running", None),
                # An event without an id keeps the stream's last id.
                SseMessage("reconnect", "{}", "1_1_0_2_running", 250),
                SseMessage("message", "no space", "1_1_0_2_running", None),
            ],
        )

    def test_an_event_without_data_is_not_dispatched(self) -> None:
        self.assertEqual(list(read_sse(io.BytesIO(b"event: unit\nid: 3\n\n"))), [])


class ReadNdjson(unittest.TestCase):
    def test_one_value_a_line_blank_lines_skipped(self) -> None:
        self.assertEqual(list(read_ndjson(io.BytesIO(b'{"a": 1}\n\n[2]\r\n"three"'))), [{"a": 1}, [2], "three"])


if __name__ == "__main__":
    unittest.main()
