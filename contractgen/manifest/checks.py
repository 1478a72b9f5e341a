"""Running every check on one parsed manifest (``check_file``) and across manifests (``check_set``).

Checks run section by section: a section with a meta-schema error is not checked further (its shape
is unknown), but every other section still is, so one run reports as much as it can.
"""

from __future__ import annotations

from collections.abc import Callable
from functools import partial
from typing import Any

from ..diagnostics import Diagnostic
from .contract_checks import check_empty_result, check_examples, check_retry_and_timeout
from .describe import json_type
from .error_checks import check_errors, check_messages
from .gate_checks import check_gates
from .lifecycle_checks import check_layout, check_lifecycle
from .meta import check_meta
from .number_checks import check_finite_numbers
from .parse import ParsedFile
from .report import Reporter
from .result_rules import check_result_rules
from .schema_checks import check_embedded_schema, check_input_descriptions
from .set_checks import check_set
from .text_checks import check_hidden_text
from .user_supplied_checks import check_user_supplied

__all__ = ["check_file", "check_set"]


def check_file(item: ParsedFile) -> list[Diagnostic]:
    report = Reporter(item)
    data = item.value
    if not isinstance(data, dict):
        report.error(
            "",
            f"expected a mapping at the top of the manifest (got {json_type(data)})",
            "not-a-mapping",
            hint="a manifest starts with `name:`, `version:`, `summary:` ... at the top level",
        )
        return report.diagnostics
    check_finite_numbers(report, data)
    check_hidden_text(report, data)
    bad = check_meta(report, data)

    def clean(*sections: str) -> bool:
        return "" not in bad and not any(b.split("/")[0] in sections for b in bad)

    schemas: dict[str, dict[str, Any] | None] = {"input": None, "output": None}
    for key in ("input", "output"):
        schema = data.get(key)
        if key in bad or not isinstance(schema, dict):
            continue
        if _guarded(report, f"{key} schema", partial(check_embedded_schema, report, key, schema)):
            schemas[key] = schema
    if schemas["input"] is not None:
        _guarded(
            report, "input descriptions", lambda: check_input_descriptions(report, data["input"])
        )
    if (
        clean("name", "retry") and "errors" not in bad
    ):  # single bad entries are skipped, not the section
        skip = frozenset(int(b.split("/")[1]) for b in bad if b.startswith("errors/"))
        _guarded(report, "errors", lambda: check_errors(report, data, schemas["input"], skip))
        if not data.get("errors"):
            report.warning(
                "/errors" if "errors" in data else "",
                "expected the errors the tool can return (got none)",
                "no-errors",
                hint="declare each failure with a code from the closed set; undeclared "
                "failures reach the model as INTERNAL",
            )
    if clean("errors", "deprecated", "empty_result", "migrations"):
        _guarded(report, "messages", lambda: check_messages(report, data))
    if clean("retry", "timeout"):
        _guarded(report, "retry", lambda: check_retry_and_timeout(report, data))
    if clean("examples"):
        _guarded(report, "examples", lambda: check_examples(report, data, schemas["input"]))
    if clean("version", "deprecated", "migrations"):
        _guarded(report, "lifecycle", lambda: check_lifecycle(report, data))
    if clean("name", "version"):
        _guarded(report, "layout", lambda: check_layout(report, data))
    if clean("empty_result"):
        _guarded(
            report, "empty_result", lambda: check_empty_result(report, data, schemas["output"])
        )
    asked_in = schemas["input"]
    if clean("user_supplied") and asked_in is not None:
        _guarded(report, "user_supplied", lambda: check_user_supplied(report, data, asked_in))
    if clean("result_rules"):
        _guarded(
            report, "result rules", lambda: check_result_rules(report, data, schemas["output"])
        )
    gated_input = schemas["input"]
    if clean("preconditions", "confirmation") and gated_input is not None:
        _guarded(report, "confirmation", lambda: check_gates(report, data, gated_input))
    return report.diagnostics


def _guarded(report: Reporter, what: str, run: Callable[[], Any]) -> Any:
    """A check that crashes on odd input becomes one diagnostic, never a traceback.

    The tests fail on such a diagnostic, so a crash is still found; users only ever see the value.
    """
    try:
        return run()
    except Exception as exc:  # noqa: BLE001 - the boundary that keeps tracebacks away from users
        report.error(
            "",
            f"contractgen could not check the {what} of this manifest "
            f"({type(exc).__name__}: {exc})",
            "internal-check-failure",
            hint="please report this manifest to the contractgen maintainers",
        )
        return None
