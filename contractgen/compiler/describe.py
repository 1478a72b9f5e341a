"""Model-facing text: one compact description per tool version and the shared agent-instruction snippet.

Paid on every request, so every line earns its place. Per tool: the author's description, then only
what is specific to this contract: what an empty result means, deprecation, the declared errors the
model can plan for (with their action) and one line of timeout and retry facts. What every tool
shares (the envelope, the action vocabulary, the generic codes) is in the snippet, once. The
parameter listing is off by default: every export carries the input schema; hosts that drop schema
descriptions turn it on (``describe_parameters``).
"""

from __future__ import annotations

import json
import re
from collections.abc import Mapping
from typing import Any

from ..manifest.schema_walk import local_ref_pointer
from ..runtime.codes import ACTIONS, CODES, retry_withheld
from ..runtime.contract import Contract, ErrorSpec
from ..runtime.jsonvalue import MISSING
from ..runtime.pointer import resolve_pointer
from .condition_words import condition_words

_MAX_ENUM = 8
#: Codes any tool may return for the same reasons; the snippet explains them once.
GENERIC_CODES = ("INVALID_ARGUMENT", "VERSION_MISMATCH", "INTERNAL")
#: A sentence that invites another call, unless negated before the invitation ("do not call again").
_INVITES_RETRY = re.compile(r"\b(?:call|try|send)\b[^.;]*?\bagain\b|\bretry\b", re.IGNORECASE)
_NEGATION = re.compile(r"\b(?:not|never|no)\b|n't\b", re.IGNORECASE)
_SENTENCE_END = re.compile(r"(?<=[.!?])\s+")


def describe_tool(contract: Contract, *, parameters: bool = False) -> str:
    """The model-facing description; ``parameters`` adds the argument list and the result's fields."""
    lines = _purpose(contract)
    if parameters:
        listed = _parameters(contract.input_schema)
        if listed:
            lines += ["Parameters:", *listed]
        lines.append("Returns: " + _returns(contract.output_schema))
    if contract.empty_result is not None:
        where = contract.empty_result.pointer or "the output"
        lines.append(f"Empty result ({_one_line(where)} empty): {_one_line(contract.empty_result.meaning)}")
        if contract.empty_result.attempted is not None:
            lines.append("An empty result's attempted holds what was searched for: search differently, not again.")
    if contract.user_supplied:
        names = ", ".join(_one_line(p.lstrip("/")) for p in contract.user_supplied)
        lines.append(f"Only the user can give {names}: ask the user, never invent or guess it.")
    if contract.partial_results:
        lines.append("Some errors carry partial_results.")
    deprecation = _deprecation(contract)
    if deprecation:
        lines.append(deprecation)
    if contract.confirmation is not None:
        when = contract.confirmation.when
        calls = "every call" if when is None else f"a call where {condition_words(when)}"
        lines.append(f"Confirmation: {_one_line(calls)} needs the user's confirmation, which the host asks for; "
                     "until given, the tool answers CONFIRMATION_REQUIRED -> confirm_with_user")
    errors = _errors(contract)
    if errors:
        lines += ["Errors:", *errors]
    facts = _facts(contract)
    if facts:
        lines.append(facts)
    return "\n".join(lines)


def agent_instructions() -> str:
    """What every tool shares, once: the envelope, the action vocabulary and the generic codes."""
    lines = [
        ('Every tool returns {"status": "ok", "output": ...} or {"status": "error", "error": {"code", '
         '"message", "action", "retryable", ...}}. After an error, do what its "action" says:'),
    ]
    lines += [f"- {name}: {text}" for name, text in ACTIONS.items()]
    lines += [
        "Any tool may also return these codes:",
        ("- INVALID_ARGUMENT: the arguments break the tool's input schema; field and expected say where "
         "and what -> fix_arguments"),
        ("- VERSION_MISMATCH: the call is shaped like another version of the tool; migration says how "
         "to update it -> fix_arguments"),
        "- INTERNAL: a defect in the tool; give the user the ref -> stop_and_tell_user",
        ("- TIMEOUT or UNAVAILABLE: the tool missed its deadline or is overloaded -> the action in the "
         "error (a tool's description lists the codes it retries)"),
        ("Never invent a result after an error. When the error carries a budget that is exhausted, stop "
         "retrying. partial_results, when present, are real but incomplete."),
    ]
    return "\n".join(lines)


def _purpose(contract: Contract) -> list[str]:
    """The author's summary and description as lines, the summary left out when the description
    already opens with it (a summary is usually the description's first sentence)."""
    summary = " ".join(contract.summary.split())
    # blank lines go (they cost tokens and say nothing); indentation stays (nested lists)
    description = [line.rstrip() for line in contract.description.strip().splitlines() if line.strip()]
    if not description:
        return [_sentence(summary)] if summary else []
    opening = _SENTENCE_END.split(description[0], maxsplit=1)[0]
    if not summary or _plain(description[0]).startswith(_plain(summary)) or _plain(opening) == _plain(summary):
        return description
    return [_sentence(summary) + " " + description[0], *description[1:]]


def _one_line(text: str) -> str:
    """``text`` for a line of its own: every run of whitespace (\\r, U+2028, U+0085 too: a model
    reads each as a line break, so a text could start what looks like a section) is one space."""
    return " ".join(str(text).split())


