"""Format inclusions (contractgen/prover/formats.py): the data agrees with the guard's own
validator, and a change between two related formats is judged alike whatever jsonschema's optional
format packages are installed (the reference validator asks the guard's validator for each format)."""

from __future__ import annotations

from collections.abc import Iterator
from datetime import date
from pathlib import Path

import jsonschema
import jsonschema_rs
import pytest

from contractgen.diff import Context, DiffSettings, Level, run_diff
from contractgen.diff.pairing import pair_files
from contractgen.manifest.load import load_contracts
from contractgen.prover import clear_caches, format_gap, format_includes, unconfirmed_format_gap
from contractgen.prover import instances as prover_instances
from contractgen.prover.formats import INCLUSIONS
from contractgen.runtime import reference_validator
from contractgen.runtime.reference_validator import GUARD_FORMATS

CASES = Path(__file__).parent / "cases" / "diff"


def _guard_accepts(fmt: str, text: str) -> bool:
    return bool(jsonschema_rs.validator_for({"format": fmt}, validate_formats=True).is_valid(text))


@pytest.mark.parametrize(("narrower", "wider"), sorted(INCLUSIONS))
def test_each_gap_text_is_of_the_wider_format_only_as_the_guard_reads_them(narrower: str, wider: str) -> None:
    """jsonschema-rs (the guard's validator, formats asserted) asserts all of these formats."""
    assert format_includes(wider, narrower) and not format_includes(narrower, wider)
    for text in format_gap(narrower, wider):
        assert _guard_accepts(wider, text) and not _guard_accepts(narrower, text), text
    sample = prover_instances.FORMAT_SAMPLES[narrower]
    assert _guard_accepts(narrower, sample) and _guard_accepts(wider, sample)


def test_unrelated_formats_are_no_inclusion() -> None:
    assert not format_includes("date-time", "date") and not format_includes("date", "date-time")
    assert not format_includes("iri", "uri-reference") and format_gap("date", "date-time") == ()


def test_a_gap_the_checker_cannot_confirm_is_said_so() -> None:
    """A checker that reads email and idn-email alike (jsonschema's own) cannot show their difference:
    the finding says why instead of claiming one."""
    alike = jsonschema.FormatChecker(())
    for fmt in ("email", "idn-email"):
        alike.checks(fmt)(lambda text: "@" in text)
    assert "accepts them as email too" in (unconfirmed_format_gap("email", "idn-email", alike) or "")
    assert unconfirmed_format_gap("email", "idn-email") is None  # the reference checker (the guard's reading)


@pytest.fixture(params=["installed", "lax"])
def registry(request: pytest.FixtureRequest, monkeypatch: pytest.MonkeyPatch) -> Iterator[str]:
    """jsonschema's global format registry as installed here, or with every format taking anything (as
    if lax optional packages had registered them): the diff must read both alike."""
    if request.param == "lax":
        for checkers in (jsonschema.Draft202012Validator.FORMAT_CHECKER.checkers, jsonschema.FormatChecker.checkers):
            for fmt in GUARD_FORMATS:
                monkeypatch.setitem(checkers, fmt, (lambda _text: True, ()))
    _forget()
    yield request.param
    monkeypatch.undo()
    _forget()


def _forget() -> None:
    reference_validator.format_checker.cache_clear()
    reference_validator.validator_class.cache_clear()
    clear_caches()


def _findings(case: Path) -> dict[str, tuple[Level, object, str]]:
    old, new = load_contracts([case / "old"]), load_contracts([case / "new"])
    pairs, changes = pair_files(old.contracts, new.contracts)
    report = run_diff(pairs, changes, DiffSettings(), Context(today=date(2026, 11, 30)))
    return {f.pointer: (f.level, f.witness, f.message + (f.witness_note or ""))
            for f in report.findings if f.rule != "major-bump-required"}


@pytest.mark.usefixtures("registry")
def test_a_narrowed_idn_format_is_shown_with_a_text_only_the_wider_one_admits() -> None:
    """idn-hostname -> hostname and idn-email -> email refuse non-ASCII names on the input (ERR, with
    the name as the witness) and admit them on the output; the same whatever jsonschema has installed."""
    found = _findings(CASES / "proof-format-idn")
    for pointer, name, text in (("/input/properties/host", "host", "例子.广告"), ("/input/properties/to", "to", "用户@例子.广告"),
                                ("/output/properties/server", "server", "例子.广告"),
                                ("/output/properties/reply_to", "reply_to", "用户@例子.广告")):
        level, witness, _ = found[pointer]
        assert level is Level.BREAKING and witness[name] == text, (pointer, found[pointer])  # type: ignore[index]


@pytest.mark.usefixtures("registry")
@pytest.mark.parametrize("fmt", ["hostname", "email", "uri", "uri-reference"])
def test_an_input_format_widened_to_its_idn_or_reference_form_is_safe(fmt: str, tmp_path: Path) -> None:
    wider = {"hostname": "idn-hostname", "email": "idn-email", "uri": "iri", "uri-reference": "iri-reference"}[fmt]
    for side, each in (("old", fmt), ("new", wider)):
        folder = tmp_path / "widened" / side
        folder.mkdir(parents=True)
        text = (CASES / "proof-format-widened" / side / "demo.yaml").read_text("utf-8")
        (folder / "demo.yaml").write_text(text.replace("format: idn-email", f"format: {each}")
                                          .replace("format: email", f"format: {each}"), "utf-8")
    level, _, text = _findings(tmp_path / "widened")["/input/properties/to"]
    assert level is Level.SAFE and "a widening" in text, text


def test_the_bundled_widenings_are_safe() -> None:
    """email < idn-email, uri < iri, uri-reference < iri-reference: INFO."""
    found = _findings(CASES / "proof-format-widened")
    assert {level for level, _, _ in found.values()} == {Level.SAFE}, found
