"""vrty's call shape on assay: change ``from vrty import score`` to ``from assay_client.vrty import score``.

vrty (PyPI ``vrty`` 1.0.1) scores a (prompt, response) pair in-process; here the same call asks assay's
``POST /v1/vrty/score``, which runs assay's port of vrty's formulas, and returns an object shaped like
vrty's ``VrtyScore``: ``.composite``, ``.relevance``, ``.coherence``, ``.completeness``, ``.conciseness``,
``.explanations``, ``.vrty_version``, ``.idf_sha256``, ``.weights`` and ``.to_dict()``.

Where this cannot be exact:

- **The numbers.** The formulas, weights, ``MAX_TOKENS`` and the input contract are vrty's, but the
  server's default IDF table is assay's own (vrty's table is not ours to ship), so scores differ from
  vrty's (the README example gives 0.834…, not 0.865…). ``idf_sha256`` says which table made a score;
  ``idf_table=`` scores with an IDF table you uploaded (``Client().vrty.idf_tables``).
- **It needs a server and a key** (``ASSAY_URL`` / ``ASSAY_API_KEY``, or ``client=``): vrty's "no API
  key, no network" does not hold. Errors are :class:`assay_client.AssayError` (e.g. a non-string
  ``response`` is a 400 naming the field), where vrty raised ``TypeError``.

``python -m assay_client.vrty`` is vrty's command line (``__main__.py``).
"""

from __future__ import annotations

import copy
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, Dict, Optional, cast

from .. import Client

if TYPE_CHECKING:
    from ..types import VrtyResult

__all__ = ["VrtyScore", "score"]


@dataclass(frozen=True)
class VrtyScore:
    """One score, as vrty's frozen ``VrtyScore``; built from the server's answer, never recomputed."""

    composite: float
    relevance: float
    coherence: float
    completeness: float
    conciseness: float
    explanations: Dict[str, str]
    vrty_version: str
    idf_sha256: str
    weights: Dict[str, float]
    # The server's answer as it came: to_dict() keeps any key a newer server adds.
    _answer: Dict[str, Any] = field(repr=False, compare=False, default_factory=lambda: cast(Dict[str, Any], {}))

    @classmethod
    def from_dict(cls, answer: VrtyResult | Dict[str, Any]) -> VrtyScore:
        """Wraps a ``VrtyResult`` (the 9-key object of ``POST /v1/vrty/score``)."""
        a: Dict[str, Any] = dict(answer)
        # JSON writes 1.0 as 1; vrty's attributes are floats, so they are here too (1 == 1.0 still).
        return cls(
            composite=float(a["composite"]),
            relevance=float(a["relevance"]),
            coherence=float(a["coherence"]),
            completeness=float(a["completeness"]),
            conciseness=float(a["conciseness"]),
            explanations=dict(a["explanations"]),
            vrty_version=str(a["vrty_version"]),
            idf_sha256=str(a["idf_sha256"]),
            weights={k: float(v) for k, v in a["weights"].items()},
            _answer=copy.deepcopy(a),
        )

    def to_dict(self) -> Dict[str, Any]:
        """The 9-key dict of vrty's ``to_dict()``, in its order: equal to the server's answer.

        Numbers are floats as vrty's are (the server's JSON writes 1.0 as 1; they compare equal). A key
        a newer server adds comes last.
        """
        out: Dict[str, Any] = {
            "composite": self.composite,
            "relevance": self.relevance,
            "coherence": self.coherence,
            "completeness": self.completeness,
            "conciseness": self.conciseness,
            "explanations": dict(self.explanations),
            "vrty_version": self.vrty_version,
            "idf_sha256": self.idf_sha256,
            "weights": dict(self.weights),
        }
        out.update((k, copy.deepcopy(v)) for k, v in self._answer.items() if k not in out)
        return out


def score(
    prompt: str,
    response: str,
    *,
    idf_table: Optional[str] = None,
    client: Optional[Client] = None,
) -> VrtyScore:
    """Scores ``response`` against ``prompt``, as ``vrty.score(prompt, response)``.

    ``idf_table``: the id of an IDF table uploaded to assay (default: the server's built-in table).
    ``client``: the :class:`assay_client.Client` to use (default: one from ``ASSAY_URL`` /
    ``ASSAY_API_KEY``). Raises :class:`assay_client.AssayError` when the server refuses the input.
    """
    options: Dict[str, Any] = {}
    if idf_table is not None:
        options["idf_table"] = idf_table
    answer = (client or Client()).vrty.score(prompt, response, **options)
    return VrtyScore.from_dict(answer)
