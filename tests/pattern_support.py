"""Pattern strategies shared by the regex-semantics tests: ECMA-262 constructs, many of which Python's
``re`` refuses or reads otherwise, and strings around them."""

from __future__ import annotations

from hypothesis import strategies as st

#: ECMA-262 atoms; the comments name how Python's re differs
ATOMS = [
    "a", "Z", "0", "-", "é",
    "\\d", "\\D", "\\w", "\\W",          # Python: Unicode digits and letters
    "\\s", "\\S",                        # Python: no U+FEFF, but U+001C..U+001F and U+0085
    ".", "[^a]", "[a-z]", "[\\s\\S]",
    "\\p{L}", "\\P{L}", "\\p{Lu}", "\\p{Nd}",   # Python: an error
    "\\u0041", "\\u{1F600}", "\\x41",     # \u{..}: a Python error
    "\\cJ",                              # Python: an error
    "(?<n>a)", "(?:ab)", "(a|b)",         # (?<n>: a Python error
    "\\b", "\\B", "(?=a)", "(?!a)", "(?<=a)", "(?<!a)",
]
QUANTIFIERS = ["", "", "*", "+", "?", "{2}", "{1,3}"]
#: characters on which the dialects disagree, and plain ones
ALPHABET = "aAbZz09_-é٣１\u00a0\ufeff\x1c\x85\u2028 \n\tJ😀ß\u0130"


#: patterns on which Python's re errs or disagrees (the explicit example: every run covers them)
KNOWN = ["^[a-z]+$", "^\\d$", "^\\p{L}+$", "(?<year>\\d{4})", "\\u{1F600}", "^\\s$", "^\\W$", "\\cJ"]


@st.composite
def ecma_patterns(draw: st.DrawFn) -> str:
    atoms = draw(st.lists(st.tuples(st.sampled_from(ATOMS), st.sampled_from(QUANTIFIERS)), min_size=1,
                          max_size=4))
    body = "".join(atom + quantifier for atom, quantifier in atoms)
    return draw(st.sampled_from(["", "^"])) + body + draw(st.sampled_from(["", "$"]))
