"""Types of the C twin of ``jsonvalue.plain_json`` (``_plain.c``)."""

MAX_DEPTH: int

def plain_json(value: object, depth: int = 0, /) -> bool: ...
