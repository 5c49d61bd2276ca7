"""Heretix's RPL harness (`heretix run --config run.yaml`) with assay behind it.

For a Heretix user the change is one line: `heretix run --config X --out Y` becomes
`python -m assay_client.heretix run --config X --out Y`, and in Python::

    from assay_client import heretix
    result = heretix.run("runs/rpl_example.yaml")
    print(result["aggregates"]["prob_true_rpl"], result["aggregates"]["ci95"])

The config keys are Heretix's RunConfig (claim, model, prompt_version, K, R, T, B, seed,
max_output_tokens, no_cache), plus `base_url` / `api_key_env` for another OpenAI-compatible endpoint.
`connection` names a saved provider connection (`POST /v1/providers`) instead.
The environment is Heretix's: OPENAI_API_KEY (or OPENROUTER_API_KEY), OPENAI_BASE_URL,
HERETIX_RPL_SEED (the bootstrap seed when the config has none) and HERETIX_RPL_NO_CACHE.

Where this is not Heretix (the server decides these, not this module):

- the sampling, the estimator, the bootstrap seed and the sample cache run on the server, which
  reproduces Heretix's numbers for the same samples; the cache is the server's (per tenant), not
  runs/heretix.sqlite, and retries of model calls are the server's;
- the model is called through its OpenAI-compatible chat endpoint, not OpenAI's Responses API;
- `prompt_version` names a prompt bank: the server's own (`rpl-assay-v1`), a pushed one
  (`name@version`), or, as Heretix reads `heretix/prompts/<version>.yaml`, a Heretix prompt YAML that
  this module finds there (or in HERETIX_PROMPTS_DIR, or beside the config) and pushes first
  (`POST /v1/prompts`; pushing the same file again is a no-op);
- nothing is written to SQLite; the run and its samples stay on the server (`result["execution_id"]`
  is the run's id there).
"""

from __future__ import annotations

import json
import os
import sys
from pathlib import Path
from typing import TYPE_CHECKING, Any, Callable, Dict, List, Mapping, Optional, Sequence, Union, cast

from ._model_keys import ConfigError, provider_from_env
from ._yaml import load_yaml

if TYPE_CHECKING:
    from .client import Client

__all__ = ["ConfigError", "DEFAULT_MODEL", "load_config", "request_body", "run", "run_versions", "main"]

#: Heretix's RunConfig keys, passed to the API as they are.
HERETIX_KEYS = ("claim", "model", "prompt_version", "K", "R", "T", "B", "seed", "max_output_tokens", "no_cache")
#: Ours, beside Heretix's: the endpoint and key (as the other tools' configs), run knobs.
ASSAY_KEYS = ("base_url", "api_key_env", "connection", "preset", "concurrency", "timeout_s", "simulator")
#: Heretix keys with no counterpart in the API: (is it an error, why).
UNSUPPORTED = {
    "max_prompt_chars": (False, "ignored: the server applies its own prompt cap"),
    "prompts_file": (True, "not read here: name the bank in prompt_version (a Heretix prompt YAML is pushed for you)"),
    "claims_file": (True, "not supported (a batch of claims): write one config per claim"),
}
#: Heretix's default model (its RunConfig), when the config names none.
DEFAULT_MODEL = "gpt-5"

Config = Union[str, "os.PathLike[str]", Mapping[str, Any]]


def load_config(config: Config) -> Dict[str, Any]:
    """Heretix's run config as a dict: a path to YAML (or JSON, by its .json suffix) or a mapping.

    An unknown key is a ConfigError naming it, as Heretix's dataclass refuses one."""
    if isinstance(config, Mapping):
        data: Any = dict(config)
        where = "config"
    else:
        where = str(config)
        text = Path(config).read_text(encoding="utf-8")
        data = json.loads(text) if where.lower().endswith(".json") else load_yaml(text)
    if not isinstance(data, dict):
        raise ConfigError(f"{where}: expected a mapping of settings (claim, model, K, R, …), got {type(data).__name__}")
    data = cast(Dict[str, Any], data)
    known = set(HERETIX_KEYS) | set(ASSAY_KEYS)
    for key in list(data):
        if key in UNSUPPORTED:
            error, why = UNSUPPORTED[key]
            if error:
                raise ConfigError(f"{where}: {key} is {why}")
            print(f"heretix: warning: {where}: {key} is {why}", file=sys.stderr)
            del data[key]
        elif key not in known:
            raise ConfigError(f"{where}: unknown key '{key}' (known: {', '.join(sorted(known))})")
    if data.get("model") is None:
        data["model"] = DEFAULT_MODEL
    return data


