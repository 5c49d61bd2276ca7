"""Runs a page's ```python blocks for test/python/readme.test.ts, in order, in one namespace.

    python3 python/tests/_readme_runner.py BLOCKS.json RESULTS.jsonl

BLOCKS.json is a list of {"at": "python/README.md:<line>", "code": "..."}; each block runs as a reader
pastes it into one interpreter session after the ones before it (a block may use a name an earlier block
of the page defined). One JSON line per block goes to RESULTS.jsonl as soon as it ends: {"at", "ok",
"output", "error"}, with what it printed and, if it raised, the traceback.
"""

from __future__ import annotations

import contextlib
import io
import json
import sys
import traceback
from typing import Any, Dict, List


def run_blocks(blocks: List[Dict[str, str]], results_path: str) -> int:
    namespace: Dict[str, Any] = {"__name__": "__main__"}
    failed = 0
    with open(results_path, "w", encoding="utf-8") as results:
        for block in blocks:
            output = io.StringIO()
            error = ""
            with contextlib.redirect_stdout(output), contextlib.redirect_stderr(output):
                try:
                    exec(compile(block["code"], block["at"], "exec"), namespace)
                except BaseException:  # noqa: BLE001 - a block's SystemExit or KeyboardInterrupt is its failure too
                    error = traceback.format_exc()
            failed += bool(error)
            record = {"at": block["at"], "ok": not error, "output": output.getvalue(), "error": error}
            results.write(json.dumps(record) + "\n")
            results.flush()
    return 1 if failed else 0


if __name__ == "__main__":
    if len(sys.argv) != 3:
        print(__doc__, file=sys.stderr)
        sys.exit(2)
    with open(sys.argv[1], encoding="utf-8") as f:
        sys.exit(run_blocks(json.load(f), sys.argv[2]))
