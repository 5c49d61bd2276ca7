"""RQEval / llm-reasoning-quality (`python main.py --config config.yaml`) with assay behind it.

For an RQEval user the change is the command: `python main.py --config config/config.yaml` becomes
`python -m assay_client.rqeval --config config/config.yaml`, and in Python::

    from assay_client import rqeval
    summary = rqeval.run("config/config.yaml")
    for model in summary["results"]:
        print(model["model"], model["raw_metrics"]["correctness"], model["aggregated"]["balanced"])

The config is the original's (`experiment`, `models`, `datasets`, `metrics`, `aggregation`,
`max_workers`), the keys our `assay rq run` reads. Keys per vendor come from the environment as RQEval
reads them (OPENAI_API_KEY, ANTHROPIC_API_KEY, GOOGLE_API_KEY, DEEPSEEK_API_KEY, OPENROUTER_API_KEY, or
the variable a model's `api_key_env` names; `params.connection` names a saved provider connection
instead); a model whose key is missing is skipped, as the original says. Each vendor's URL can be overridden: a model's `params.base_url`, else OPENAI_BASE_URL,
ANTHROPIC_BASE_URL, GEMINI_BASE_URL, DEEPSEEK_BASE_URL. All models and datasets become one
reasoning-quality run; the outputs folder is the original's (`<output_dir>/<name>_<unix time>/`:
summary.json, `<Model>_result.json`, reasoning_quality_results.xlsx, and radar_plot.svg).

Where this is not RQEval (the server decides these): every metric is computed on the server; LS uses
its lexical heuristic and SS Jaccard unless `metrics.ls` / `metrics.ss` name a model (no local NLI or
BERTScore model runs; that model's key is OPENAI_API_KEY or the block's `api_key_env`, and without one
the config is refused unless the block's `base_url` names an endpoint that takes none); the benchmarks (gsm8k, mmlu, strategyqa) are not downloaded: `params.path`
names a local file of their rows, which is uploaded; `type: local` models cannot run on a server
(serve them OpenAI-compatibly and use `type: openai` with `base_url`); model calls are retried and
cached by the server; the radar chart is SVG, not PNG.
"""

from __future__ import annotations

import json
import os
import sys
import time
from datetime import datetime
from pathlib import Path
from typing import TYPE_CHECKING, Any, Callable, Dict, List, Mapping, Optional, Sequence, Tuple, Union, cast

from ._model_keys import ConfigError, provider_from_env
from ._yaml import load_yaml

if TYPE_CHECKING:
    from .client import Client

__all__ = ["ConfigError", "Plan", "plan", "run", "main"]

# Where each model type is served OpenAI-compatibly, the variable overriding that URL, and its key variables.
ENDPOINTS: Dict[str, Tuple[str, str, Tuple[str, ...]]] = {
    "openai": ("https://api.openai.com/v1", "OPENAI_BASE_URL", ("OPENAI_API_KEY", "OPENROUTER_API_KEY")),
    "anthropic": ("https://api.anthropic.com/v1/", "ANTHROPIC_BASE_URL", ("ANTHROPIC_API_KEY",)),
    "gemini": ("https://generativelanguage.googleapis.com/v1beta/openai/", "GEMINI_BASE_URL", ("GOOGLE_API_KEY", "GEMINI_API_KEY")),
    "deepseek": ("https://api.deepseek.com/v1", "DEEPSEEK_BASE_URL", ("DEEPSEEK_API_KEY",)),
}  # fmt: skip
DATASET_TYPES = ("synthetic", "json", "csv", "gsm8k", "strategyqa", "mmlu", "uploaded")
ORIGINAL_MAX_TOKENS = 512  # the original's model builders
ORIGINAL_MOCK_ACCURACY = 0.8
BENCHMARK_SAMPLES = 250