def request_body(cfg: Mapping[str, Any], env: Optional[Mapping[str, str]] = None) -> Dict[str, Any]:
    """The POST /v1/rpl/runs body: the config, then Heretix's environment (HERETIX_RPL_SEED when the
    config has no seed, HERETIX_RPL_NO_CACHE), and for a model that is not `sim:*` the endpoint and
    key (`base_url` / `api_key_env` in the config choose them)."""
    env = os.environ if env is None else env
    body = {k: v for k, v in cfg.items() if k not in ("base_url", "api_key_env", "connection")}
    if body.get("seed") is None:
        body.pop("seed", None)
        raw = env.get("HERETIX_RPL_SEED")
        # Heretix ignores a seed that is not an integer; we say so.
        if raw is not None and raw.strip().isdigit():
            body["seed"] = raw.strip()
        elif raw is not None:
            print(f"heretix: warning: HERETIX_RPL_SEED is not a non-negative integer ({raw!r}); ignored", file=sys.stderr)
    elif isinstance(body["seed"], int) and not isinstance(body["seed"], bool):
        body["seed"] = str(body["seed"])  # a 64-bit seed travels as a decimal string
    if env.get("HERETIX_RPL_NO_CACHE"):
        body["no_cache"] = True
    if body.get("T") is None:
        body.pop("T", None)
    model = str(body["model"])
    if cfg.get("connection") and not model.startswith("sim:"):
        body["provider"] = {"connection": str(cfg["connection"])}  # a saved connection: its endpoint and key
    elif not model.startswith("sim:"):
        base_url = cfg.get("base_url")
        provider = provider_from_env(base_url=base_url, api_key_env=cfg.get("api_key_env"), env=env)
        # As Heretix: a live run needs a key, unless an endpoint was chosen (a local server may take none).
        if "api_key" not in provider and not base_url and not env.get("OPENAI_BASE_URL"):
            raise ConfigError(f"OPENAI_API_KEY not set (required for live runs with model {model}; a sim:* model needs none)")
        body["provider"] = provider
    return body


def _prompt_dirs(config: Config, env: Mapping[str, str]) -> List[Path]:
    dirs = [Path(env["HERETIX_PROMPTS_DIR"])] if env.get("HERETIX_PROMPTS_DIR") else []
    dirs.append(Path("heretix") / "prompts")  # where Heretix keeps its banks, from its checkout
    if not isinstance(config, Mapping):
        here = Path(config).parent
        dirs += [here / "prompts", here]
    return dirs


def _resolve_versions(client: Any, versions: Sequence[str], config: Config, env: Mapping[str, str]) -> List[str]:
    """Each prompt version as the API names it: a Heretix prompt YAML found locally is pushed (its
    `version` is the bank's full version string, as Heretix hashes it) and named `name@version`."""
    out: List[str] = []
    for v in versions:
        found = None if "@" in v else next((d / f"{v}.yaml" for d in _prompt_dirs(config, env) if (d / f"{v}.yaml").is_file()), None)
        if found is None:
            out.append(v)  # ours, or already name@version; the server says if it knows none
            continue
        bank = load_yaml(found.read_text(encoding="utf-8"))
        if not isinstance(bank, dict) or "version" not in bank:
            raise ConfigError(f"{found}: a Heretix prompt YAML needs version, system, user_template, paraphrases")
        bank = cast(Dict[str, Any], bank)
        fields = {k: bank[k] for k in ("system", "user_template", "paraphrases", "schema", "description") if k in bank}
        pushed = client.prompts.create({"kind": "rpl", "name": v, "version": str(bank["version"]), **fields})
        out.append(str(pushed["ref"]))
    return out


