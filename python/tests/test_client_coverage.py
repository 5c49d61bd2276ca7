"""Every operation of the API document has a method of ``Client`` that names it (its
``operation_ids``), so a route added to the server without one here fails this test."""

from __future__ import annotations

import inspect
import json
import re
import unittest
from typing import Dict, Set

from support import OPENAPI

from assay_client import Client, __version__

#: Operations the client leaves out on purpose, each with why.
LEFT_OUT = {
    "createSession": "the dashboard's cookie session: a browser sign-in, not an API client's",
    "getSession": "the dashboard's cookie session",
    "deleteSession": "the dashboard's cookie session",
}


def document_operations() -> Set[str]:
    document = json.loads(OPENAPI.read_text(encoding="utf-8"))
    return {
        op["operationId"]
        for item in document["paths"].values()
        for method, op in item.items()
        if method in ("get", "post", "put", "patch", "delete")
    }


def client_operations(client: Client) -> Dict[str, str]:
    """Each operation id a public method names, with where the method is (``runs.get``)."""
    found: Dict[str, str] = {}
    seen: Set[int] = set()

    def walk(obj: object, where: str) -> None:
        if id(obj) in seen:
            return
        seen.add(id(obj))
        for name, member in inspect.getmembers(obj):
            if name.startswith("_"):
                continue
            for op in getattr(member, "operation_ids", ()):
                found.setdefault(op, f"{where}{name}")
            if type(member).__module__.startswith("assay_client.") and not callable(member):
                walk(member, f"{where}{name}.")

    walk(client, "")
    return found


class EveryOperationHasAMethod(unittest.TestCase):
    def setUp(self) -> None:
        self.client = Client(base_url="http://127.0.0.1:9", api_key="unused")

    def test_every_operation_of_the_document_has_a_method(self) -> None:
        missing = document_operations() - set(client_operations(self.client)) - set(LEFT_OUT)
        self.assertEqual(missing, set(), f"operations without a method of Client: {sorted(missing)}")

    def test_every_method_names_an_operation_of_the_document(self) -> None:
        unknown = {op: where for op, where in client_operations(self.client).items() if op not in document_operations()}
        self.assertEqual(unknown, {}, "methods naming operations the document does not have")

    def test_the_left_out_operations_are_in_the_document(self) -> None:
        # A left-out entry for an operation that is gone would hide nothing; keep the list true.
        self.assertLessEqual(set(LEFT_OUT), document_operations())


class Version(unittest.TestCase):
    def test_the_user_agents_version_is_the_packages(self) -> None:
        # pyproject.toml is the package's version (held equal to package.json by the packaging tests).
        pyproject = (OPENAPI.parent.parent / "python" / "pyproject.toml").read_text(encoding="utf-8")
        found = re.search(r'^version = "([^"]+)"', pyproject, re.M)
        self.assertIsNotNone(found)
        self.assertEqual(__version__, found.group(1) if found else None)


if __name__ == "__main__":
    unittest.main()