class Plan:
    """A config read into one run: the request (datasets still to upload), the skipped models, notes."""

    def __init__(self, path: str, experiment: str, output_dir: str) -> None:
        self.path = path
        self.experiment = experiment
        self.output_dir = output_dir
        self.request: Dict[str, Any] = {}
        self.models: List[Dict[str, Any]] = []
        self.uploads: List[Tuple[int, Dict[str, Any]]] = []  # (index in request datasets, upload body)
        self.datasets: List[Dict[str, Any]] = []
        self.skipped: List[str] = []
        self.notes: List[str] = []


class _Reader:
    def __init__(self, path: str, env: Mapping[str, str]) -> None:
        self.path, self.env = path, env

    def fail(self, where: str, message: str) -> ConfigError:
        return ConfigError(f"{self.path}: {where}: {message}")

    def obj(self, v: Any, where: str) -> Dict[str, Any]:
        if v is None:
            return {}
        if not isinstance(v, dict):
            raise self.fail(where, "must be a mapping")
        return cast(Dict[str, Any], v)

    def num(self, v: Any, where: str, *, integer: bool = False, lo: Optional[float] = None, hi: Optional[float] = None) -> Optional[float]:
        if v is None:
            return None
        if isinstance(v, bool) or not isinstance(v, (int, float)):
            raise self.fail(where, f"must be a number, got {v!r}")
        if integer and int(v) != v:
            raise self.fail(where, f"must be an integer, got {v}")
        if lo is not None and v < lo:
            raise self.fail(where, f"must be at least {lo:g}, got {v}")
        if hi is not None and v > hi:
            raise self.fail(where, f"must be at most {hi:g}, got {v}")
        return int(v) if integer else v

    def file(self, p: str) -> Path:
        # Relative to the working directory, as the original's; else beside the config.
        if Path(p).is_absolute() or Path(p).exists():
            return Path(p)
        beside = Path(self.path).parent / p
        return beside if beside.exists() else Path(p)


def _model(r: _Reader, raw: Any, i: int, deterministic: bool) -> Optional[Dict[str, Any]]:
    """A model entry as the run's model, or None when its key is missing (the original skips it)."""
    m = r.obj(raw, f"models[{i}]")
    p = r.obj(m.get("params"), f"models[{i}].params")
    typ = str(m.get("type") or "mock")
    name = str(m.get("name") or p.get("model_id") or f"{typ}-{i + 1}")
    where = f"models[{i}] ({name})"
    timeout = r.num(p.get("timeout"), f"{where}.params.timeout", lo=1, hi=240)
    extra = {"timeout_s": timeout} if timeout else {}
    if typ == "local":
        raise r.fail(where, "type local (a HuggingFace model on this machine) cannot run on an assay server; serve it "
                     "OpenAI-compatibly (vLLM, llama.cpp, Ollama …) and use type: openai with params.base_url")  # fmt: skip
    if typ == "mock":
        sim = dict(r.obj(p.get("simulator"), f"{where}.params.simulator"))
        accuracy = r.num(p.get("accuracy_level", sim.get("accuracy")), f"{where}.params.accuracy_level", lo=0, hi=1)
        sim["accuracy"] = ORIGINAL_MOCK_ACCURACY if accuracy is None else accuracy
        return {"name": name, "model": "sim:mock", "simulator": sim, **extra}
    if typ not in ENDPOINTS:
        raise r.fail(where, f"unknown type '{typ}' (one of {', '.join([*ENDPOINTS, 'mock'])})")
    model_id = p.get("model_id")
    if not model_id:
        raise r.fail(where, "params.model_id is required")
    default_url, url_env, key_envs = ENDPOINTS[typ]
    if p.get("connection"):
        # Ours: a saved provider connection (its endpoint and key) instead of the environment's.
        provider: Dict[str, Any] = {"connection": str(p["connection"])}
        return {"name": name, "model": str(model_id), "provider": provider, **_sampling(r, p, where, deterministic), **extra}
    base_url = p.get("base_url")
    api_key_env = p.get("api_key_env") or m.get("api_key_env")
    if api_key_env and not r.env.get(api_key_env):
        return None  # the original: a model whose key is missing is skipped
    if typ == "openai":
        provider = provider_from_env(base_url=base_url, api_key_env=api_key_env, env=r.env)
    else:
        url = base_url or r.env.get(url_env) or default_url
        key = r.env.get(api_key_env) if api_key_env else next((r.env[k] for k in key_envs if r.env.get(k)), None)
        provider = {"base_url": url, "api_key": key} if key else {"base_url": url}
    if "api_key" not in provider and not base_url:
        return None
    return {"name": name, "model": str(model_id), "provider": provider, **_sampling(r, p, where, deterministic), **extra}


