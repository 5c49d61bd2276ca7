"""The build backend's own TOML reader (python/build_backend/stdlib_wheel.py, `_read_toml_subset`).

On Python 3.10 (no tomllib) it is what reads pyproject.toml when the wheel is built, so it must agree
with tomllib on our pyproject.toml, read the subset it claims (tables of strings, booleans, arrays of
strings, inline tables of strings; comments anywhere outside strings) as TOML does, and raise on
anything else rather than build a wheel from a misread file. Where tomllib exists, each expected value
below is also checked against it, so the expectations are TOML's own; on 3.10 they still run.
"""

from __future__ import annotations

import importlib.util
import unittest
from pathlib import Path
from types import ModuleType
from typing import Any, Dict, Optional, Tuple

PYTHON_DIR = Path(__file__).resolve().parent.parent


def _load_backend() -> ModuleType:
    # Loaded from its file: the backend is not a package of src/ (pip finds it by backend-path).
    spec = importlib.util.spec_from_file_location("stdlib_wheel", PYTHON_DIR / "build_backend" / "stdlib_wheel.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


backend = _load_backend()


def _tomllib() -> Optional[Any]:
    try:
        import tomllib  # Python 3.11+

        return tomllib
    except ImportError:
        return None


tomllib = _tomllib()
NO_TOMLLIB = "tomllib is Python 3.11+; on 3.10 this reader is what builds the wheel (test/python/package.test.ts)"


def read(text: str) -> Dict[str, Any]:
    return backend._read_toml_subset(text)


class OurPyproject(unittest.TestCase):
    @unittest.skipIf(tomllib is None, NO_TOMLLIB)
    def test_the_reader_agrees_with_tomllib_on_every_table(self) -> None:
        assert tomllib is not None
        text = (PYTHON_DIR / "pyproject.toml").read_text(encoding="utf-8")
        ours, theirs = read(text), tomllib.loads(text)
        for table in ("project", "build-system", "tool"):
            with self.subTest(table=table):
                self.assertIn(table, theirs)
                self.assertEqual(ours[table], theirs[table])
        self.assertEqual(sorted(ours), sorted(theirs))


SNIPPETS: Dict[str, Tuple[str, Dict[str, Any]]] = {
    "comments, booleans, quoted keys and a nested header": (
        '# a comment line\n'
        '[tool.x]  # a comment after a header\n'
        'name = "a # not a comment"  # a comment\n'
        '"quoted-key" = "v"\n'
        'on = true\n'
        'off = false\n'
        '\n'
        '[tool.x.deeper]\n'
        'k = ""\n',
        {"tool": {"x": {"name": "a # not a comment", "quoted-key": "v", "on": True, "off": False, "deeper": {"k": ""}}}},
    ),
    "escapes, a backslash before the closing quote": (
        '[t]\n'
        'quote = "say \\"hi\\""\n'
        'path = "C:\\\\dir\\\\"  # a trailing backslash, then a comment\n'
        'tab = "a\\tb\\u00e9"\n'
        'arr = ["x\\\\", "y]", "#z"]\n',
        {"t": {"quote": 'say "hi"', "path": "C:\\dir\\", "tab": "a\tb\u00e9", "arr": ["x\\", "y]", "#z"]}},
    ),
    "arrays over lines with comments and a trailing comma, inline tables": (
        '[project]\n'
        'empty = []\n'
        'classifiers = [\n'
        '  "A :: B",  # one\n'
        '  # a comment line inside the array\n'
        '  "C [x]",\n'
        ']\n'
        'license = { text = "MIT" }\n'
        'urls = {Home = "https://example.invalid/a#b", "Bug Tracker" = "https://example.invalid/i"}\n',
        {
            "project": {
                "empty": [],
                "classifiers": ["A :: B", "C [x]"],
                "license": {"text": "MIT"},
                "urls": {"Home": "https://example.invalid/a#b", "Bug Tracker": "https://example.invalid/i"},
            }
        },
    ),
}

# TOML the reader does not claim: each must raise ValueError, never be read as something else.
OUTSIDE: Dict[str, str] = {
    "an integer": "[t]\nn = 1\n",
    "an array of integers": "[t]\nn = [1, 2]\n",
    "an array of inline tables": '[project]\nauthors = [{ name = "A", email = "a@example.invalid" }]\n',
    "an array of literal strings": "[t]\nn = ['a', 'b']\n",
    "an inline table with a number": '[t]\nn = { a = "x", b = 1 }\n',
    "an array of tables": '[[t]]\nn = "x"\n',
    "a multi-line string": '[t]\nn = """\nx\n"""\n',
    "a dotted key": '[t]\na.b = "x"\n',
    "a date": "[t]\nd = 2026-01-01\n",
}
# Nor TOML at all: raise too.
NOT_TOML: Dict[str, str] = {
    "an unterminated array": '[t]\nn = [\n  "a",\n',
    "a line without a key": "[t]\njust words\n",
    "a key twice": '[t]\nn = "a"\nn = "b"\n',
    "two values on a line": '[t]\nn = "a" "b"\n',
}


class Subset(unittest.TestCase):
    def test_snippets_in_the_subset_read_as_toml_reads_them(self) -> None:
        for name, (text, expected) in SNIPPETS.items():
            with self.subTest(name):
                self.assertEqual(read(text), expected)
                if tomllib is not None:
                    self.assertEqual(tomllib.loads(text), expected)  # the expectation is TOML's

    def test_anything_else_raises(self) -> None:
        for name, text in {**OUTSIDE, **NOT_TOML}.items():
            with self.subTest(name):
                with self.assertRaises(ValueError):
                    read(text)
                if tomllib is not None:
                    if name in OUTSIDE:
                        tomllib.loads(text)  # valid TOML, just not ours
                    else:
                        self.assertRaises(tomllib.TOMLDecodeError, tomllib.loads, text)


if __name__ == "__main__":
    unittest.main()
