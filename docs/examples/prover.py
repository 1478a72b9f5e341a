"""The containment prover's entry point: its three answers on three small schema pairs."""

from contractgen.prover import Verdict, contains

integer_up_to_9 = {"type": "integer", "maximum": 9}

lowered = contains({"type": "integer", "maximum": 5}, integer_up_to_9)
assert lowered.verdict is Verdict.NOT_COVERS
print(lowered.verdict.value, lowered.witness)  # a value only the inner schema accepts

widened = contains({"type": "number"}, integer_up_to_9)
print(widened.verdict.value)

lookahead = contains({"type": "string", "pattern": "^(?=a)"}, {"type": "string", "pattern": "^ab"})
print(lookahead.verdict.value, "-", lookahead.reason)
# not-covers 6
# covers
# unknown - the schema algebra could not decide