def _metric_provider(r: _Reader, where: str, model: str, base_url: Optional[str], api_key_env: Optional[str]) -> Dict[str, Any]:
    """The endpoint and key of `metrics.ls` / `metrics.ss` naming a model. As for the models: without a
    key only the block's own `base_url` (a local server may take none) makes a keyless provider; else
    the config is refused rather than the server sent to the vendor's URL without a key."""
    try:
        provider = provider_from_env(base_url=base_url, api_key_env=api_key_env, env=r.env)
    except ConfigError as e:
        raise r.fail(where, str(e)) from None
    if "api_key" not in provider and not base_url:
        raise r.fail(where, f"model {model} needs a key: set OPENAI_API_KEY (or OPENROUTER_API_KEY), name one with "
                     f"{where}.api_key_env, or point {where}.base_url at an endpoint that takes none")  # fmt: skip
    return provider


def _sampling(r: _Reader, p: Mapping[str, Any], where: str, deterministic: bool) -> Dict[str, Any]:
    """A model's max_tokens (the original's default 512) and temperature: an explicit temperature > 0
    wins; else `deterministic` (the original's default) means 0."""
    t = r.num(p.get("temperature"), f"{where}.params.temperature", lo=0, hi=2)
    temperature = t if t is not None and t > 0 else (0 if deterministic else t)
    max_tokens = r.num(p.get("max_tokens", p.get("max_new_tokens")), f"{where}.params.max_tokens", integer=True, lo=1, hi=32768)
    out: Dict[str, Any] = {"max_tokens": max_tokens or ORIGINAL_MAX_TOKENS}
    if temperature is not None:
        out["temperature"] = temperature
    return out


def _rows(path: Path) -> Any:
    text = path.read_text(encoding="utf-8")
    if path.suffix.lower() == ".jsonl":
        return [json.loads(line) for line in text.splitlines() if line.strip()]
    return json.loads(text)


