"""A PEP 517 / PEP 660 build backend written with the standard library only.

Why not setuptools: the package must build offline (`pip wheel --no-deps --no-build-isolation`) on any
machine with Python >= 3.10. setuptools' wheels need the separate `wheel` package (setuptools < 70.1),
which a locked-down machine may not have: `bdist_wheel` is then an "invalid command". A pure-Python,
zero-dependency package needs nothing more than a zip file with a dist-info folder, so this module
writes one (PEP 427, PEP 376 RECORD, core metadata 2.1), reproducibly (fixed timestamps, sorted entries).

It reads `[project]` from pyproject.toml (tomllib on 3.11+, a small reader of the subset this
project's file uses on 3.10) and packs `src/<package>` as it is.
"""

from __future__ import annotations

import base64
import hashlib
import io
import json
import os
import re
import tarfile
import zipfile
from pathlib import Path
from typing import Any, Dict, List, Mapping, Optional, Tuple

ROOT = Path(__file__).resolve().parent.parent
# Zip entries need a date; 1980-01-01 (the earliest a zip can say) unless SOURCE_DATE_EPOCH says otherwise,
# so the same sources make byte-identical files.
_EPOCH = 315532800


def _timestamp() -> int:
    return max(int(os.environ.get("SOURCE_DATE_EPOCH", _EPOCH)), _EPOCH)


# --- pyproject.toml -------------------------------------------------------------------------------


def _read_toml_subset(text: str) -> Dict[str, Any]:
    """The tables of a TOML file whose values are basic strings, booleans, arrays of basic strings and
    inline tables of basic strings (keys bare or quoted; comments outside strings; arrays over lines).

    Enough for this project's pyproject.toml on Python 3.10 (no tomllib); anything else raises
    ValueError, so a file outside the subset fails the build instead of being misread.
    """
    return _TomlSubset(text).document()


_BARE_KEY = re.compile(r"[A-Za-z0-9_-]+")
# A basic string on one line; its escapes are JSON's but for \U (which json.loads refuses: it raises).
_BASIC_STRING = re.compile(r'"(?:[^"\\\n]|\\.)*"')


class _TomlSubset:
    """A scanner over the whole text (arrays may span lines), one character position at a time."""

    def __init__(self, text: str) -> None:
        self.text = text
        self.i = 0

    def fail(self, what: str) -> ValueError:
        line = self.text.count("\n", 0, self.i) + 1
        return ValueError(f"pyproject.toml line {line}: {what} (this reader takes a subset of TOML)")

    def peek(self) -> str:
        return self.text[self.i : self.i + 1]

    def skip(self, newlines: bool = False) -> None:
        """Past spaces and tabs, and with `newlines` past line ends and comments too."""
        while self.i < len(self.text):
            ch = self.text[self.i]
            if ch in " \t" or (newlines and ch in "\r\n"):
                self.i += 1
            elif newlines and ch == "#":
                end = self.text.find("\n", self.i)
                self.i = len(self.text) if end < 0 else end
            else:
                return

    def end_of_line(self) -> None:
        self.skip()
        if self.peek() == "#":
            end = self.text.find("\n", self.i)
            self.i = len(self.text) if end < 0 else end
        if self.peek() not in ("", "\n", "\r"):
            raise self.fail(f"unexpected {self.text[self.i:].splitlines()[0]!r}")

    def string(self) -> str:
        m = _BASIC_STRING.match(self.text, self.i)
        if not m:
            raise self.fail("an unterminated string")
        self.i = m.end()
        return json.loads(m.group(0))

    def key(self) -> str:
        if self.peek() == '"':
            return self.string()
        m = _BARE_KEY.match(self.text, self.i)
        if not m:
            raise self.fail("a key expected")
        self.i = m.end()
        return m.group(0)

    def expect(self, ch: str) -> None:
        if self.peek() != ch:
            raise self.fail(f"{ch!r} expected, found {self.peek() or 'the end'!r}")
        self.i += 1

    def value(self) -> Any:
        ch = self.peek()
        if ch == '"':
            return self.string()
        if ch == "[":
            self.i += 1
            items: List[str] = []
            self.skip(newlines=True)
            while self.peek() != "]":
                if self.peek() != '"':
                    raise self.fail("an array of basic strings only")
                items.append(self.string())
                self.skip(newlines=True)
                if self.peek() != ",":
                    break
                self.i += 1
                self.skip(newlines=True)
            self.expect("]")
            return items
        if ch == "{":
            self.i += 1
            table: Dict[str, str] = {}
            self.skip()
            while self.peek() != "}":
                k = self.key()
                self.skip()
                self.expect("=")
                self.skip()
                if self.peek() != '"' or k in table:
                    raise self.fail(f"inline table key {k!r}: a basic string, once")
                table[k] = self.string()
                self.skip()
                if self.peek() != ",":
                    break
                self.i += 1
                self.skip()
            self.expect("}")
            return table
        for word, v in (("true", True), ("false", False)):
            if self.text.startswith(word, self.i):
                self.i += len(word)
                return v
        raise self.fail("a basic string, boolean, array of strings or inline table of strings expected")

    def document(self) -> Dict[str, Any]:
        out: Dict[str, Any] = {}
        table = out
        while True:
            self.skip(newlines=True)
            if self.i >= len(self.text):
                return out
            if self.peek() == "[":
                self.i += 1
                if self.peek() == "[":
                    raise self.fail("an array of tables")
                table = out
                while True:
                    self.skip()
                    table = table.setdefault(self.key(), {})
                    if not isinstance(table, dict):
                        raise self.fail("a table header naming a value")
                    self.skip()
                    if self.peek() != ".":
                        break
                    self.i += 1
                self.expect("]")
            else:
                k = self.key()
                self.skip()
                self.expect("=")
                self.skip()
                if k in table:
                    raise self.fail(f"{k!r} twice")
                table[k] = self.value()
            self.end_of_line()


