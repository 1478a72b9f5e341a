"""Model-facing text: one compact description per tool version and the shared agent-instruction snippet.

Paid on every request, so every line earns its place: purpose first, then parameters, what success
returns (and what an empty result means), version and timeout, and the error contract near the end,
where the model looks once a call failed. The action vocabulary is defined once, in the snippet.
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from typing import Any

from ..runtime.codes import ACTIONS, CODES
from ..runtime.contract import Contract
from ..runtime.pointer import unescape_token

_MAX_ENUM = 8


def describe_tool(contract: Contract) -> str:
    lines = [_sentence(contract.summary) + " " + contract.description.strip()]
    params = _parameters(contract.input_schema)
    if params:
        lines += ["", "Parameters:", *params]
    lines += ["", "Returns: " + _returns(contract.output_schema)]
    if contract.empty_result is not None:
        where = contract.empty_result.pointer or "the output"
        lines.append(f"Empty result ({where} empty): {contract.empty_result.meaning.strip()}")
    if contract.partial_results:
        lines.append("Some errors carry partial_results: real but incomplete data; say it may be incomplete.")
    lines.append(_version_line(contract))
    lines += ["", "Errors (code: meaning -> action):", *_errors(contract), _retry(contract)]
    return "\n".join(lines)


def agent_instructions() -> str:
    """The action vocabulary, once for all tools: what to do with each ``action`` in an error."""
    lines = [
        ('Every tool returns {"status": "ok", "output": ...} or {"status": "error", "error": {"code", '
         '"message", "action", "retryable", ...}}. After an error, do what its "action" says:'),
    ]
    lines += [f"- {name}: {text}" for name, text in ACTIONS.items()]
    lines.append(
        "Never invent a result after an error. When the error carries a budget that is exhausted, stop "
        "retrying. partial_results, when present, are real but incomplete."
    )
    return "\n".join(lines)


def _sentence(text: str) -> str:
    text = text.strip()
    return text if text.endswith((".", "!", "?")) else text + "."


def _parameters(schema: Mapping[str, Any]) -> list[str]:
    properties = schema.get("properties") or {}
    required = set(schema.get("required") or ())
    lines = []
    for name, sub in properties.items():
        if not isinstance(sub, Mapping):
            continue
        sub = {**_resolve(sub, schema), **{k: v for k, v in sub.items() if k != "$ref"}}
        facts = [_type_text(sub, schema)]
        if name in required:
            facts.append("required")
        facts += _constraints(sub)
        text = f"- {name} ({'; '.join(f for f in facts if f)})"
        description = str(sub.get("description", "")).strip()
        lines.append(text + (": " + description if description else ""))
    if schema.get("additionalProperties") is False and properties:
        lines.append("No other parameters are accepted.")
    return lines


def _resolve(sub: Mapping[str, Any], root: Mapping[str, Any]) -> Mapping[str, Any]:
    ref = sub.get("$ref")
    if isinstance(ref, str) and ref.startswith("#/"):
        node: Any = root
        for token in ref[2:].split("/"):
            token = unescape_token(token)
            if not isinstance(node, Mapping) or token not in node:
                return sub
            node = node[token]
        if isinstance(node, Mapping):
            return node
    return sub


def _type_text(sub: Mapping[str, Any], root: Mapping[str, Any], depth: int = 0) -> str:
    sub = _resolve(sub, root)
    if "const" in sub:
        return "exactly " + _json(sub["const"])
    if isinstance(sub.get("enum"), list):
        values = sub["enum"]
        shown = " | ".join(_json(v) for v in values[:_MAX_ENUM])
        return "one of " + shown + (f" | ... ({len(values)} values)" if len(values) > _MAX_ENUM else "")
    kind = sub.get("type")
    if isinstance(kind, list):
        kind = " or ".join(str(k) for k in kind)
    for combinator in ("anyOf", "oneOf"):
        if not kind and isinstance(sub.get(combinator), list) and depth < 2:
            kind = " or ".join(_type_text(s, root, depth + 1) for s in sub[combinator] if isinstance(s, Mapping))
    text = str(kind or "any")
    if kind == "array" and isinstance(sub.get("items"), Mapping) and depth < 2:
        text = "array of " + _type_text(sub["items"], root, depth + 1)
    if "format" in sub:
        text += f", {sub['format']}"
    return text


def _constraints(sub: Mapping[str, Any]) -> list[str]:
    facts = []
    for low, high, unit in (("minLength", "maxLength", " chars"), ("minItems", "maxItems", " items"),
                            ("minimum", "maximum", "")):
        if low in sub and high in sub:
            facts.append(f"{_num(sub[low])}-{_num(sub[high])}{unit}")
        elif low in sub:
            facts.append(f">= {_num(sub[low])}{unit}")
        elif high in sub:
            facts.append(f"<= {_num(sub[high])}{unit}")
    if "exclusiveMinimum" in sub:
        facts.append(f"> {_num(sub['exclusiveMinimum'])}")
    if "exclusiveMaximum" in sub:
        facts.append(f"< {_num(sub['exclusiveMaximum'])}")
    if "pattern" in sub:
        facts.append(f"pattern {sub['pattern']}")
    if "default" in sub:
        facts.append(f"default {_json(sub['default'])}")
    examples = sub.get("examples")
    if isinstance(examples, list) and examples:
        facts.append(f"e.g. {_json(examples[0])}")
    return facts


def _returns(schema: Mapping[str, Any]) -> str:
    properties = schema.get("properties") or {}
    if not properties:
        return "an object."
    required = set(schema.get("required") or ())
    parts = []
    for name, sub in properties.items():
        if isinstance(sub, Mapping):
            optional = "" if name in required else ", optional"
            parts.append(f"{name} ({_type_text(sub, schema)}{optional})")
    return ", ".join(parts) + "."


def _version_line(contract: Contract) -> str:
    text = f"Version {contract.version}."
    if contract.timeout.seconds is not None:
        text += f" Timeout {_num(contract.timeout.seconds)} s"
        text += " (long-running)." if contract.timeout.long_running else "."
    deprecation = contract.deprecation
    if deprecation is not None:
        text += " DEPRECATED"
        if deprecation.since:
            text += f" since {deprecation.since}"
        if deprecation.sunset:
            text += f", removed after {deprecation.sunset}"
        text += "."
        if deprecation.replacement:
            text += f" Use {deprecation.replacement} instead."
        if deprecation.message:
            text += " " + _sentence(deprecation.message)
    return text


def effective_action(contract: Contract, code: str, action: str | None = None,
                     retryable: bool | None = None) -> str:
    """The action the runtime will send: the declared one, else the code's default, except that a
    transient code missing from ``retry.retryable_codes`` must not invite a retry."""
    if action is not None:
        return action
    default = CODES[code].action
    if retryable is None and default == "retry_later" and code not in contract.retry.retryable_codes:
        return "stop_and_tell_user"
    return default


def _errors(contract: Contract) -> list[str]:
    lines = []
    for spec in contract.errors:
        where = f" [{spec.field}]" if spec.field else ""
        action = effective_action(contract, spec.code, spec.action, spec.retryable)
        lines.append(f"- {spec.code}{where}: {spec.message.strip()} -> {action}")
    if contract.migrations:
        lines.append(f"- VERSION_MISMATCH: the arguments match an older version of this tool; "
                     f"apply the migration in the error -> {CODES['VERSION_MISMATCH'].action}")
    declared = {spec.code for spec in contract.errors}
    generic = [code for code in ("INVALID_ARGUMENT", "TIMEOUT", "INTERNAL") if code not in declared]
    lines.append("- Also: " + ", ".join(f"{code} -> {effective_action(contract, code)}" for code in generic) + ".")
    return lines


def _retry(contract: Contract) -> str:
    retry = contract.retry
    if not retry.retryable_codes:
        return "Retry: never call again unchanged after an error."
    backoff = retry.backoff
    text = (f"Retry only {', '.join(retry.retryable_codes)}: wait retry_after, else {_num(backoff.initial)} s "
            f"doubling" if backoff.multiplier == 2 else
            f"Retry only {', '.join(retry.retryable_codes)}: wait retry_after, else {_num(backoff.initial)} s "
            f"x{_num(backoff.multiplier)}")
    text += f" up to {_num(backoff.maximum)} s."
    if retry.failure_budget is not None:
        text += (f" After {retry.failure_budget} consecutive failure{'s' if retry.failure_budget != 1 else ''}, "
                 "stop and tell the user.")
    return text


def _num(value: Any) -> str:
    if isinstance(value, float) and value.is_integer():
        return str(int(value))
    return str(value)


def _json(value: Any) -> str:
    return json.dumps(value, ensure_ascii=False)
