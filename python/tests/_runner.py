"""Runs python/tests for the TypeScript suite (test/python/python.test.ts), one record per test.

    python3 python/tests/_runner.py --list          the test ids, one JSON string a line (no server needed)
    python3 python/tests/_runner.py --json FILE     runs them all; one JSON object a line in FILE:
                                                    {"id", "outcome", "traceback", "reason", "duration"}

`outcome` is passed, failed, skipped (with `reason`) or error. The vitest runner makes one test of each id,
so CI counts Python tests one by one. Discovery is unittest's own (test_*.py, this folder as top level),
so `python3 -m unittest discover -s python/tests -t python/tests` runs the same tests by hand. A test that a
failing setUpClass or setUpModule kept from running gets that fixture's traceback as its own error.
"""

from __future__ import annotations

import json
import sys
import time
import traceback
import unittest
from pathlib import Path
from types import TracebackType
from typing import Any, Dict, Iterator, List, Optional, Tuple, Type, Union

HERE = Path(__file__).resolve().parent

_ExcInfo = Union[Tuple[Type[BaseException], BaseException, TracebackType], Tuple[None, None, None]]


def _tests(suite: unittest.TestSuite) -> Iterator[unittest.TestCase]:
    for item in suite:
        if isinstance(item, unittest.TestSuite):
            yield from _tests(item)
        else:
            yield item  # type: ignore[misc]  # a TestSuite holds TestCases and TestSuites


def discover() -> unittest.TestSuite:
    return unittest.defaultTestLoader.discover(start_dir=str(HERE), top_level_dir=str(HERE))


def _format(err: _ExcInfo) -> str:
    return "".join(traceback.format_exception(err[0], err[1], err[2]))


class _RecordingResult(unittest.TextTestResult):
    """unittest's text result (progress on stderr), plus one record per test."""

    def __init__(self, stream: Any, descriptions: bool, verbosity: int) -> None:
        super().__init__(stream, descriptions, verbosity)
        self.records: Dict[str, Dict[str, Any]] = {}
        self.fixture_errors: List[Tuple[str, str]] = []
        self._started: Dict[str, float] = {}

    def _record(self, test: unittest.TestCase, outcome: str, tb: str = "", reason: str = "") -> None:
        # A test with subtests may record several times: the worst outcome wins, tracebacks add up.
        previous = self.records.get(test.id())
        if previous is not None and previous["outcome"] in ("failed", "error") and outcome == "passed":
            return
        traceback_text = ((previous or {}).get("traceback", "") + "\n" + tb).strip() if tb else ""
        self.records[test.id()] = {"id": test.id(), "outcome": outcome, "traceback": traceback_text, "reason": reason}

    def startTest(self, test: unittest.TestCase) -> None:
        self._started[test.id()] = time.perf_counter()
        super().startTest(test)

    def stopTest(self, test: unittest.TestCase) -> None:
        super().stopTest(test)
        record = self.records.get(test.id())
        if record is not None:
            record["duration"] = time.perf_counter() - self._started.get(test.id(), time.perf_counter())

    def addSuccess(self, test: unittest.TestCase) -> None:
        super().addSuccess(test)
        self._record(test, "passed")

    def addFailure(self, test: unittest.TestCase, err: _ExcInfo) -> None:
        super().addFailure(test, err)
        self._record(test, "failed", _format(err))

    def addError(self, test: unittest.TestCase, err: _ExcInfo) -> None:
        super().addError(test, err)
        if not isinstance(test, unittest.TestCase):
            # setUpClass / setUpModule / tearDown… of a class or module: it names no test of its own.
            self.fixture_errors.append((str(test), _format(err)))
            return
        self._record(test, "error", _format(err))

    def addSkip(self, test: unittest.TestCase, reason: str) -> None:
        super().addSkip(test, reason)
        self._record(test, "skipped", reason=reason)

    def addExpectedFailure(self, test: unittest.TestCase, err: _ExcInfo) -> None:
        super().addExpectedFailure(test, err)
        self._record(test, "passed")

    def addUnexpectedSuccess(self, test: unittest.TestCase) -> None:
        super().addUnexpectedSuccess(test)
        self._record(test, "failed", "unexpected success: the test is marked expectedFailure")

    def addSubTest(self, test: unittest.TestCase, subtest: unittest.TestCase, err: Optional[_ExcInfo]) -> None:
        super().addSubTest(test, subtest, err)
        if err is not None and err[0] is not None:
            failed = issubclass(err[0], test.failureException)
            self._record(test, "failed" if failed else "error", f"{subtest}\n" + _format(err))


def _fixture_traceback(test_id: str, fixture_errors: List[Tuple[str, str]]) -> str:
    """The tracebacks of the fixtures around a test that did not run: its class's, then its module's."""
    module, cls = test_id.split(".")[0], ".".join(test_id.split(".")[:-1])
    matching = [tb for name, tb in fixture_errors if f"({cls})" in name or f"({module})" in name]
    return "\n".join(matching) or "did not run (no fixture error was reported)"


def run(out_path: str) -> int:
    suite = discover()
    ids = [t.id() for t in _tests(suite)]
    runner = unittest.TextTestRunner(stream=sys.stderr, verbosity=2, resultclass=_RecordingResult)
    result: _RecordingResult = runner.run(suite)  # type: ignore[assignment]
    with open(out_path, "w", encoding="utf-8") as out:
        for test_id in ids:
            record = result.records.get(test_id) or {
                "id": test_id,
                "outcome": "error",
                "traceback": _fixture_traceback(test_id, result.fixture_errors),
                "reason": "",
            }
            record.setdefault("duration", 0.0)
            out.write(json.dumps(record) + "\n")
    return 0 if result.wasSuccessful() else 1


def main(argv: List[str]) -> int:
    if argv[:1] == ["--list"]:
        for test in _tests(discover()):
            print(json.dumps(test.id()))
        return 0
    if len(argv) == 2 and argv[0] == "--json":
        return run(argv[1])
    print(__doc__, file=sys.stderr)
    return 2


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