def read_pyproject(root: Path = ROOT) -> Dict[str, Any]:
    """The parsed pyproject.toml of the project at `root`."""
    text = (root / "pyproject.toml").read_text(encoding="utf-8")
    try:
        import tomllib  # Python 3.11+
    except ImportError:
        return _read_toml_subset(text)
    return tomllib.loads(text)


class _Project:
    """What the wheel needs from `[project]`."""

    def __init__(self, root: Path = ROOT) -> None:
        project: Mapping[str, Any] = read_pyproject(root)["project"]
        if project.get("dependencies"):
            raise ValueError("this backend packs dependency-free projects only")
        self.root = root
        self.name: str = project["name"]
        self.version: str = project["version"]
        self.module = re.sub(r"[-_.]+", "_", self.name).lower()
        self.project = project

    @property
    def dist_info(self) -> str:
        return f"{self.module}-{self.version}.dist-info"

    @property
    def package_dir(self) -> Path:
        return self.root / "src" / self.module

    def metadata(self) -> str:
        p = self.project
        lines = ["Metadata-Version: 2.1", f"Name: {self.name}", f"Version: {self.version}"]
        if "description" in p:
            lines.append(f"Summary: {p['description']}")
        if "requires-python" in p:
            lines.append(f"Requires-Python: {p['requires-python']}")
        licence = p.get("license")
        if isinstance(licence, dict) and "text" in licence:
            lines.append(f"License: {licence['text']}")
        elif isinstance(licence, str):
            lines.append(f"License: {licence}")
        for classifier in p.get("classifiers", []):
            lines.append(f"Classifier: {classifier}")
        for label, url in p.get("urls", {}).items():
            lines.append(f"Project-URL: {label}, {url}")
        readme = p.get("readme")
        body = ""
        if isinstance(readme, str):
            lines.append("Description-Content-Type: text/markdown")
            body = "\n" + (self.root / readme).read_text(encoding="utf-8")
        return "\n".join(lines) + "\n" + body

    def package_files(self) -> List[Tuple[str, Path]]:
        """(path in the wheel, file) for every file of the package but caches, sorted."""
        out: List[Tuple[str, Path]] = []
        for path in sorted(self.package_dir.rglob("*")):
            if path.is_file() and "__pycache__" not in path.parts and path.suffix not in (".pyc", ".pyo"):
                out.append((path.relative_to(self.root / "src").as_posix(), path))
        return out


# --- wheels ---------------------------------------------------------------------------------------


_WHEEL = "Wheel-Version: 1.0\nGenerator: assay stdlib_wheel\nRoot-Is-Purelib: true\nTag: py3-none-any\n"


def _record_line(name: str, data: bytes) -> str:
    digest = base64.urlsafe_b64encode(hashlib.sha256(data).digest()).rstrip(b"=").decode("ascii")
    return f"{name},sha256={digest},{len(data)}"


