"""The original tools' READMEs, read at test time and never copied into the repository.

They live beside the reference vectors: $SEEDS_DIR, else the `seeds` folder next to $REFERENCE_DIR
(default ../shared/reference from the repository root, as test/support/reference.ts reads it).
A test that needs one calls `seed_readme(...)`: absent, it skips saying where it looked, or fails
when REFERENCE_REQUIRED=1 (as CI sets), so the quick-starts never skip silently.
"""

from __future__ import annotations

import os
import unittest
from pathlib import Path

REPO = Path(__file__).resolve().parents[2]
REFERENCE_DIR = (REPO / os.environ.get("REFERENCE_DIR", "../shared/reference")).resolve()
SEEDS_DIR = Path(os.environ["SEEDS_DIR"]).resolve() if os.environ.get("SEEDS_DIR") else REFERENCE_DIR.parent / "seeds"
REQUIRED = os.environ.get("REFERENCE_REQUIRED") == "1"


def seed_files() -> list[Path]:
    return sorted(SEEDS_DIR.glob("*.txt")) if SEEDS_DIR.is_dir() else []


def seed_readme(test: unittest.TestCase, title: str) -> str:
    """The text of the README whose `Name:` header or first `# ` heading contains `title`.

    Skips `test` (fails it under REFERENCE_REQUIRED=1) when no such README is there."""
    for path in seed_files():
        text = path.read_text(encoding="utf-8")
        for line in text.splitlines():
            if line.startswith("Name: ") or line.startswith("# "):
                if title.lower() in line.lower():
                    return text
                if line.startswith("# "):
                    break
    why = f"needs the original README titled {title!r} in {SEEDS_DIR} (set REFERENCE_DIR or SEEDS_DIR)"
    if REQUIRED:
        test.fail(why + " and REFERENCE_REQUIRED=1")
    test.skipTest(why)
    raise AssertionError("unreachable")