def _dataset(r: _Reader, raw: Any, i: int) -> Tuple[Optional[Dict[str, Any]], Optional[Dict[str, Any]]]:
    """(a dataset ref of the run, or None) and (an upload body, or None) for one datasets entry."""
    d = r.obj(raw, f"datasets[{i}]")
    p = r.obj(d.get("params"), f"datasets[{i}].params")
    named = d.get("name")
    ds_id = p.get("id", d.get("id"))
    # The README's short form `{name: "gsm8k", params: {…}}` names the type by the name.
    typ = d.get("type") or ("uploaded" if ds_id else named if named in DATASET_TYPES else "synthetic")
    name = str(named or typ)
    where = f"datasets[{i}] ({name})"
    n = r.num(p.get("num_samples"), f"{where}.params.num_samples", integer=True, lo=1)
    seed = r.num(p.get("seed"), f"{where}.params.seed", integer=True, lo=0)
    seed = 42 if seed is None else seed
    if typ == "synthetic":
        syn: Dict[str, Any] = {"seed": seed}
        for k, dflt in (("num_reasoning", 20), ("num_adversarial", 10), ("num_robustness", 10)):
            v = r.num(p.get(k), f"{where}.params.{k}", integer=True, lo=0, hi=1000)
            syn[k] = dflt if v is None else v
        return {"synthetic": syn}, None
    if typ == "uploaded":
        if not ds_id:
            raise r.fail(where, "type uploaded needs params.id (a ds_… id of an uploaded dataset)")
        return ({"id": ds_id, "num_samples": n} if n else {"id": ds_id}), None
    if typ not in DATASET_TYPES:
        raise r.fail(where, f"unknown type '{typ}' (one of {', '.join(DATASET_TYPES)})")
    path = p.get("path")
    if not path:
        bench = typ in ("gsm8k", "strategyqa", "mmlu")
        raise r.fail(where, f"assay does not download {typ}: set params.path to a local file of its rows" if bench else "params.path is required")
    file = r.file(str(path))
    fmt = ("csv" if file.suffix.lower() == ".csv" else "json") if typ == "json" else typ
    body: Dict[str, Any] = {"name": name, "format": fmt, "seed": seed}
    try:
        if fmt == "csv":
            body["csv"] = file.read_text(encoding="utf-8")
            if p.get("perturbations_column"):
                body["perturbations_column"] = True
        elif fmt == "json":
            body["items"] = _rows(file)
        else:
            body["rows"] = _rows(file)
    except (OSError, ValueError) as e:
        raise r.fail(where, f"cannot read {file}: {e}") from None
    if n:
        body["num_samples"] = n
    elif fmt in ("gsm8k", "strategyqa", "mmlu"):
        rows: Any = body["rows"]
        lists = [cast(List[Any], rows)] if isinstance(rows, list) else list(cast(Dict[str, List[Any]], rows).values())
        total = sum(len(v) for v in lists)
        if total > BENCHMARK_SAMPLES:  # the original samples 250 unless told
            body["num_samples"] = BENCHMARK_SAMPLES
    return None, body


def plan(config: Union[str, "os.PathLike[str]", Mapping[str, Any]], env: Optional[Mapping[str, str]] = None) -> Plan:
    """Reads an RQEval config (a path to its YAML, or the parsed mapping) into a Plan; nothing is sent."""
    env = os.environ if env is None else env
    path = "config" if isinstance(config, Mapping) else str(config)
    raw: Any = config if isinstance(config, Mapping) else load_yaml(Path(config).read_text(encoding="utf-8"))
    r = _Reader(path, env)
    if not isinstance(raw, Mapping):
        raise r.fail("top level", "must be a mapping with experiment, models and datasets")
    data = cast(Mapping[str, Any], raw)
    exp = r.obj(data.get("experiment"), "experiment")
    metrics = r.obj(data.get("metrics"), "metrics")
    aggregation = r.obj(data.get("aggregation"), "aggregation")
    out = Plan(path, str(exp.get("name") or "exp"), str(exp.get("output_dir") or "outputs"))

    deterministic = exp.get("deterministic", True)
    models: Any = data.get("models")
    if not isinstance(models, list) or not models:
        raise r.fail("models", "must be a list of at least one model")
    for i, m in enumerate(cast(List[Any], models)):
        built = _model(r, m, i, deterministic is not False)
        if built is None:
            out.skipped.append(str(r.obj(m, f"models[{i}]").get("name") or f"models[{i}]"))
        else:
            out.models.append(built)
    if not out.models:
        raise r.fail("models", f"every model was skipped for a missing API key ({', '.join(out.skipped)})")
    datasets: Any = data.get("datasets")
    if not isinstance(datasets, list) or not datasets:
        raise r.fail("datasets", "must be a list of at least one dataset")
    for i, d in enumerate(cast(List[Any], datasets)):
        ref, upload = _dataset(r, d, i)
        if upload is not None:
            out.uploads.append((len(out.datasets), upload))
            out.datasets.append({})
        else:
            out.datasets.append(ref or {})

    k_runs = r.num(metrics.get("consistency_runs"), "metrics.consistency_runs", integer=True, lo=1, hi=10)
    p_runs = r.num(metrics.get("robustness_perturbations"), "metrics.robustness_perturbations", integer=True, lo=0, hi=10)
    k_runs = 3 if k_runs is None else k_runs
    stability = r.num(metrics.get("stability_runs"), "metrics.stability_runs", integer=True, lo=1)
    if stability is not None and stability != k_runs:
        raise r.fail("metrics.stability_runs", f"{stability} differs from consistency_runs {k_runs}; assay scores CS and SS over the same K runs")
    req: Dict[str, Any] = {"K": k_runs, "P": 3 if p_runs is None else p_runs, "strategies": r.obj(aggregation.get("strategies"), "aggregation.strategies")}
    for key, src in (("matcher", metrics.get("cq_matcher")), ("preset", aggregation.get("preset"))):
        if src:
            req[key] = src
    for key, method in (("ls", "model"), ("ss", "embeddings")):
        b: Any = metrics.get(key)
        if isinstance(b, dict):
            b = dict(cast(Dict[str, Any], b))
            base_url, api_key_env = b.pop("base_url", None), b.pop("api_key_env", None)
            b["method"] = method
            if not str(b.get("model", "")).startswith("sim:"):
                b["provider"] = _metric_provider(r, f"metrics.{key}", str(b.get("model", "")), base_url, api_key_env)
        if b is not None:
            req[key] = b
    if metrics.get("nli_model") and "ls" not in req:
        out.notes.append(f"metrics.nli_model ({metrics['nli_model']}) does not run here: LS uses the lexical heuristic")
    if metrics.get("bertscore_model") and "ss" not in req:
        out.notes.append(f"metrics.bertscore_model ({metrics['bertscore_model']}) does not run here: SS uses Jaccard")
    seed = r.num(exp.get("seed"), "experiment.seed", integer=True, lo=0, hi=2**31 - 1)
    if seed is not None:
        req["seed"] = seed
    workers = r.num(data.get("max_workers"), "max_workers", integer=True, lo=1)
    if workers is not None:
        req["concurrency"] = workers
    out.request = req
    return out


