"""cross-judge's call shape on assay: change ``from cross_judge import …`` to ``from assay_client.cross_judge import …``.

cross-judge (PyPI ``cross-judge`` 0.1.0) calls each critic's model from your process and votes
locally. Here :class:`Critic` and :class:`Ensemble` keep its keyword arguments, but every
``Ensemble.judge`` is one assay judge run (``POST /v1/judge/runs``, then waited on): the server calls
the models, parses the verdicts, votes and measures agreement, and the answer is read back into the
library's shapes (``.consensus``, ``.agreement_pct``, ``.krippendorff_alpha``, ``.verdicts`` with
``critic_id``, ``kind``, ``confidence``, ``reasoning``, …). :meth:`Ensemble.judge_batch` judges many
items in ONE run and adds the batch statistics the library does not have.

Keys and endpoints, per critic:

- ``api_key=``, else the vendor's environment variable as cross-judge reads it (``DEEPSEEK_API_KEY``,
  ``OPENAI_API_KEY``, ``OPENROUTER_API_KEY``, and ``TOGETHER_API_KEY`` for assay's extra ``together``
  preset). The key travels to assay only as the critic's ``provider.api_key``: the server encrypts it
  for the life of the run and never returns it.
- ``base_url=``, else ``<VENDOR>_BASE_URL`` from the environment (``DEEPSEEK_BASE_URL``,
  ``OPENAI_BASE_URL``, ``OPENROUTER_BASE_URL``, ``TOGETHER_BASE_URL``), else the server's preset for
  the vendor. A vendor without a preset needs ``base_url``, as in cross-judge.
- ``connection=`` names a connection saved on assay (``POST /v1/providers``) instead: no key leaves
  your machine.
- ``model="sim:…"`` is assay's simulator: no endpoint, no key.

Where this cannot be exact (the server decides what the library decided locally):

- Retries: the server retries a failed model call (up to 3 tries, honouring ``Retry-After``); the
  library never retried. A call that still fails is an ``ERROR`` verdict, an answer without JSON a
  ``PARSE_FAIL`` verdict, as in the library.
- Labels: the server counts only labels of the run's vocabulary (``labels=``, default KEEP, REJECT,
  SPLIT, MERGE, UNCLEAR) as votes; any other label keeps its ``kind`` but gets the error
  ``off_vocabulary: …`` and is excluded like an error. The library counted any string as a vote.
- ``krippendorff_alpha`` per item is the library's value (1 when the valid verdicts agree, 0 when two
  differ, None with fewer than two) but exact, without the library's ``1.1e-16`` float noise. The
  server's parser differs from the library's in four deliberate fixes (docs/evaluators/judge.md).
- ``voting`` must be one of the server's strategies (``majority``, ``unanimous``, ``weighted``,
  ``first_disagreement``); a custom callable cannot run on the server and raises ``TypeError``.
- A missing key raises ``ValueError`` naming the environment variable before anything is sent (the
  library returned an ``ERROR`` verdict for that critic). ``http_client`` is accepted and unused: the
  server makes the calls. ``aggregate_verdicts`` (voting on verdicts you collected) is not offered.
"""

from __future__ import annotations

import os
from dataclasses import dataclass, field
from typing import Any, Callable, Dict, Iterable, Iterator, List, Mapping, Optional, Sequence, Union, cast

from . import Client

__all__ = ["Critic", "Ensemble", "Verdict", "EnsembleVerdict", "BatchResult", "JudgeRunError"]

# cross-judge's defaults for a Critic (its core.py), sent as the critic's own prompt so that a critic
# written for the library asks the same question here (the server's own default is another prompt).
DEFAULT_PROMPT_TEMPLATE = (
    "Judge the following query:\n{query}\n\nOutput JSON with kind (KEEP/REJECT/SPLIT/MERGE), confidence (0-1), reasoning."
)
DEFAULT_SYSTEM_PROMPT = "You are a careful judge. Output strict JSON only."
# from_yaml_prompt's default when the file has no system_prompt (it differs from the Critic default).
YAML_DEFAULT_SYSTEM_PROMPT = "You are a careful judge."

# The vendors the server has presets for, and the environment variable each one's key is read from
# (cross-judge's names; `together` is assay's addition). The base URLs are the server's business.
VENDOR_KEY_ENV: Dict[str, str] = {
    "deepseek": "DEEPSEEK_API_KEY",
    "openai": "OPENAI_API_KEY",
    "openrouter": "OPENROUTER_API_KEY",
    "together": "TOGETHER_API_KEY",
}

# The server's voting strategies (it checks each one's options and answers 400 naming a wrong one).
VOTING_STRATEGIES = ("majority", "unanimous", "weighted", "first_disagreement")


