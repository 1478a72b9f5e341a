"""output-schema-widened: the proof found outputs the new schema allows and the old one did not."""

from __future__ import annotations

from collections.abc import Iterator

from ..coverage import proven_difference, what_changed
from ..model import Context, Direction, Hit, Level, Scope
from ..structure import SchemaPair

ID = "output-schema-widened"
LEVEL = Level.BREAKING
SUMMARY = "A change no specific rule reports (bounds, lengths, pattern, branches, ...) lets results hold new values."
DIRECTION = Direction.OUTPUT
SCOPE = Scope.SCHEMA
WITNESS = True
BACKSTOP = True


def check(pair: SchemaPair, context: Context) -> Iterator[Hit]:
    """Outputs are covariant: consumers were written against the old schema, so a value it excluded
    (a longer string, a number past the old bound, a new shape) can reach code and prompts that never
    expected it. Found by the containment proof at any depth and checked with jsonschema; the witness
    is a whole result the new schema allows and the old one rejects."""
    found = proven_difference(pair, context)
    if found is not None:
        keywords, mutation = found
        yield Hit(f"{what_changed(pair, keywords)} admits results the old schema excluded", keywords=keywords, mutations=(mutation,),
                  probe_path=mutation.path)
