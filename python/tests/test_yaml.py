"""The dependency-free YAML reader against PyYAML, the independent oracle.

Every document is read by both `parse_subset` and `yaml.safe_load`; they must agree exactly (types
included: 1 is not 1.0, True is not 1). The documents are our own cases, the repository's YAML files
(examples/, prompts/) and the YAML the originals' READMEs quote (read at test time from the seeds).
Documents outside the subset must raise YamlError with a line number, never be read differently.
"""

from __future__ import annotations

import math
import os
import re
import subprocess
import sys
import unittest
from pathlib import Path
from typing import Any, Iterator, List, Tuple

from assay_client._yaml import YamlError, load_yaml, parse_subset

try:
    import yaml  # type: ignore[import-untyped]
except ImportError:  # the oracle is absent: the comparisons skip, saying so
    yaml = None

from _seeds import REPO, REQUIRED, SEEDS_DIR, seed_files

OUR_CASES: List[str] = [
    "",
    "# only a comment\n",
    "a: 1\nb: 2.5\nc: -3\nd: +4\ne: 0\nf: 0x1F\ng: 017\nh: 0b101\ni: 1_000\nj: 3.\n",
    "a: 1e5\nb: 1.0e+5\nc: 1.0e5\nd: .5\ne: .inf\nf: -.Inf\ng: 6.5e-3\nh: 1:30\n",
    "t: [true, True, TRUE, yes, Yes, on, ON, false, no, off, Off, NO]\n",
    "n1: null\nn2: ~\nn3:\nn4: Null\nn5: 'null'\n",
    "s1: plain text here\ns2: 'single ''quoted'' # not a comment'\ns3: \"double \\\"q\\\" \\t \\u00e9 \\n\"\n",
    "a: b # comment\nc: d#not-comment\nurl: http://x.y/z#frag\n",
    "date: 2025-08-21\nversion: rpl_g5_v2_2025-08-21\nnotdate: 2025-8-21x\n",
    "claim: \"tariffs don't cause inflation\"\nmodel: gpt-5\nK: 8\n",
    "list:\n  - a\n  - b\n  -   c\n",
    "list:\n- a\n- b\nnext: 1\n",
    "- 1\n- two\n- [3, 4]\n- {k: v}\n",
    "models:\n  - name: GPT\n    type: openai\n    params:\n      model_id: gpt-4o\n      temperature: 0.7\n  - name: B\n    type: mock\n",
    "- - a\n  - b\n- - c\n",
    "- key: v\n  other:\n    - x\n    - y\n-\n  k2: v2\n- \n",
    "flow: [a, 'b c', \"d\", 1, 2.5, null, true, [x, y], {p: q}]\nempty: []\nemptymap: {}\n",
    "datasets:\n  - { name: \"gsm8k\",      params: { num_samples: 250 } }   # comment\n"
    "  - { name: mmlu, params: { num_samples: 250 } }\n",
    "multi: [a,\n  b,\n  c]\nafter: 1\n",
    "lit: |\n  line one\n    indented\n  line three\n\nfold: >\n  a\n  b\n\n  c\n   more\n  d\nend: x\n",
    "keep: |+\n  text\n\n\nstrip: |-\n  text\n\nclip: |\n  text\n\n\n",
    "fold_strip: >-\n  one\n  two\nfold_keep: >+\n  one\n\nlast: 1\n",
    "explicit: |2\n    four spaces\n   three spaces\nx: 1\n",
    "prompt:\n  system_prompt: \"You are a critic ...\"\n  user_prompt_template: |\n"
    "    Judge the following candidate ...\n    {query}\n    Output JSON: { \"kind\": ..., \"confidence\": ... }\n",
    "'quoted key': 1\n\"dq key\": 2\n1: int key\ntrue: bool key\n",
    "a:\n  b:\n    c:\n      d: deep\n  e: shallow\n",
    "---\na: 1\n",
    "---\na: 1\n...\n",
    "plain scalar document\n",
    "a: 'x' # trailing comment\nb: [1, 2] # c\nc: {x: 1} # c\n",
    "weird: a:b\ncolon_end: 'ends with:'\nempty_str: ''\nspace_str: ' '\n",
    "neg: [-1, -1.5, -0x10, +.5]\nstr_dash: -abc\n",
    "a:   \n  - 1\nb:\n\n  - 2\n",
    "win: \"C:\\\\path\\\\file\"\n",
    "unicode: héllo wörld ✓\n",
]

OUTSIDE_SUBSET: List[Tuple[str, int]] = [
    ("a: &anchor 1\nb: *anchor\n", 1),
    ("a: !!str 1\n", 1),
    ("a: this is\n  continued\n", 2),
    ("a: \"open\n  quote\"\n", 1),
    ("? complex\n: key\n", 1),
    ("a: 1\n---\nb: 2\n", 2),
    ("a:\n\tb: 1\n", 2),
    ("a: 1\n  b: 2\n", 2),
    ("t: 2001-12-14t21:59:43.10-05:00\n", 1),
    ("a: [1, 2\n", 1),
]


