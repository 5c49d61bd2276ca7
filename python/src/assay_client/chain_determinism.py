"""chain_determinism_harness (`python -m chain_determinism_harness eval …`) with assay behind it.

For a user of the harness the change is the module name::

    python -m assay_client.chain_determinism eval --model qwen/qwen-2.5-72b-instruct --n-queries 5 --n-replays 10

and in Python::

    from assay_client import chain_determinism
    summary = chain_determinism.eval(model="sim:agent", n_queries=5, n_replays=10)
    print(summary["divergence_rate"], summary["wilson_ci_95"])

The keyword arguments are the harness's flags (model, n_queries, n_replays, temperature, concurrency,
base_url, timeout, out, runs_out) and return its summary keys (model, n_queries, n_replays,
temperature, elapsed_s, n_total, n_errors, n_measurable, n_diverged, divergence_rate, wilson_ci_95,
per_query). Keys as the harness reads them: OPENAI_API_KEY, else OPENROUTER_API_KEY (with
OpenRouter's URL, which OPENROUTER_BASE_URL overrides); the base URL from `base_url`, else
CHAIN_DET_BASE_URL, else OPENAI_BASE_URL.

Where this is not the harness (the server decides these): the replays run on the server, which
retries a failed model call up to 3 times and may run fewer replays at once than `concurrency` when
the endpoint pushes back; the queries are the first N of a suite of the server (`default`, 10
queries written for assay: not the harness's held-out set, so its numbers are not the paper's), or
of one you uploaded (`suite=`); `elapsed_s` is the run's time on the server, from creation to end.
"""

from __future__ import annotations

import json
import os
import sys
from datetime import datetime
from pathlib import Path
from typing import TYPE_CHECKING, Any, Callable, Dict, Iterable, List, Mapping, Optional, Sequence, Set, Tuple

from ._model_keys import ConfigError, provider_from_env

if TYPE_CHECKING:
    from .client import Client

__all__ = ["ConfigError", "eval", "run_request", "summary_of", "main"]


def run_request(
    *,
    model: str,
    n_queries: int = 5,
    n_replays: int = 10,
    temperature: float = 0.0,
    concurrency: Optional[int] = None,
    base_url: Optional[str] = None,
    timeout: float = 60,
    suite: str = "default",
    seed: Optional[int] = None,
    connection: Optional[str] = None,
    env: Optional[Mapping[str, str]] = None,
) -> Dict[str, Any]:
    """The POST /v1/chain-determinism/runs body for the harness's arguments."""
    env = os.environ if env is None else env
    body: Dict[str, Any] = {
        "model": model,
        "n_queries": n_queries,
        "n_replays": n_replays,
        "temperature": temperature,
        "timeout_s": timeout,
        "suite": suite,
    }
    if concurrency is not None:
        body["concurrency"] = concurrency
    if seed is not None:
        body["seed"] = seed
    if connection and not model.startswith("sim:"):
        body["provider"] = {"connection": connection}  # a saved connection: its endpoint and key
    elif not model.startswith("sim:"):
        explicit = base_url or env.get("CHAIN_DET_BASE_URL") or None
        provider = provider_from_env(base_url=explicit, env=env)
        # The harness refuses to start without a key; an endpoint named explicitly may need none.
        if "api_key" not in provider and not explicit:
            raise ConfigError("no model key: set OPENAI_API_KEY or OPENROUTER_API_KEY (a sim:* model needs none)")
        body["provider"] = provider
    return body


def summary_of(result: Mapping[str, Any], elapsed_s: float) -> Dict[str, Any]:
    """The harness's summary dict (what `--out` writes): `{model, n_queries, n_replays, temperature,
    elapsed_s, **stats}` in its key order; our additions to the result are left out."""
    return {
        "model": result["model"],
        "n_queries": result["n_queries"],
        "n_replays": result["n_replays"],
        "temperature": float(result["temperature"]),
        "elapsed_s": elapsed_s,
        "n_total": result["n_total"],
        "n_errors": result["n_errors"],
        "n_measurable": result["n_measurable"],
        "n_diverged": result["n_diverged"],
        "divergence_rate": result["divergence_rate"],
        "wilson_ci_95": list(result["wilson_ci_95"]),
        "per_query": [
            {
                k: q[k]
                for k in ("query_id", "n_total", "n_success", "diverged", "status", "n_unique_sequences")
                if k in q and (k != "n_unique_sequences" or q["status"] == "measurable")
            }
            for q in result["per_query"]
        ],
    }


