"""Failures become one exception type, ``AssayError``, carrying the API's problem+json; a server that
cannot be reached or answers something else is an AssayError too; the key is never in any of them."""

from __future__ import annotations

import socket
import unittest

from support import Fault, FaultProxy, client, env

from assay_client import AssayError, AssayTimeoutError, Client


class ProblemJson(unittest.TestCase):
    def test_a_validation_error_names_the_bad_field(self) -> None:
        with self.assertRaises(AssayError) as caught:
            client().vrty.score("What is the capital of France?", 42)  # type: ignore[arg-type]
        error = caught.exception
        self.assertEqual(error.status, 400)
        self.assertEqual(error.type, "/problems/validation")
        self.assertEqual([e["path"] for e in error.errors], ["response"])
        self.assertTrue(str(error).startswith("400 Validation failed: "), str(error))
        self.assertIn("response: ", str(error))
        self.assertEqual(error.problem["status"], 400)
        self.assertTrue(error.request_id)

    def test_an_unknown_key_is_a_401_that_does_not_echo_the_key(self) -> None:
        secret = "assay_sk_not_a_real_key_0123456789"
        bad = client(api_key=secret)
        with self.assertRaises(AssayError) as caught:
            bad.runs.get("run_x")
        self.assertEqual(caught.exception.status, 401)
        self.assertEqual(caught.exception.type, "/problems/unauthenticated")
        for text in (str(caught.exception), repr(caught.exception), repr(bad), repr(bad._http), str(caught.exception.problem)):
            self.assertNotIn(secret, text)

    def test_a_run_that_is_not_there_is_a_404(self) -> None:
        with self.assertRaises(AssayError) as caught:
            client().runs.get("run_0doesnotexist000000")
        self.assertEqual(caught.exception.status, 404)
        self.assertEqual(caught.exception.type, "/problems/not-found")


class NotTheApi(unittest.TestCase):
    def test_a_non_json_error_body_is_an_assay_error_with_its_status(self) -> None:
        with FaultProxy() as proxy:
            proxy.fail("GET /healthz", Fault(status=500, headers={"Content-Type": "text/html"}, body=b"<h1>oops</h1>"))
            with self.assertRaises(AssayError) as caught:
                client(base_url=proxy.url, max_retries=0).health()  # a 500 of a GET is retried otherwise
        self.assertEqual(caught.exception.status, 500)
        self.assertEqual(caught.exception.title, "Internal Server Error")
        self.assertIn("text/html", str(caught.exception))

    def test_a_closed_port_is_a_connection_error_without_a_status(self) -> None:
        # A port that was just free: nothing listens there.
        with socket.socket() as s:
            s.bind(("127.0.0.1", 0))
            port = s.getsockname()[1]
        with self.assertRaises(AssayError) as caught:
            Client(base_url=f"http://127.0.0.1:{port}", api_key="k", max_retries=0).health()
        self.assertIsNone(caught.exception.status)
        self.assertEqual(caught.exception.title, "Connection failed")
        self.assertIn(f"127.0.0.1:{port}", str(caught.exception))

    def test_a_hanging_answer_is_a_timeout(self) -> None:
        with FaultProxy() as proxy:
            proxy.fail("GET /healthz", Fault(hang=True))
            with self.assertRaises(AssayTimeoutError) as caught:
                client(base_url=proxy.url, timeout=0.5, max_retries=0).health()
            self.assertIsInstance(caught.exception, TimeoutError)
            self.assertIsNone(caught.exception.status)
            self.assertEqual(len(proxy.requests("GET /healthz")), 1)

    def test_the_base_url_must_be_http(self) -> None:
        with self.assertRaises(ValueError):
            Client(base_url="ftp://127.0.0.1", api_key="k")
        self.assertTrue(env("ASSAY_URL").startswith("http"))


if __name__ == "__main__":
    unittest.main()