def _model_file(m: Mapping[str, Any], experiment_id: str) -> Dict[str, Any]:
    # The original's key order, then ours.
    first = ("raw_metrics", "aggregated", "per_dataset", "metadata")
    return {"model": m["model"], "experiment_id": experiment_id, **{k: m[k] for k in first if k in m},
            **{k: v for k, v in m.items() if k not in first and k != "model"}}  # fmt: skip


def run(
    config: Union[str, "os.PathLike[str]", Mapping[str, Any]],
    *,
    client: Optional["Client"] = None,
    out_dir: Optional[str] = None,
    timeout: Optional[float] = None,
    log: Optional[Callable[[str], None]] = None,
) -> Dict[str, Any]:
    """Evaluates the config's models on its datasets as one reasoning-quality run, writes the
    original's outputs folder and returns its summary.json: experiment_id, timestamp,
    duration_seconds, num_models, results (one per model: raw_metrics with correctness, consistency,
    robustness, logical_coherence, efficiency, stability; aggregated Q per strategy; per_dataset;
    metadata), then ours: run_id, rankings, strategies, skipped_models. A run that does not succeed
    raises RuntimeError naming it; the server's refusals raise AssayError naming the field."""
    from . import Client


    def say(line: str) -> None:
        if log is not None:
            log(line)
        else:
            print(line, file=sys.stderr)

    p = plan(config)
    for name in p.skipped:
        say(f"  SKIP {name}: its API key is not set")
    for note in p.notes:
        say(f"  note: {note}")
    c: Any = client if client is not None else Client()  # its answers are read as plain dicts here
    datasets = list(p.datasets)
    for index, body in p.uploads:
        ds = c.reasoning_quality.datasets.upload(body)
        datasets[index] = {"id": ds["id"]}
        say(f"  OK {body['name']:<20} [{body['format']}] -- {ds['n_items']:>5} items (uploaded as {ds['id']})")
    created: Any = c.reasoning_quality.create({**p.request, "models": p.models, "datasets": datasets})
    say(f"Total items     : {created['config'].get('n_items')}")
    final: Any = c.runs.wait(created["id"], timeout=timeout)
    if final["status"] != "succeeded" or not final.get("result"):
        raise RuntimeError(f"run {final['id']} {final['status']}: {final.get('error')}")
    return _write_outputs(c, final, out_dir or p.output_dir, f"{p.experiment.replace('/', '_')}_{int(time.time())}", p.skipped)


