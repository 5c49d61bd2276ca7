"""One namespace per evaluator: ``client.vrty``, ``client.chain_determinism``, ``client.rpl``,
``client.judge``, ``client.reasoning_quality`` — its runs and its own routes (suites, datasets, prompt
banks, review queues, IDF tables)."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any, Dict, Iterator, Mapping, Optional, Sequence

from ._http import Transport, quote
from ._operations import operation
from ._pages import each_item
from ._runs import PAGE, create_run

if TYPE_CHECKING:
    from .types import (
        ChainDeterminismRun,
        ContestedItem,
        Dataset,
        DatasetDetail,
        IdfTable,
        JudgeRun,
        ReasoningQualityRun,
        RplComparison,
        RplRun,
        RunGroup,
        Suite,
        SuiteDetail,
        VrtyBatchResponse,
        VrtyResult,
    )


def _pages(http: Transport, path: str, **query: Any) -> Iterator[Any]:
    return each_item(lambda after: http.json("GET", path, query={"limit": PAGE, **query, "after": after}, safe=True))


class IdfTables:
    """``client.vrty.idf_tables``: the tenant's IDF tables for vrty's specificity term."""

    def __init__(self, http: Transport) -> None:
        self._http = http

    @operation("createIdfTable")
    def create(self, body: Mapping[str, Any]) -> "IdfTable":
        """Saves an IDF table (``{name, ...}`` as the API takes it) and returns it."""
        return self._http.json("POST", "/v1/vrty/idf-tables", body=dict(body))

    @operation("listIdfTables")
    def list(self) -> Iterator["IdfTable"]:
        """Every IDF table of the tenant, the built-in one included."""
        return _pages(self._http, "/v1/vrty/idf-tables")

    @operation("getIdfTable")
    def get(self, table_id: str) -> "IdfTable":
        """One IDF table."""
        return self._http.json("GET", f"/v1/vrty/idf-tables/{quote(table_id)}", safe=True)

    @operation("deleteIdfTable")
    def delete(self, table_id: str) -> None:
        """Deletes an IDF table (the built-in one is a 409)."""
        self._http.json("DELETE", f"/v1/vrty/idf-tables/{quote(table_id)}", safe=True)


class Vrty:
    """``client.vrty``: deterministic text-quality scores, answered at once (no run)."""

    def __init__(self, http: Transport) -> None:
        self._http = http
        self.idf_tables = IdfTables(http)

    @operation("scoreVrty")
    def score(self, prompt: str, response: str, **options: Any) -> "VrtyResult":
        """vrty's score of one (prompt, response) pair; ``options`` are the request's other fields
        (``idf_table``)."""
        # A pure computation: sending it twice is harmless, so it is retried like a GET.
        return self._http.json("POST", "/v1/vrty/score", body={"prompt": prompt, "response": response, **options}, safe=True)

    @operation("scoreVrtyBatch")
    def batch(self, items: Sequence[Mapping[str, Any]], **options: Any) -> "VrtyBatchResponse":
        """The scores of many pairs (``items``: ``{"prompt", "response"}`` each) in one request."""
        return self._http.json("POST", "/v1/vrty/score/batch", body={"pairs": [dict(i) for i in items], **options}, safe=True)


class Suites:
    """``client.chain_determinism.suites``: saved query suites for chain-determinism runs."""

    def __init__(self, http: Transport) -> None:
        self._http = http

    @operation("createChainDeterminismSuite")
    def create(self, body: Mapping[str, Any]) -> "Suite":
        """Saves a suite of queries and tools and returns it."""
        return self._http.json("POST", "/v1/chain-determinism/suites", body=dict(body))

    @operation("listChainDeterminismSuites")
    def list(self) -> Iterator["Suite"]:
        """Every suite of the tenant, the built-in ones included."""
        return _pages(self._http, "/v1/chain-determinism/suites")

    @operation("getChainDeterminismSuite")
    def get(self, suite_id: str) -> "SuiteDetail":
        """One suite with its queries."""
        return self._http.json("GET", f"/v1/chain-determinism/suites/{quote(suite_id)}", safe=True)

    @operation("deleteChainDeterminismSuite")
    def delete(self, suite_id: str) -> None:
        """Deletes a saved suite."""
        self._http.json("DELETE", f"/v1/chain-determinism/suites/{quote(suite_id)}", safe=True)


class ChainDeterminism:
    """``client.chain_determinism``: tool-call determinism runs and their suites."""

    def __init__(self, http: Transport) -> None:
        self._http = http
        self.suites = Suites(http)

    @operation("createChainDeterminismRun")
    def create(self, body: Mapping[str, Any], *, idempotency_key: Optional[str] = None) -> "ChainDeterminismRun":
        """Starts a chain-determinism run (``{"model": ..., "n_queries": ..., ...}``); see ``Runs.create``."""
        return create_run(self._http, "chain-determinism", body, idempotency_key)


class Rpl:
    """``client.rpl``: Heretix's raw prior lens runs and A/B comparisons."""

    def __init__(self, http: Transport) -> None:
        self._http = http

    @operation("createRplRun")
    def create(self, body: Mapping[str, Any], *, idempotency_key: Optional[str] = None) -> "RplRun":
        """Starts an rpl run (``{"claim": ..., "model": ..., "K": ..., "R": ...}``). With a list of
        ``prompt_version``s the API makes one run per version: use ``create_group`` for that."""
        return create_run(self._http, "rpl", body, idempotency_key)

    @operation("createRplRun")
    def create_group(self, body: Mapping[str, Any], *, idempotency_key: Optional[str] = None) -> "RunGroup":
        """Starts one rpl run per ``prompt_version`` of the list in ``body``: the run group."""
        return create_run(self._http, "rpl", body, idempotency_key)

    @operation("compareRplRuns")
    def compare(self, run_ids: Sequence[str]) -> "RplComparison":
        """Heretix's A/B table over rpl runs (two or more)."""
        return self._http.json("GET", "/v1/rpl/compare", query={"runs": ",".join(run_ids)}, safe=True)


