"""The containment prover: does one JSON schema accept every value another accepts?

``contains(outer, inner)`` is the entry point. Its ``Proof`` says COVERS (proved), NOT_COVERS with a
``witness`` (a value ``inner`` accepts and ``outer`` rejects, checked with python ``jsonschema``), or
UNKNOWN with a ``reason`` ("could not prove", never a guess). Proofs run inside a time budget
(``proofs_within``). Both ``diff`` (its rules and readings) and ``manifest`` (``check``'s confirmation
conditions) ask it; it imports neither.

Inside, each module owns one step; the arrows are its imports, and there is no cycle::

    containment -> budget, formats, instances, rewrite, witness
    witness     -> formats, instances
    rewrite     -> formats, regex
    instances   -> regex

- ``containment``: the order of the proof (rewrite, algebra, structure, witness search) and ``Proof``;
- ``rewrite``: equivalent spellings and the sound structural "covers" test;
- ``witness``: values that tell two schemas apart, and a rule's mutations written into a valid call;
- ``instances``: small valid values of a schema, and the reference verdict (``accepts``/``rejects``);
- ``regex``: strings a pattern matches, and inclusion between patterns (greenery's automata);
- ``formats``: which string formats contain which, as data;
- ``budget``: how long a proof, and a run's proofs, may take.

The names below are what callers use; a module outside this package imports only from here.
"""

from .budget import TOTAL_SECONDS, proofs_within
from .containment import Proof, Verdict, clear_caches, contains
from .formats import format_gap, format_includes, unconfirmed_format_gap
from .instances import FORMAT_BREAKERS, NOTHING, accepts, candidates, generate, of_type, rejects
from .regex import regex_samples
from .witness import ITEM, Mutation, Step, WitnessFinder, find_witness, numbers_near

__all__ = [
    "FORMAT_BREAKERS",
    "ITEM",
    "NOTHING",
    "TOTAL_SECONDS",
    "Mutation",
    "Proof",
    "Step",
    "Verdict",
    "WitnessFinder",
    "accepts",
    "candidates",
    "clear_caches",
    "contains",
    "find_witness",
    "format_gap",
    "format_includes",
    "generate",
    "numbers_near",
    "of_type",
    "proofs_within",
    "regex_samples",
    "rejects",
    "unconfirmed_format_gap",
]