def _elapsed(run: Mapping[str, Any]) -> float:
    def at(s: str) -> datetime:
        return datetime.fromisoformat(s.replace("Z", "+00:00"))

    if not run.get("finished_at"):
        return 0.0
    return round((at(run["finished_at"]) - at(run["created_at"])).total_seconds(), 2)


def _replays(client: Any, run: Mapping[str, Any]) -> List[Dict[str, Any]]:
    """The run's per-replay rows (the harness's `--runs-out` rows), grouped by query in suite order,
    each query's replays by run_idx."""
    rows = list(client.runs.export(run["id"]))
    order: List[str] = []
    for r in rows:
        if r["query_id"] not in order:
            order.append(r["query_id"])
    per_query = [q["query_id"] for q in run["result"]["per_query"]]
    order = [q for q in per_query if q in order] + sorted(q for q in order if q not in per_query)
    return sorted(rows, key=lambda r: (order.index(r["query_id"]), r.get("run_idx", 0)))


def _unique_sequences(rows: Iterable[Mapping[str, Any]]) -> int:
    # The harness's console key: (name, json.dumps(args or {}, sort_keys=True)) per call, ok replays only.
    keys: Set[Tuple[Tuple[Any, str], ...]] = set()
    for r in rows:
        if not r.get("error_category"):
            seq: List[Dict[str, Any]] = r.get("tool_call_sequence") or []
            keys.add(tuple((c.get("name"), json.dumps(c.get("args", {}), sort_keys=True)) for c in seq))
    return len(keys)


def _run(
    client: Any,
    body: Dict[str, Any],
    timeout_wait: Optional[float],
    on_start: Optional[Callable[[Mapping[str, Any]], None]] = None,
) -> Tuple[Dict[str, Any], List[Dict[str, Any]]]:
    created = client.chain_determinism.create(body)
    if on_start is not None:
        on_start(created)
    run = client.runs.wait(created["id"], timeout=timeout_wait)
    if run["status"] != "succeeded" or not run.get("result"):
        raise RuntimeError(f"run {run['id']} {run['status']}: {run.get('error')}")
    return run, _replays(client, run)


def eval(  # noqa: A001 - the harness's verb
    model: str,
    n_queries: int = 5,
    n_replays: int = 10,
    temperature: float = 0.0,
    concurrency: Optional[int] = None,
    base_url: Optional[str] = None,
    timeout: float = 60,
    out: Optional[str] = None,
    runs_out: Optional[str] = None,
    *,
    suite: str = "default",
    seed: Optional[int] = None,
    connection: Optional[str] = None,
    client: Optional["Client"] = None,
    wait_timeout: Optional[float] = None,
) -> Dict[str, Any]:
    """Replays each of the first `n_queries` queries `n_replays` times against `model` and returns the
    harness's summary: divergence_rate (None when no query is measurable), wilson_ci_95, the counts
    and per_query. `out` writes that summary as JSON, `runs_out` the per-replay rows as JSON Lines,
    as the harness's flags do. `suite`, `seed`, `connection` (a saved provider connection, instead of
    the environment's endpoint and key) and `client` are ours; `sim:*` models need no key."""
    from . import Client

    body = run_request(
        model=model, n_queries=n_queries, n_replays=n_replays, temperature=temperature,
        concurrency=concurrency, base_url=base_url, timeout=timeout, suite=suite, seed=seed,
        connection=connection,
    )  # fmt: skip
    c = client if client is not None else Client()
    run, rows = _run(c, body, wait_timeout)
    summary = summary_of(run["result"], _elapsed(run))
    _write(summary, rows, out, runs_out)
    return summary


def _write(summary: Mapping[str, Any], rows: Sequence[Mapping[str, Any]], out: Optional[str], runs_out: Optional[str]) -> None:
    if out:
        Path(out).parent.mkdir(parents=True, exist_ok=True)
        Path(out).write_text(json.dumps(summary, indent=2) + "\n", encoding="utf-8")
    if runs_out:
        Path(runs_out).parent.mkdir(parents=True, exist_ok=True)
        with open(runs_out, "w", encoding="utf-8") as f:
            for r in rows:
                f.write(json.dumps(r) + "\n")


