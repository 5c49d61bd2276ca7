"""assay_client.vrty against the real server: score() is the server's answer, attribute by attribute.

Needs ASSAY_URL and ASSAY_API_KEY (the e2e server, loopback: support.env); the expected values are
fetched separately with a plain urllib POST, never through the facade or the client.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import tempfile
import unittest
import urllib.request
from pathlib import Path
from typing import Any, Dict, Optional

from support import env

from assay_client import AssayError
from assay_client.vrty import VrtyScore, score

SRC = str(Path(__import__("assay_client").__file__).resolve().parent.parent)
DIMENSIONS = ("composite", "relevance", "coherence", "completeness", "conciseness")
VRTY_KEYS = [*DIMENSIONS, "explanations", "vrty_version", "idf_sha256", "weights"]


def post(path: str, body: Dict[str, Any], method: str = "POST") -> Dict[str, Any]:
    """The server's own answer, with nothing of the package in between."""
    req = urllib.request.Request(
        env("ASSAY_URL") + path,
        data=json.dumps(body).encode(),
        method=method,
        headers={"Authorization": f"Bearer {env('ASSAY_API_KEY')}", "Content-Type": "application/json"},
    )
    with urllib.request.urlopen(req, timeout=60) as res:
        return json.loads(res.read())


def server_score(prompt: str, response: str, idf_table: Optional[str] = None) -> Dict[str, Any]:
    body: Dict[str, Any] = {"prompt": prompt, "response": response}
    if idf_table:
        body["idf_table"] = idf_table
    return post("/v1/vrty/score", body)


def run_cli(*args: str, stdin: str = "") -> subprocess.CompletedProcess[str]:
    env = {**os.environ, "PYTHONPATH": SRC + os.pathsep + os.environ.get("PYTHONPATH", "")}
    return subprocess.run(
        [sys.executable, "-m", "assay_client.vrty", *args],
        input=stdin,
        capture_output=True,
        text=True,
        env=env,
        timeout=120,
    )


class ScoreTest(unittest.TestCase):
    def assert_same_score(self, got: VrtyScore, answer: Dict[str, Any]) -> None:
        for name in DIMENSIONS:
            self.assertIsInstance(getattr(got, name), float, name)
            self.assertEqual(getattr(got, name), answer[name], name)
        self.assertEqual(got.explanations, answer["explanations"])
        self.assertEqual(got.vrty_version, answer["vrty_version"])
        self.assertEqual(got.idf_sha256, answer["idf_sha256"])
        self.assertEqual(got.weights, answer["weights"])
        self.assertEqual(got.to_dict(), answer)
        self.assertEqual(list(got.to_dict()), VRTY_KEYS)  # vrty's to_dict() order, whatever the server's

    def test_score_is_the_servers_answer_attribute_by_attribute(self) -> None:
        prompt = "How does a heat pump move heat from outside air into a house?"
        response = (
            "A heat pump moves heat with a refrigerant loop. The refrigerant evaporates outside, "
            "absorbing heat even from cold air.\nA compressor raises its temperature, and indoors it "
            "condenses and releases the heat."
        )
        answer = server_score(prompt, response)
        self.assertEqual(len(answer), 9)  # vrty's 9-key result
        self.assert_same_score(score(prompt, response), answer)

    def test_degenerate_input_follows_the_servers_contract(self) -> None:
        # An empty response scores 0 everywhere (vrty's input contract); the facade passes it through.
        answer = server_score("What is the capital of France?", "")
        got = score("What is the capital of France?", "")
        self.assert_same_score(got, answer)
        self.assertEqual(got.composite, 0.0)

    def test_idf_table_scores_with_an_uploaded_table(self) -> None:
        table = post(
            "/v1/vrty/idf-tables",
            {
                "name": "py-vrty-facade",
                "documents": ["Kubernetes schedules pods onto nodes.", "Helm charts template manifests."],
            },
        )
        try:
            prompt, response = "How are pods scheduled?", "Kubernetes schedules pods onto nodes."
            answer = server_score(prompt, response, idf_table=table["id"])
            self.assertEqual(answer["idf_sha256"], table["sha256"])
            got = score(prompt, response, idf_table=table["id"])
            self.assert_same_score(got, answer)
            self.assertNotEqual(got.idf_sha256, server_score(prompt, response)["idf_sha256"])
        finally:
            req = urllib.request.Request(
                f"{env('ASSAY_URL')}/v1/vrty/idf-tables/{table['id']}",
                method="DELETE",
                headers={"Authorization": f"Bearer {env('ASSAY_API_KEY')}"},
            )
            urllib.request.urlopen(req, timeout=60).close()

    def test_bad_input_raises_assay_error_naming_the_field(self) -> None:
        with self.assertRaises(AssayError) as caught:
            score("What is the capital of France?", None)  # type: ignore[arg-type]
        e = caught.exception
        self.assertEqual(e.status, 400)
        fields = [err.get("path", err.get("field")) for err in e.errors]
        self.assertIn("response", fields)
        self.assertIn("response", str(e))
        self.assertNotIn(env("ASSAY_API_KEY"), str(e))


class CommandLineTest(unittest.TestCase):
    prompt = "What is the capital of France?"
    response = "Paris is the capital of France. It lies on the Seine."

    def test_prints_one_sorted_json_line_equal_to_the_servers_answer(self) -> None:
        done = run_cli("--prompt", self.prompt, "--response", self.response)
        self.assertEqual(done.returncode, 0, done.stderr)
        lines = done.stdout.splitlines()
        self.assertEqual(len(lines), 1)
        printed = json.loads(lines[0])
        self.assertEqual(printed, server_score(self.prompt, self.response))
        self.assertEqual(lines[0], json.dumps(printed, sort_keys=True))

    def test_files_stdin_and_pretty(self) -> None:
        with tempfile.TemporaryDirectory() as tmp:
            prompt_file = Path(tmp, "prompt.txt")
            prompt_file.write_text(self.prompt, encoding="utf-8")
            done = run_cli("--prompt-file", str(prompt_file), "--response-file", "/dev/stdin", "--pretty",
                           stdin=self.response)
        self.assertEqual(done.returncode, 0, done.stderr)
        self.assertGreater(len(done.stdout.splitlines()), 1)  # indented
        self.assertEqual(json.loads(done.stdout), server_score(self.prompt, self.response))

    def test_exit_codes(self) -> None:
        missing_arg = run_cli("--prompt", self.prompt)
        self.assertEqual(missing_arg.returncode, 2)
        with tempfile.TemporaryDirectory() as tmp:
            missing_file = run_cli("--prompt-file", str(Path(tmp, "absent.txt")), "--response", "x")
        self.assertEqual(missing_file.returncode, 1)
        self.assertEqual(missing_file.stdout, "")
        self.assertIn("absent.txt", missing_file.stderr)


if __name__ == "__main__":
    unittest.main()