def vendor_base_url_env(vendor: str) -> str:
    """The environment variable that overrides ``vendor``'s base URL, e.g. ``OPENROUTER_BASE_URL``."""
    return f"{vendor.upper()}_BASE_URL"


@dataclass
class Critic:
    """One judge of the panel, with cross-judge's keyword arguments.

    assay's additions: ``connection`` (a saved provider connection instead of key and URL), ``prompt``
    (a prompt of assay's bank or one you pushed, ``"name@version"``, instead of ``system_prompt`` /
    ``prompt_template``) and ``simulator`` (knobs for a ``sim:*`` model). ``http_client`` is unused.
    """

    name: str
    model: str
    prompt_template: str = DEFAULT_PROMPT_TEMPLATE
    vendor: str = "deepseek"
    system_prompt: str = DEFAULT_SYSTEM_PROMPT
    temperature: float = 0.0
    max_tokens: int = 2000
    api_key: Optional[str] = field(default=None, repr=False)
    base_url: Optional[str] = None
    http_client: Any = field(default=None, repr=False, compare=False)
    timeout: float = 60.0
    connection: Optional[str] = None
    prompt: Optional[str] = None
    simulator: Optional[Dict[str, Any]] = None

    @classmethod
    def from_yaml_prompt(cls, name: str, model: str, yaml_path: str, **kwargs: Any) -> Critic:
        """A critic whose prompts come from a YAML file (``system_prompt``, ``user_prompt_template``).

        As cross-judge: a missing ``system_prompt`` is ``"You are a careful judge."``, a missing
        template is ``""``, and ``version`` is not read (pin by file name or git tag). An empty
        template is refused by the server (the library sent an empty user message).
        """
        from ._yaml import load_yaml

        with open(yaml_path, encoding="utf-8") as f:
            loaded: Any = load_yaml(f.read()) or {}
        if not isinstance(loaded, dict):
            raise ValueError(f"{yaml_path}: expected a mapping with system_prompt and user_prompt_template")
        doc = cast(Dict[str, Any], loaded)
        return cls(
            name=name,
            model=model,
            system_prompt=str(doc.get("system_prompt", YAML_DEFAULT_SYSTEM_PROMPT)),
            prompt_template=str(doc.get("user_prompt_template", "")),
            **kwargs,
        )

    def to_request(self, weight: float = 1.0) -> Dict[str, Any]:
        """This critic as an entry of ``JudgeRunRequest.critics``; raises ``ValueError`` for a missing key."""
        critic: Dict[str, Any] = {
            "name": self.name,
            "model": self.model,
            "temperature": self.temperature,
            "max_tokens": self.max_tokens,
            "timeout_s": self.timeout,
            "weight": weight,
        }
        if self.prompt is not None:
            critic["prompt"] = self.prompt
        else:
            critic["system_prompt"] = self.system_prompt
            critic["prompt_template"] = self.prompt_template
        if self.simulator is not None:
            critic["simulator"] = self.simulator
        if self.model.startswith("sim:"):
            return critic
        if self.connection is not None:
            critic["provider"] = {"connection": self.connection}
            return critic
        provider: Dict[str, Any] = {}
        if self.vendor in VENDOR_KEY_ENV:
            env = VENDOR_KEY_ENV[self.vendor]
            key = self.api_key or os.environ.get(env)
            if not key:
                raise ValueError(f"Critic {self.name!r}: no API key: pass api_key= or set {env}")
            base_url = self.base_url or os.environ.get(vendor_base_url_env(self.vendor))
            critic["vendor"] = self.vendor
            provider["api_key"] = key
            if base_url:
                provider["base_url"] = base_url
        else:
            if not self.base_url:
                raise ValueError(
                    f"unknown vendor {self.vendor!r}. Pass base_url explicitly for custom vendors."
                )
            provider["base_url"] = self.base_url
            if self.api_key:
                provider["api_key"] = self.api_key
        critic["provider"] = provider
        return critic


@dataclass
class Verdict:
    """One critic's verdict on one item, as cross-judge's ``Verdict`` (read from the run's samples)."""

    kind: str
    confidence: float = 0.0
    reasoning: str = ""
    critic_id: str = ""
    raw_response: Optional[str] = None
    error: Optional[str] = None
    elapsed_s: float = 0.0
    prompt: Optional[Dict[str, Any]] = None  # assay: the prompt's name, version and sha256

    # cross-judge's read-only legacy names.
    @property
    def verdict(self) -> str:
        return self.kind

    @property
    def rationale(self) -> str:
        return self.reasoning

    @property
    def reviewer_id(self) -> str:
        return self.critic_id