# --- the command line: the harness's `eval` ---------------------------------------------------


def _header(run: Mapping[str, Any]) -> str:
    cfg = run["config"]

    def label(name: str) -> str:
        return f"    {name + ':':<13}"  # `total calls:` is the widest label

    return "\n".join(
        [
            "==> chain-determinism-harness eval (assay)",
            f"{label('model')}{cfg['model']}",
            f"{label('queries')}{cfg['n_queries']}  (suite {cfg['suite']['id']})",
            f"{label('replays')}{cfg['n_replays']} per query",
            f"{label('total calls')}{cfg['n_queries'] * cfg['n_replays']}",
            f"{label('run')}{run['id']}",
        ]
    )


def _query_blocks(rows: Sequence[Mapping[str, Any]]) -> str:
    groups: Dict[str, List[Mapping[str, Any]]] = {}
    for r in rows:
        groups.setdefault(r["query_id"], []).append(r)
    out = ""
    for i, (qid, rs) in enumerate(groups.items(), 1):
        ok = sum(1 for r in rs if not r.get("error_category"))
        out += f"\n  [{i}/{len(groups)}] {qid}\n      ok={ok}/{len(rs)}  unique_sequences={_unique_sequences(rs)}\n"
    return out


def main(argv: Optional[Sequence[str]] = None) -> int:
    """`python -m assay_client.chain_determinism eval --model X [the harness's flags]`."""
    import argparse

    from . import AssayError, Client

    parser = argparse.ArgumentParser(prog="python -m assay_client.chain_determinism", description="chain-determinism-harness on assay")
    sub = parser.add_subparsers(dest="command", required=True)
    p = sub.add_parser("eval", help="replay each query N times and report the chain-divergence rate")
    p.add_argument("--model", required=True, help="model identifier (required); sim:<name> is the server's simulator")
    p.add_argument("--n-queries", type=int, default=5, help="queries to use: the first N of the suite (default 5)")
    p.add_argument("--n-replays", type=int, default=10, help="replays per query (default 10)")
    p.add_argument("--temperature", type=float, default=0.0, help="sampling temperature (default 0.0)")
    p.add_argument("--concurrency", type=int, default=None, help="max replays in flight (default: the server adapts)")
    p.add_argument("--base-url", default=None, help="OpenAI-compatible API base URL (auto-detected if unset)")
    p.add_argument("--timeout", type=float, default=60, help="per-request timeout (default 60)")
    p.add_argument("--out", default=None, help="write summary JSON")
    p.add_argument("--runs-out", default=None, help="write per-replay JSONL")
    p.add_argument("--suite", default="default", help="a suite id of the server (default: default)")
    p.add_argument("--seed", type=int, default=None, help="sent as seed to the endpoint; seeds the simulator")
    p.add_argument("--connection", default=None, help="a saved provider connection of the server, instead of the env's key")
    a = parser.parse_args(argv)
    try:
        body = run_request(
            model=a.model, n_queries=a.n_queries, n_replays=a.n_replays, temperature=a.temperature,
            concurrency=a.concurrency, base_url=a.base_url, timeout=a.timeout, suite=a.suite, seed=a.seed,
            connection=a.connection,
        )  # fmt: skip
        c = Client()

        def started(run: Mapping[str, Any]) -> None:
            print(_header(run), flush=True)

        run, rows = _run(c, body, None, on_start=started)
    except ConfigError as e:
        print(f"error: {e}", file=sys.stderr)
        return 2  # the harness's exit for a missing key
    except (AssayError, RuntimeError, OSError) as e:
        print(f"error: {e}", file=sys.stderr)
        return 1
    # The server's summary_text is the harness's format_summary, byte for byte.
    sys.stdout.write(_query_blocks(rows) + run["result"]["summary_text"])
    _write(summary_of(run["result"], _elapsed(run)), rows, a.out, a.runs_out)
    return 0


if __name__ == "__main__":
    sys.exit(main())