def _plain(text: str) -> str:
    return " ".join(text.split()).rstrip(".!?:; ").lower()


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
        description = _one_line(sub.get("description", ""))
        lines.append(text + (": " + description if description else ""))
    if schema.get("additionalProperties") is False and properties:
        lines.append("No other parameters are accepted.")
    return lines


def _resolve(sub: Mapping[str, Any], root: Mapping[str, Any]) -> Mapping[str, Any]:
    """The schema a local ``$ref`` names (a pointer, percent-encoded or not, or an ``$anchor``)."""
    ref = sub.get("$ref")
    target = local_ref_pointer(root, ref) if isinstance(ref, str) else None
    node = resolve_pointer(root, target) if target else MISSING
    return node if isinstance(node, Mapping) else sub


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


def _deprecation(contract: Contract) -> str:
    deprecation = contract.deprecation
    if deprecation is None:
        return ""
    text = "DEPRECATED"
    if deprecation.since:
        text += f" since {_one_line(deprecation.since)}"
    if deprecation.sunset:
        text += f", removed after {_one_line(deprecation.sunset)}"
    text += "."
    if deprecation.replacement:
        text += f" Use {_one_line(deprecation.replacement)} instead."
    if deprecation.message:
        text += " " + _sentence(_one_line(deprecation.message))
    return text


def effective_action(contract: Contract, code: str, action: str | None = None,
                     retryable: bool | None = None) -> str:
    """The action the runtime will send: the declared one, else the code's default, except that a
    transient code missing from ``retry.retryable_codes`` must not invite a retry."""
    if action is not None:
        return action
    if retry_withheld(code, retryable, action, contract.retry.retryable_codes):
        return "stop_and_tell_user"
    return CODES[code].action


def listed_errors(contract: Contract) -> list[ErrorSpec]:
    """The declared errors the description lists: those the model can plan for. Left out: a generic
    code (the snippet explains it) and a retried transient code (the facts line names it), unless
    the error names a field or changes the code's usual action."""
    listed = []
    for spec in contract.errors:
        action = effective_action(contract, spec.code, spec.action, spec.retryable)
        usual = action == CODES[spec.code].action
        covered = spec.code in GENERIC_CODES or (
            action == "retry_later" and spec.code in contract.retry.retryable_codes)
        if spec.field or not usual or not covered:
            listed.append(spec)
    return listed


def _errors(contract: Contract) -> list[str]:
    lines = []
    for spec in listed_errors(contract):
        where = f" [{_one_line(spec.field)}]" if spec.field else ""
        action = effective_action(contract, spec.code, spec.action, spec.retryable)
        lines.append(f"- {spec.code}{where}: {agreeing_message(spec.message, action, spec.code)} -> {action}")
    for rule in contract.preconditions:  # refused by the guard before the tool runs
        action = CODES[rule.code].action
        lines.append(f"- {rule.code} (when {_one_line(condition_words(rule.when))}): "
                     f"{agreeing_message(rule.message, action, rule.code)} -> {action}")
    if contract.migrations:
        lines.append("- VERSION_MISMATCH: the arguments match an older version of this tool; apply the "
                     f"migration in the error -> {CODES['VERSION_MISMATCH'].action}")
    return lines


def agreeing_message(message: str, action: str, code: str) -> str:
    """``message`` without the sentences that contradict ``action``: a stop or escalate action never
    comes with an invitation to call again (an author's retry advice for a code the contract does not
    retry, say). Falls back to the code's meaning when nothing is left."""
    sentences = [s for s in _SENTENCE_END.split(" ".join(message.split())) if s]
    if action in ("stop_and_tell_user", "escalate"):
        sentences = [s for s in sentences if not invites_retry(s)]
    return " ".join(sentences) or CODES[code].meaning


def invites_retry(sentence: str) -> bool:
    """Whether a sentence tells the model to call again (and does not say not to)."""
    match = _INVITES_RETRY.search(sentence)
    return match is not None and not _NEGATION.search(sentence[: match.start()])


def _facts(contract: Contract) -> str:
    """Timeout and retry facts, one line."""
    parts = []
    if contract.timeout.seconds is not None:
        parts.append(f"Timeout {_num(contract.timeout.seconds)} s"
                     + (" (long-running)." if contract.timeout.long_running else "."))
    retry = contract.retry
    if not retry.retryable_codes:
        parts.append("No error is retried unchanged.")
    else:
        backoff = retry.backoff
        text = (f"Retry {', '.join(retry.retryable_codes)} with backoff "
                f"{_num(backoff.initial)}-{_num(backoff.maximum)} s")
        if retry.failure_budget is not None:
            text += (f"; stop after {_num(retry.failure_budget)} failures in a row" if retry.failure_budget != 1
                     else "; stop after 1 failure")
        parts.append(text + ".")
    return " ".join(parts)


def _num(value: Any) -> str:
    """A number as the model reads it: ``8``, ``0.5``; one too large to matter in short form (``1e+308``,
    not its 309 digits, which every request would pay for)."""
    if isinstance(value, (int, float)) and not isinstance(value, bool) and abs(value) >= 1e15:
        return f"{float(value):.6g}"
    if isinstance(value, float) and value.is_integer():
        return str(int(value))
    return str(value)


def _json(value: Any) -> str:
    return json.dumps(value, ensure_ascii=False)
