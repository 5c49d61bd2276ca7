"""The generated types (assay_client.types) against the document the server serves.

The functions at the top are also what `npm run lint:python` checks: pyright must narrow a `Run` on its
`evaluator` to the evaluator's own run type (test/node/python-typecheck.test.ts proves a wrong key fails).
"""

from __future__ import annotations

import json
import os
import typing
import unittest
import urllib.request
from typing import Optional

from assay_client import types
from assay_client.types import Run, Sample


def contested_count(run: Run) -> Optional[int]:
    """How many items a judge run found contested; None for other evaluators or before the result."""
    if run["evaluator"] == "judge":
        result = run["result"]
        if result is not None:
            return result["contested"]["count"]
    return None


def replay_turns(sample: Sample) -> Optional[int]:
    """How many turns a chain-determinism sample's replay took; None for other evaluators."""
    if sample["evaluator"] == "chain-determinism" and sample["output"] is not None:
        return len(sample["output"]["turns"])
    return None


def _served_document() -> dict[str, typing.Any]:
    with urllib.request.urlopen(os.environ["ASSAY_URL"].rstrip("/") + "/openapi.json", timeout=60) as res:
        return json.load(res)


class GeneratedTypesTest(unittest.TestCase):
    document: dict[str, typing.Any]

    @classmethod
    def setUpClass(cls) -> None:
        cls.document = _served_document()

    def test_every_schema_the_server_serves_has_its_type(self) -> None:
        missing = [name for name in self.document["components"]["schemas"] if not hasattr(types, name)]
        self.assertEqual(missing, [])

    def test_each_union_member_keeps_its_discriminator_literal(self) -> None:
        # The served document's discriminator mappings, member by member, against the Literal pyright narrows on.
        schemas = self.document["components"]["schemas"]
        checked = 0
        for name, schema in schemas.items():
            discriminator = schema.get("discriminator")
            if not discriminator:
                continue
            key = discriminator["propertyName"]
            # The alias is Union["A", "B", …]: its members are forward references by name.
            members = typing.get_args(getattr(types, name))
            by_name = {m.__forward_arg__ if isinstance(m, typing.ForwardRef) else m.__name__ for m in members}
            for value, ref in discriminator["mapping"].items():
                member = getattr(types, ref.rsplit("/", 1)[1])
                self.assertIn(member.__name__, by_name, f"{name}: {member.__name__} is not a member")
                hint = typing.get_type_hints(member)[key]
                self.assertEqual(typing.get_args(hint), (value,), f"{member.__name__}[{key!r}]")
                checked += 1
        self.assertGreater(checked, 0)

    def test_required_keys_are_the_schemas_required(self) -> None:
        judge_run = self.document["components"]["schemas"]["JudgeRun"]
        self.assertEqual(types.JudgeRun.__required_keys__, frozenset(judge_run["required"]))
        problem = self.document["components"]["schemas"]["Problem"]
        self.assertEqual(types.Problem.__required_keys__, frozenset(problem["required"]))
        self.assertEqual(
            types.Problem.__optional_keys__, frozenset(problem["properties"]) - frozenset(problem["required"])
        )


if __name__ == "__main__":
    unittest.main()