@dataclass
class EnsembleVerdict:
    """The panel's answer on one item, as cross-judge's ``EnsembleVerdict``, plus the assay run's id."""

    query_id: str
    verdicts: List[Verdict]
    consensus: str
    avg_confidence: float
    disagreement: bool
    agreement_pct: float
    krippendorff_alpha: Optional[float]
    voting: str
    meta: Dict[str, Any] = field(default_factory=lambda: cast(Dict[str, Any], {}))
    run_id: str = ""
    contested: List[str] = field(default_factory=lambda: cast(List[str], []))  # assay: why the item is in the review queue

    def to_dict(self) -> Dict[str, Any]:
        """A plain dict of every field (verdicts as dicts), like the library's ``model_dump()``."""
        out = dict(self.__dict__)
        out["verdicts"] = [dict(v.__dict__) for v in self.verdicts]
        return out


@dataclass
class BatchResult:
    """The answers of :meth:`Ensemble.judge_batch`: one per item, in order, from ONE run.

    Iterating, ``len()`` and indexing go over ``results``. ``krippendorff_alpha`` is the batch's
    nominal alpha over the whole items × critics matrix (None where undefined), which the library
    does not compute; ``run`` is the whole assay run, ``result`` its result (per-critic agreement,
    pairwise table, patterns, …).
    """

    results: List[EnsembleVerdict]
    krippendorff_alpha: Optional[float]
    run: Dict[str, Any]
    result: Dict[str, Any]

    @property
    def run_id(self) -> str:
        return str(self.run["id"])

    def __iter__(self) -> Iterator[EnsembleVerdict]:
        return iter(self.results)

    def __len__(self) -> int:
        return len(self.results)

    def __getitem__(self, i: int) -> EnsembleVerdict:
        return self.results[i]


class JudgeRunError(RuntimeError):
    """The judge run ended without succeeding (failed or canceled); ``run`` is the final run."""

    def __init__(self, run: Mapping[str, Any]) -> None:
        self.run = dict(run)
        super().__init__(f"judge run {run.get('id')} {run.get('status')}: {run.get('error') or 'no result'}")


ItemLike = Union[str, Mapping[str, Any]]