def seed_yaml_documents() -> Iterator[Tuple[str, str]]:
    """(where, text) for each YAML document the originals' READMEs quote: ```yaml blocks and
    heredocs that write a .yaml file (`cat > x.yaml << 'EOF'`)."""
    for path in seed_files():
        text = path.read_text(encoding="utf-8")
        for m in re.finditer(r"```ya?ml\n(.*?)```", text, re.S):
            yield f"{path.name} (```yaml block at offset {m.start()})", m.group(1)
        for m in re.finditer(r"cat > \S+\.ya?ml << '?(\w+)'?\n(.*?)\n\1\n", text, re.S):
            yield f"{path.name} (heredoc at offset {m.start()})", m.group(2) + "\n"


def repo_yaml_documents() -> Iterator[Tuple[str, str]]:
    for folder in ("examples", "prompts"):
        for path in sorted((REPO / folder).rglob("*.y*ml")):
            yield str(path.relative_to(REPO)), path.read_text(encoding="utf-8")


def same(a: Any, b: Any) -> bool:
    """Equality that also compares types (1 vs 1.0 vs True) and treats NaN as equal to NaN."""
    if type(a) is not type(b):
        return False
    if isinstance(a, float) and math.isnan(a):
        return math.isnan(b)
    if isinstance(a, dict):
        return list(a.keys()) == list(b.keys()) and all(same(a[k], b[k]) for k in a)
    if isinstance(a, list):
        return len(a) == len(b) and all(same(x, y) for x, y in zip(a, b))
    return a == b


@unittest.skipIf(yaml is None, "PyYAML (the oracle) is not importable on this Python")
class FallbackAgreesWithPyYAML(unittest.TestCase):
    def check(self, where: str, text: str) -> None:
        assert yaml is not None
        with self.subTest(where=where):
            expected = yaml.safe_load(text)
            self.assertTrue(same(parse_subset(text), expected), f"{where}: {parse_subset(text)!r} != {expected!r}")

    def test_our_cases(self) -> None:
        for i, text in enumerate(OUR_CASES):
            self.check(f"case {i}: {text[:40]!r}", text)

    def test_the_repositorys_yaml_files(self) -> None:
        docs = list(repo_yaml_documents())
        self.assertGreater(len(docs), 0, "no YAML found under examples/ or prompts/")
        for where, text in docs:
            self.check(where, text)

    def test_the_originals_quoted_configs(self) -> None:
        docs = list(seed_yaml_documents())
        if not docs:
            if REQUIRED:
                self.fail(f"no seeds at {SEEDS_DIR} and REFERENCE_REQUIRED=1")
            self.skipTest(f"needs the originals' READMEs at {SEEDS_DIR} (set REFERENCE_DIR or SEEDS_DIR)")
        for where, text in docs:
            self.check(where, text)

    def test_pyyaml_also_rejects_or_we_say_so(self) -> None:
        # The outside-subset documents are either invalid YAML or read by PyYAML; either way we refuse.
        for text, _ in OUTSIDE_SUBSET:
            with self.subTest(text=text):
                with self.assertRaises(YamlError):
                    parse_subset(text)


class OutsideTheSubset(unittest.TestCase):
    def test_raises_naming_the_line(self) -> None:
        for text, line in OUTSIDE_SUBSET:
            with self.subTest(text=text):
                with self.assertRaises(YamlError) as cm:
                    parse_subset(text)
                self.assertEqual(cm.exception.line, line, str(cm.exception))
                self.assertIn(f"line {line}:", str(cm.exception))


class LoadYaml(unittest.TestCase):
    def test_reads_a_config_without_pyyaml(self) -> None:
        # A fresh interpreter where `import yaml` fails, so load_yaml must take the fallback.
        code = (
            "import sys; sys.modules['yaml'] = None\n"
            "from assay_client._yaml import load_yaml\n"
            "print(repr(load_yaml('claim: x\\nK: 8\\nlist: [1, 2.5]\\n')))\n"
        )
        env = dict(os.environ, PYTHONPATH=str(REPO / "python" / "src"))
        out = subprocess.run([sys.executable, "-c", code], env=env, capture_output=True, text=True, check=True)
        self.assertEqual(out.stdout.strip(), repr({"claim": "x", "K": 8, "list": [1, 2.5]}))

    @unittest.skipIf(yaml is None, "PyYAML is not importable on this Python")
    def test_pyyaml_errors_become_yaml_errors_with_the_line(self) -> None:
        with self.assertRaises(YamlError) as cm:
            load_yaml("a: 1\nb: [unclosed\n")
        self.assertGreater(cm.exception.line, 0)


if __name__ == "__main__":
    unittest.main()
