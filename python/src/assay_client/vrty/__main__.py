"""vrty's command line on assay: ``python -m assay_client.vrty --prompt "…" --response "…"``.

The same flags as ``python -m vrty`` (``--prompt``/``--prompt-file``, ``--response``/``--response-file``,
``/dev/stdin`` as a file, ``--pretty``) and the same exit codes: 0 success, 1 I/O error, 2 argument
error. The output is the score's ``to_dict()`` as one JSON line with sorted keys (indented with
``--pretty``). Not exact: the score comes from the server (``ASSAY_URL`` / ``ASSAY_API_KEY``), so a
server that cannot be reached or refuses the input is an I/O error here (exit 1, the reason on stderr);
``--idf-table`` is assay's addition.
"""

from __future__ import annotations

import argparse
import json
import sys
from typing import List, Optional

from .. import AssayError
from . import score


def _parser() -> argparse.ArgumentParser:
    p = argparse.ArgumentParser(
        prog="python -m assay_client.vrty",
        description="Score a (prompt, response) pair with vrty's formulas on an assay server.",
    )
    prompt = p.add_mutually_exclusive_group(required=True)
    prompt.add_argument("--prompt", help="the prompt text")
    prompt.add_argument("--prompt-file", metavar="PATH", help="read the prompt from PATH (/dev/stdin works)")
    response = p.add_mutually_exclusive_group(required=True)
    response.add_argument("--response", help="the response text")
    response.add_argument("--response-file", metavar="PATH", help="read the response from PATH (/dev/stdin works)")
    p.add_argument("--pretty", action="store_true", help="indent the JSON")
    p.add_argument("--idf-table", metavar="ID", help="score with this uploaded IDF table (assay's addition)")
    return p


def _read(path: str) -> str:
    with open(path, encoding="utf-8") as f:
        return f.read()


def main(argv: Optional[List[str]] = None) -> int:
    """Runs the command line; returns the exit code (argparse itself exits 2 on bad arguments)."""
    args = _parser().parse_args(argv)
    try:
        prompt = args.prompt if args.prompt is not None else _read(args.prompt_file)
        response = args.response if args.response is not None else _read(args.response_file)
        result = score(prompt, response, idf_table=args.idf_table)
    except (OSError, AssayError) as e:
        print(f"vrty: {e}", file=sys.stderr)
        return 1
    text = json.dumps(result.to_dict(), sort_keys=True, indent=2 if args.pretty else None)
    print(text)
    return 0


if __name__ == "__main__":
    sys.exit(main())