def _write_outputs(c: Any, run: Mapping[str, Any], output_dir: str, experiment_id: str, skipped: List[str]) -> Dict[str, Any]:
    result = run["result"]
    folder = Path(output_dir) / experiment_id
    folder.mkdir(parents=True, exist_ok=True)
    results = [_model_file(m, experiment_id) for m in result["models"]]

    def at(s: str) -> datetime:
        return datetime.fromisoformat(s.replace("Z", "+00:00"))

    started = run.get("started_at") or run["created_at"]
    duration = round((at(run["finished_at"]) - at(started)).total_seconds(), 2) if run.get("finished_at") else None
    summary = {
        "experiment_id": experiment_id,
        "timestamp": time.strftime("%Y-%m-%dT%H:%M:%S"),
        "duration_seconds": duration,
        "num_models": len(results),
        "results": results,
        "run_id": run["id"],
        "rankings": result["rankings"],
        "strategies": result["strategies"],
        "skipped_models": skipped,
    }
    for m in results:
        name = m["model"].replace("/", "_").replace("\\", "_")
        (folder / f"{name}_result.json").write_text(json.dumps(m, indent=2) + "\n", encoding="utf-8")
    c.runs.report(run["id"], "xlsx", folder / "reasoning_quality_results.xlsx")
    (folder / "summary.json").write_text(json.dumps(summary, indent=2) + "\n", encoding="utf-8")
    c.runs.report(run["id"], "svg", folder / "radar_plot.svg")
    return summary


def _table(results: Sequence[Mapping[str, Any]]) -> str:
    """The original's closing table (main.py): one row per model, the six metrics and Q under balanced."""

    def f(x: Any) -> str:
        return f"{x:.3f}" if isinstance(x, (int, float)) else "  n/a"

    keys = ("correctness", "consistency", "robustness", "logical_coherence", "efficiency", "stability")
    head = f" {'Model':<24} {' '.join(h.rjust(6) for h in ('CQ', 'CS', 'RS', 'LS', 'ES', 'SS'))}  {'Balanced':>8}"
    rows = [f" {m['model']:<24} {'  '.join(f(m['raw_metrics'].get(k)) for k in keys)}   {f(m['aggregated'].get('balanced'))}" for m in results]
    return "\n".join(["", "=" * 84, head, "-" * 84, *rows, "=" * 84,
                      "  CQ=Correctness . CS=Consistency . RS=Robustness",
                      "  LS=Logical Coherence . ES=Efficiency . SS=Stability", ""]) + "\n"  # fmt: skip


def main(argv: Optional[Sequence[str]] = None) -> int:
    """`python -m assay_client.rqeval --config config.yaml` (the original's `python main.py --config …`)."""
    import argparse

    from . import AssayError

    parser = argparse.ArgumentParser(prog="python -m assay_client.rqeval", description="LLM reasoning-quality evaluation on assay")
    parser.add_argument("--config", default="config/config.yaml", help="the YAML config (default config/config.yaml)")
    parser.add_argument("--out-dir", default=None, help="where the run's folder goes (default experiment.output_dir)")
    a = parser.parse_args(argv)
    try:
        summary = run(a.config, out_dir=a.out_dir)
    except (ConfigError, AssayError, RuntimeError, OSError) as e:
        print(f"error: {e}", file=sys.stderr)
        return 1
    sys.stdout.write(_table(summary["results"]))
    folder = Path(a.out_dir or plan(a.config).output_dir) / summary["experiment_id"]
    print(f"  Excel   -> {folder / 'reasoning_quality_results.xlsx'}\n  Radar   -> {folder / 'radar_plot.svg'}\n  Results -> {folder}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