class Judge:
    """``client.judge``: cross-judge panel runs, their review queue and the critic prompt bank."""

    def __init__(self, http: Transport) -> None:
        self._http = http

    @operation("createJudgeRun")
    def create(self, body: Mapping[str, Any], *, idempotency_key: Optional[str] = None) -> "JudgeRun":
        """Starts a judge run (``{"items": [...], "critics": [...], "voting": ...}``)."""
        return create_run(self._http, "judge", body, idempotency_key)

    @operation("listContestedItems")
    def contested(self, run_id: str, *, threshold: Optional[float] = None) -> Iterator["ContestedItem"]:
        """The items of an ended judge run whose critics disagreed (the human-review queue), page by page."""
        return _pages(self._http, f"/v1/judge/runs/{quote(run_id)}/contested", threshold=threshold)

    @operation("listCriticPrompts")
    def prompts(self) -> "Dict[str, Any]":
        """The critic prompt bank: ``{"default": <the prompt a critic without one uses>, "data": [CriticPrompt, ...]}``."""
        return self._http.json("GET", "/v1/judge/prompts", safe=True)


class Datasets:
    """``client.reasoning_quality.datasets``: uploaded question sets for reasoning-quality runs."""

    def __init__(self, http: Transport) -> None:
        self._http = http

    @operation("uploadReasoningQualityDataset")
    def upload(self, body: Mapping[str, Any]) -> "Dataset":
        """Uploads a dataset (JSON items, CSV text, or GSM8K / MMLU / StrategyQA rows) and returns it."""
        return self._http.json("POST", "/v1/reasoning-quality/datasets", body=dict(body))

    create = upload

    @operation("listReasoningQualityDatasets")
    def list(self) -> Iterator["Dataset"]:
        """Every dataset of the tenant."""
        return _pages(self._http, "/v1/reasoning-quality/datasets")

    @operation("getReasoningQualityDataset")
    def get(self, dataset_id: str) -> "DatasetDetail":
        """One dataset with its items."""
        return self._http.json("GET", f"/v1/reasoning-quality/datasets/{quote(dataset_id)}", safe=True)

    @operation("deleteReasoningQualityDataset")
    def delete(self, dataset_id: str) -> None:
        """Deletes a dataset."""
        self._http.json("DELETE", f"/v1/reasoning-quality/datasets/{quote(dataset_id)}", safe=True)


class ReasoningQuality:
    """``client.reasoning_quality``: reasoning-quality runs over datasets (reports: ``client.runs.report``)."""

    def __init__(self, http: Transport) -> None:
        self._http = http
        self.datasets = Datasets(http)

    @operation("createReasoningQualityRun")
    def create(self, body: Mapping[str, Any], *, idempotency_key: Optional[str] = None) -> "ReasoningQualityRun":
        """Starts a reasoning-quality run (``{"models": [...], "datasets": [...], "K": ..., "P": ...}``)."""
        return create_run(self._http, "reasoning-quality", body, idempotency_key)


__all__ = ["Vrty", "ChainDeterminism", "Rpl", "Judge", "ReasoningQuality"]