class Ensemble:
    """A panel of critics and a voting rule, as cross-judge's ``Ensemble``.

    ``voting``: ``"majority"`` (``voting_kwargs`` ``priority``, ``fallback``), ``"unanimous"``
    (``fallback``), ``"weighted"`` (``weights`` by critic name, ``use_confidence``, ``fallback``) or
    ``"first_disagreement"`` (``disagree_label``, ``fallback``); names are case-insensitive and echoed
    as given. assay's additions: ``labels`` (the vocabulary counted as votes), ``contested_threshold``,
    ``client`` (default: one from ``ASSAY_URL`` / ``ASSAY_API_KEY``) and ``timeout`` (seconds to wait
    for a run, default no limit).
    """

    def __init__(
        self,
        critics: Sequence[Critic],
        voting: Union[str, Callable[..., Any]] = "majority",
        voting_kwargs: Optional[Mapping[str, Any]] = None,
        *,
        labels: Optional[Sequence[str]] = None,
        contested_threshold: Optional[float] = None,
        client: Optional[Client] = None,
        timeout: Optional[float] = None,
    ) -> None:
        if callable(voting):
            raise TypeError(
                "custom voting callables ran locally in cross-judge; assay votes on the server: "
                f"use one of {', '.join(VOTING_STRATEGIES)}"
            )
        kwargs = dict(voting_kwargs or {})
        self.critics = list(critics)
        self.voting: str = voting
        self.voting_kwargs = kwargs
        self.labels = list(labels) if labels is not None else None
        self.contested_threshold = contested_threshold
        self.client = client
        self.timeout = timeout
        # Names are case-insensitive as in cross-judge; the server refuses unknown ones (AssayError 400).
        self._strategy = voting.lower()

    def request(self, items: List[Dict[str, Any]]) -> Dict[str, Any]:
        """The ``JudgeRunRequest`` for these items (``{id, query, context}`` each)."""
        # weighted's `weights` (by critic name) are the critics' `weight` fields on the server; every
        # other option goes as is (a strategy's wrong option is the server's 400, naming it).
        weighted = self._strategy == "weighted"
        weights: Mapping[str, float] = (self.voting_kwargs.get("weights") or {}) if weighted else {}
        voting: Dict[str, Any] = {"strategy": self._strategy}
        for k, v in self.voting_kwargs.items():
            if v is not None and not (weighted and k == "weights"):
                voting[k] = list(v) if k == "priority" else v
        body: Dict[str, Any] = {
            "items": items,
            "critics": [c.to_request(float(weights.get(c.name, 1.0))) for c in self.critics],
            "voting": voting,
        }
        if self.labels is not None:
            body["labels"] = self.labels
        if self.contested_threshold is not None:
            body["contested_threshold"] = self.contested_threshold
        return body

    def judge(
        self,
        query: str,
        query_id: Optional[str] = None,
        context: Optional[Mapping[str, Any]] = None,
        meta: Optional[Mapping[str, Any]] = None,
        **more_context: Any,
    ) -> EnsembleVerdict:
        """Every critic judges ``query``: one assay run, created and waited on.

        ``query_id`` defaults to the first 80 characters of ``query``, as in cross-judge; ``context``
        (and any other keyword) fills the templates' other placeholders, and a ``query`` key in it
        wins over the argument, as in cross-judge. ``meta`` is passed through to the answer.
        """
        item: Dict[str, Any] = {"query": query, "query_id": query_id, "context": {**(context or {}), **more_context}}
        if meta is not None:
            item["meta"] = meta
        return self.judge_batch([item]).results[0]

    def judge_batch(self, items: Iterable[ItemLike]) -> BatchResult:
        """Judges many items in ONE assay run; the answers come back in the items' order.

        Each item is a query string or a dict with ``query`` and optionally ``query_id`` (or ``id``),
        ``context``, ``meta`` and ``expected`` (a known label: the run then reports its accuracy).
        Item ids must be unique (a query string's id is its first 80 characters).
        """
        entries: List[Dict[str, Any]] = []
        metas: List[Dict[str, Any]] = []
        for raw in items:
            it: Dict[str, Any] = {"query": raw} if isinstance(raw, str) else dict(raw)
            context = dict(it.get("context") or {})
            # As cross-judge's judge(): a context `query` is what {query} renders to.
            query = str(context.pop("query", it["query"]))
            qid = str(it.get("query_id") or it.get("id") or str(it["query"])[:80])
            entry: Dict[str, Any] = {"id": qid, "query": query, "context": context}
            if it.get("expected") is not None:
                entry["expected"] = it["expected"]
            entries.append(entry)
            metas.append(dict(it.get("meta") or {}))
        client = self.client or Client()
        created = client.judge.create(self.request(entries))
        run: Dict[str, Any] = dict(client.runs.wait(created["id"], timeout=self.timeout))
        if run.get("status") != "succeeded":
            raise JudgeRunError(run)
        result: Dict[str, Any] = dict(run.get("result") or client.runs.result(run["id"]))
        found = _verdicts_by_item(client.runs.samples(run["id"]))
        by_id = {item["id"]: item for item in result["items"]}
        answers = [
            self._answer(by_id[entry["id"]], found.get(entry["id"], {}), meta, run["id"])
            for entry, meta in zip(entries, metas)
        ]
        return BatchResult(
            results=answers,
            krippendorff_alpha=result["batch"]["alpha"]["alpha"],
            run=run,
            result=result,
        )

    def _answer(
        self, item: Mapping[str, Any], samples: Mapping[str, Verdict], meta: Dict[str, Any], run_id: str
    ) -> EnsembleVerdict:
        """One item of the run's result, its verdicts in the critics' order (the library's order)."""
        summary = {v["critic"]: v for v in item["verdicts"]}
        verdicts: List[Verdict] = []
        for critic in self.critics:
            if critic.name in samples:
                verdicts.append(samples[critic.name])
            elif critic.name in summary:
                # No sample (e.g. a canceled run's missing call): the result's summary, without reasoning.
                s = summary[critic.name]
                verdicts.append(
                    Verdict(kind=s["kind"], confidence=float(s["confidence"]), critic_id=critic.name, error=s["error"])
                )
        alpha = item["krippendorff_alpha"]
        return EnsembleVerdict(
            query_id=item["id"],
            verdicts=verdicts,
            consensus=item["consensus"],
            avg_confidence=float(item["avg_confidence"]),
            disagreement=bool(item["disagreement"]),
            agreement_pct=float(item["agreement_pct"]),
            krippendorff_alpha=None if alpha is None else float(alpha),
            voting=self.voting,
            meta=meta,
            run_id=run_id,
            contested=list(item.get("contested") or []),
        )


def _verdicts_by_item(samples: Iterable[Mapping[str, Any]]) -> Dict[str, Dict[str, Verdict]]:
    """The run's samples as item id → critic name → Verdict (streamed; one pass)."""
    out: Dict[str, Dict[str, Verdict]] = {}
    for sample in samples:
        output = sample.get("output")
        if not output:
            continue
        v = output["verdict"]
        out.setdefault(output["item_id"], {})[output["critic"]] = Verdict(
            kind=v["kind"],
            confidence=float(v["confidence"]),
            reasoning=v["reasoning"],
            critic_id=v["critic_id"],
            raw_response=v["raw_response"],
            error=v["error"],
            elapsed_s=float(v["elapsed_s"]),
            prompt=v.get("prompt"),
        )
    return out