def run_versions(
    config: Config,
    *,
    client: Optional["Client"] = None,
    claim: Optional[str] = None,
    model: Optional[str] = None,
    prompt_version: Union[str, Sequence[str], None] = None,
    timeout: Optional[float] = None,
    on_start: Optional[Callable[[Dict[str, Any]], None]] = None,
) -> List[Dict[str, Any]]:
    """Runs the config, one run per prompt version (Heretix's A/B), and returns each version's result
    in Heretix's output shape (`run_id`, `sampling`, `aggregation`, `aggregates`, …) plus
    `execution_id`, the server's run id. Keyword arguments override the config, as Heretix's flags.
    A run that does not succeed raises RuntimeError naming it and the server's error."""
    from . import Client  # here, not at import: `python -m assay_client.heretix --help` needs no client

    env = os.environ
    cfg = load_config(config)
    if claim is not None:
        cfg["claim"] = claim
    if model is not None:
        cfg["model"] = model
    if prompt_version is not None:
        cfg["prompt_version"] = prompt_version
    body = request_body(cfg, env)
    c: Any = client if client is not None else Client()  # its answers are read as plain dicts here
    versions = body.get("prompt_version")
    if versions is not None:
        listed = [versions] if isinstance(versions, str) else list(versions)
        resolved = _resolve_versions(c, listed, config, env)
        body["prompt_version"] = resolved[0] if isinstance(versions, str) else resolved
    # A list of versions makes a group (one run per version); one version, the run itself.
    if isinstance(body.get("prompt_version"), list):
        runs: List[Any] = list(c.rpl.create_group(body)["runs"])
    else:
        runs = [c.rpl.create(body)]
    results: List[Dict[str, Any]] = []
    for r in runs:
        if on_start is not None:
            on_start(r)
        final: Any = c.runs.wait(r["id"], timeout=timeout)
        if final["status"] != "succeeded" or not final.get("result"):
            raise RuntimeError(f"run {final['id']} (version {final['config'].get('prompt_version')}) {final['status']}: {final.get('error')}")
        results.append({"execution_id": final["id"], **final["result"]})
    return results


def run(config: Config, **overrides: Any) -> Dict[str, Any]:
    """Runs a Heretix config with one prompt version and returns its result, as Heretix's
    `run_single_version` does: `aggregates` holds prob_true_rpl, ci95, ci_width, stability_score,
    stability_band, rpl_compliance_rate and cache_hit_rate; `aggregation` the estimator's meta (method,
    B, center, trim, bootstrap_seed, n_templates, counts_by_template, imbalance_ratio,
    template_iqr_logit). Takes run_versions' keyword arguments; several versions: use run_versions."""
    results = run_versions(config, **overrides)
    if len(results) != 1:
        raise ConfigError(f"the config names {len(results)} prompt versions: use heretix.run_versions for an A/B run")
    return results[0]


# --- the command line: Heretix's `run` --------------------------------------------------------


def _row(r: Mapping[str, Any]) -> str:
    a = r["aggregates"]
    return (
        f"v={r['prompt_version']}  p={a['prob_true_rpl']:.3f}  CI95=[{a['ci95'][0]:.3f},{a['ci95'][1]:.3f}]  "
        f"width={a['ci_width']:.3f}  stab={a['stability_score']:.3f}  "
        f"compl={a['rpl_compliance_rate']:.2f}  cache={a['cache_hit_rate']:.2f}"
    )


def main(argv: Optional[Sequence[str]] = None) -> int:
    """`python -m assay_client.heretix run --config X [--out Y] [--prompt-version V ...]`."""
    import argparse

    from . import AssayError

    parser = argparse.ArgumentParser(prog="python -m assay_client.heretix", description="Heretix's RPL harness on assay")
    sub = parser.add_subparsers(dest="command", required=True)
    p = sub.add_parser("run", help="run a config and print one row per prompt version")
    p.add_argument("--config", required=True, help="Heretix run config (YAML, or JSON by its suffix)")
    p.add_argument("--out", help='write {"runs": [one result per version]} as JSON')
    p.add_argument("--prompt-version", action="append", help="prompt version(s), overriding the config; repeatable")
    args = parser.parse_args(argv)

    versions = args.prompt_version

    def started(run: Mapping[str, Any]) -> None:
        c = run["config"]
        print(f"Running {c['model']}  K={c['K']} R={c['R']}  version={c['prompt_version']}", flush=True)

    try:
        results = run_versions(
            args.config,
            prompt_version=(versions[0] if versions and len(versions) == 1 else versions),
            on_start=started,
        )
    except (ConfigError, AssayError, RuntimeError, OSError) as e:
        print(f"heretix: error: {e}", file=sys.stderr)
        return 1
    for r in results:
        print(_row(r))
    if args.out:
        Path(args.out).parent.mkdir(parents=True, exist_ok=True)
        Path(args.out).write_text(json.dumps({"runs": results}, indent=2) + "\n", encoding="utf-8")
        print(f"Wrote {args.out}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