def _write_wheel(path: Path, entries: List[Tuple[str, bytes]], dist_info: str) -> None:
    """A wheel of `entries` plus its RECORD, entries in the given order (dist-info last, as PEP 427 asks)."""
    date = _zip_date()
    record = [_record_line(name, data) for name, data in entries]
    record.append(f"{dist_info}/RECORD,,")
    all_entries = entries + [(f"{dist_info}/RECORD", ("\n".join(record) + "\n").encode("utf-8"))]
    with zipfile.ZipFile(path, "w", compression=zipfile.ZIP_DEFLATED) as zf:
        for name, data in all_entries:
            info = zipfile.ZipInfo(name, date_time=date)
            info.external_attr = 0o644 << 16
            info.compress_type = zipfile.ZIP_DEFLATED
            zf.writestr(info, data)


def _zip_date() -> Tuple[int, int, int, int, int, int]:
    import time

    t = time.gmtime(_timestamp())
    return (t.tm_year, t.tm_mon, t.tm_mday, t.tm_hour, t.tm_min, t.tm_sec)


def _dist_info_entries(project: _Project) -> List[Tuple[str, bytes]]:
    return [
        (f"{project.dist_info}/METADATA", project.metadata().encode("utf-8")),
        (f"{project.dist_info}/WHEEL", _WHEEL.encode("utf-8")),
        (f"{project.dist_info}/top_level.txt", f"{project.module}\n".encode("utf-8")),
    ]


def _wheel_name(project: _Project) -> str:
    return f"{project.module}-{project.version}-py3-none-any.whl"


def build_wheel(
    wheel_directory: str,
    config_settings: Optional[Mapping[str, Any]] = None,
    metadata_directory: Optional[str] = None,
) -> str:
    """PEP 517: the package's files and its dist-info in a py3-none-any wheel; returns its file name."""
    project = _Project()
    entries = [(name, path.read_bytes()) for name, path in project.package_files()]
    name = _wheel_name(project)
    _write_wheel(Path(wheel_directory) / name, entries + _dist_info_entries(project), project.dist_info)
    return name


def build_editable(
    wheel_directory: str,
    config_settings: Optional[Mapping[str, Any]] = None,
    metadata_directory: Optional[str] = None,
) -> str:
    """PEP 660: a wheel whose only module is a .pth file putting this checkout's src/ on sys.path."""
    project = _Project()
    pth = (str((project.root / "src").resolve()) + "\n").encode("utf-8")
    name = _wheel_name(project)
    entries = [(f"_{project.module}_editable.pth", pth)] + _dist_info_entries(project)
    _write_wheel(Path(wheel_directory) / name, entries, project.dist_info)
    return name


def prepare_metadata_for_build_wheel(
    metadata_directory: str, config_settings: Optional[Mapping[str, Any]] = None
) -> str:
    """PEP 517: the dist-info folder the wheel will hold (without RECORD)."""
    project = _Project()
    for name, data in _dist_info_entries(project):
        target = Path(metadata_directory) / name
        target.parent.mkdir(parents=True, exist_ok=True)
        target.write_bytes(data)
    return project.dist_info


prepare_metadata_for_build_editable = prepare_metadata_for_build_wheel


def build_sdist(sdist_directory: str, config_settings: Optional[Mapping[str, Any]] = None) -> str:
    """PEP 517: pyproject.toml, the README, this backend and src/ in a .tar.gz, with PKG-INFO."""
    project = _Project()
    base = f"{project.module}-{project.version}"
    files: List[Tuple[str, bytes]] = [("PKG-INFO", project.metadata().encode("utf-8"))]
    for rel in ["pyproject.toml", project.project.get("readme", "")]:
        if rel:
            files.append((rel, (project.root / rel).read_bytes()))
    backend = Path(__file__).resolve()
    files.append((backend.relative_to(project.root).as_posix(), backend.read_bytes()))
    files += [("src/" + name, path.read_bytes()) for name, path in project.package_files()]
    name = f"{base}.tar.gz"
    buf = io.BytesIO()
    with tarfile.open(fileobj=buf, mode="w:gz", format=tarfile.PAX_FORMAT) as tar:
        for rel, data in sorted(files):
            info = tarfile.TarInfo(f"{base}/{rel}")
            info.size, info.mtime, info.mode = len(data), _timestamp(), 0o644
            tar.addfile(info, io.BytesIO(data))
    (Path(sdist_directory) / name).write_bytes(buf.getvalue())
    return name


def get_requires_for_build_wheel(config_settings: Optional[Mapping[str, Any]] = None) -> List[str]:
    """Nothing: the standard library builds the wheel."""
    return []


get_requires_for_build_sdist = get_requires_for_build_wheel
get_requires_for_build_editable = get_requires_for_build_wheel
