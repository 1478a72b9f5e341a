"""Checks on ``preconditions`` and ``confirmation``: each ``when`` is a sound condition on arguments
the input declares, that some valid call meets and some does not, and the summary names arguments.

Whether a condition can hold is asked of the containment prover (``contractgen.prover``) against
the input schema: a confirmation no valid call meets protects nothing, and a precondition every
valid call meets refuses the tool's every call.
"""

from __future__ import annotations

import re
from typing import Any

import jsonschema
from jsonschema.exceptions import best_match

from ..diagnostics import Level
from ..prover import Verdict, contains, proofs_within
from ..runtime.pointer import escape_token
from ..runtime.schema_walk import is_marked
from .describe import did_you_mean, show
from .report import Reporter
from .satisfiable import check_satisfiable, inverted
from .schema_keywords import check_keywords
from .schema_walk import lookup_argument, subschemas

_PLACEHOLDER = re.compile(r"\{([^{}]*)\}")
#: seconds the prover may spend on one manifest's conditions (each proof also has its own limit)
PROOF_SECONDS = 10.0
_COMBINATORS = frozenset({"anyOf", "allOf", "oneOf"})


def check_gates(report: Reporter, data: dict[str, Any], input_schema: dict[str, Any]) -> None:
    for index, rule in enumerate(data.get("preconditions", ())):
        _check_when(
            report, f"/preconditions/{index}/when", rule["when"], input_schema, confirmation=False
        )
    confirmation = data.get("confirmation")
    if confirmation is None:
        return
    if isinstance(confirmation["when"], dict):
        _check_when(
            report, "/confirmation/when", confirmation["when"], input_schema, confirmation=True
        )
    for match in _PLACEHOLDER.finditer(confirmation["summary"]):
        name = match.group(1)
        found = lookup_argument(input_schema, "/" + escape_token(name))
        if not found.found:
            report.error(
                "/confirmation/summary",
                f"expected each {{name}} in the summary to name an input property (got {{{name}}})",
                "summary-unknown-argument",
                hint=did_you_mean(name, _input_names(input_schema))
                or f"input properties: {', '.join(sorted(_input_names(input_schema)))}",
            )
        elif is_marked(found.schema):
            report.warning(
                "/confirmation/summary",
                f"the summary shows {{{name}}}, which the input marks sensitive: the user is shown "
                "a redaction marker there, never the value",
                "summary-shows-secret",
                hint=f"leave {{{name}}} out, or name what it is for instead of its value",
            )


def _check_when(
    report: Reporter,
    base: str,
    when: dict[str, Any],
    input_schema: dict[str, Any],
    *,
    confirmation: bool,
) -> None:
    before = len(report.diagnostics)
    problem = best_match(
        jsonschema.Draft202012Validator(jsonschema.Draft202012Validator.META_SCHEMA).iter_errors(
            when
        )
    )
    if problem is not None:
        where = "".join(f"/{escape_token(str(p))}" for p in problem.absolute_path)
        report.error(
            base + where,
            f"expected a JSON Schema 2020-12 condition ({problem.message})",
            "condition-not-a-schema",
            hint="write the condition as an object schema over the arguments",
        )
        return
    names = _input_names(input_schema)
    required_in_input = set(input_schema.get("required") or ())
    for pointer, sub in subschemas(when):
        for keyword in ("$ref", "$dynamicRef"):
            if keyword in sub:
                report.error(
                    f"{base}{pointer}/{escape_token(keyword)}",
                    f"expected a self-contained condition (got `{keyword}`: a condition is judged on "
                    "its own, so it cannot reach the input's $defs)",
                    "condition-has-ref",
                    hint="write the condition out in place",
                )
        check_keywords(report, base + pointer, sub)
        check_satisfiable(report, base + pointer, sub)
        if not _argument_level(pointer):
            continue
        for key, listed in (
            ("properties", list(sub.get("properties") or ())),
            ("required", sub.get("required") or []),
        ):
            for position, name in enumerate(listed):
                if (
                    isinstance(name, str)
                    and not lookup_argument(input_schema, "/" + escape_token(name)).found
                ):
                    where = f"{base}{pointer}/{key}/" + (
                        escape_token(name) if key == "properties" else str(position)
                    )
                    report.error(
                        where,
                        f"expected an input property (got {show(name)}: the input declares no "
                        "such argument, so the condition never reads it)",
                        "condition-unknown-argument",
                        hint=did_you_mean(name, names)
                        or f"input properties: {', '.join(sorted(names))}",
                    )
        optional = [
            n
            for n in sub.get("properties") or ()
            if n not in (sub.get("required") or ()) and n not in required_in_input
        ]
        for name in optional if not inverted(base + pointer) else ():
            report.warning(
                f"{base}{pointer}/properties/{escape_token(name)}",
                f"the condition on {name!r} also holds for calls that leave {name!r} out "
                "(`properties` judges a property only when it is present)",
                "condition-holds-when-absent",
                hint=f"add `required: [{name}]` beside `properties` if only calls that send it are meant",
            )
    if len(report.diagnostics) > before and any(
        d.level is Level.ERROR for d in report.diagnostics[before:]
    ):
        return
    _check_reach(report, base, when, input_schema, confirmation=confirmation)


def _check_reach(
    report: Reporter,
    base: str,
    when: dict[str, Any],
    input_schema: dict[str, Any],
    *,
    confirmation: bool,
) -> None:
    """A condition no valid call meets, or every valid call meets, as far as the prover decides."""
    # this check's own budget, ended with it
    with proofs_within(PROOF_SECONDS, "check's proof budget for one condition ({seconds:g} s)"):
        if contains(False, {"allOf": [input_schema, when]}).verdict is Verdict.COVERS:
            report.error(
                base,
                "expected a condition some valid call meets (got one no call the input schema "
                "accepts can meet)",
                "condition-never-holds",
                hint=(
                    "no call would ever be confirmed; loosen `when`, or write `when: always`"
                    if confirmation
                    else "the rule refuses nothing; fix `when` or remove the precondition"
                ),
            )
            return
        if contains(when, input_schema).verdict is Verdict.COVERS:
            if confirmation:
                report.warning(
                    base,
                    "the condition holds for every call the input schema accepts",
                    "condition-always-holds",
                    hint="write `when: always` to say so",
                )
            else:
                report.error(
                    base,
                    "expected a precondition some valid call passes (got one every call the input "
                    "schema accepts meets: the tool could never run)",
                    "condition-always-holds",
                    hint="narrow `when` to the calls to refuse",
                )


def _argument_level(pointer: str) -> bool:
    """Whether a subschema judges the arguments object itself: the root, or a branch of it."""
    tokens = pointer.split("/")[1:]
    return all(t in _COMBINATORS or t.isdigit() for t in tokens)


def _input_names(input_schema: dict[str, Any]) -> set[str]:
    names = input_schema.get("properties") or {}
    return {str(n) for n in names}
