"""Format inclusions (contractgen/diff/format_inclusion.py): the data agrees with the guard's own
validator, and a change between two related formats is judged honestly whichever of them this
environment's jsonschema can assert (a checker added here stands for the optional package)."""

from __future__ import annotations

from collections.abc import Iterator
from datetime import date
from pathlib import Path

import jsonschema
import jsonschema_rs
import pytest

from contractgen.diff import Context, DiffSettings, Level, containment, generate, run_diff
from contractgen.diff.format_inclusion import INCLUSIONS, gap, includes, unconfirmed_gap
from contractgen.diff.pairing import pair_files
from contractgen.manifest.load import load_contracts
from contractgen.runtime import reference_validator

CASES = Path(__file__).parent / "cases" / "diff"


def _guard_accepts(fmt: str, text: str) -> bool:
    return bool(jsonschema_rs.validator_for({"format": fmt}, validate_formats=True).is_valid(text))


@pytest.mark.parametrize(("narrower", "wider"), sorted(INCLUSIONS))
def test_each_gap_text_is_of_the_wider_format_only_as_the_guard_reads_them(narrower: str, wider: str) -> None:
    """jsonschema-rs (the guard's validator, formats asserted) asserts all of these formats."""
    assert includes(wider, narrower) and not includes(narrower, wider)
    for text in gap(narrower, wider):
        assert _guard_accepts(wider, text) and not _guard_accepts(narrower, text), text
    sample = generate.FORMAT_SAMPLES[narrower]
    assert _guard_accepts(narrower, sample) and _guard_accepts(wider, sample)


def test_unrelated_formats_are_no_inclusion() -> None:
    assert not includes("date-time", "date") and not includes("date", "date-time")
    assert not includes("iri", "uri-reference") and gap("date", "date-time") == ()


def _checker(*formats: str) -> jsonschema.FormatChecker:
    """jsonschema's 2020-12 format checker limited to ``formats`` (as if the others' packages were missing)."""
    checker = jsonschema.FormatChecker([])
    checker.checkers = {k: v for k, v in jsonschema.Draft202012Validator.FORMAT_CHECKER.checkers.items()
                        if k in formats}
    return checker


def test_the_reason_names_what_stands_in_the_way() -> None:
    without_idna = _checker("email", "idn-email")
    without_idna.checks("hostname")(lambda text: _guard_accepts("hostname", text))
    assert "it needs idna" in (unconfirmed_gap("hostname", "idn-hostname", without_idna) or "")
    assert "accepts them as email too" in (unconfirmed_gap("email", "idn-email", without_idna) or "")
    both = _checker("idn-hostname")
    both.checks("hostname")(lambda text: _guard_accepts("hostname", text))
    assert unconfirmed_gap("hostname", "idn-hostname", both) is None


@pytest.fixture(params=[True, False], ids=["with-fqdn", "without-fqdn"])
def hostname_checked(request: pytest.FixtureRequest, monkeypatch: pytest.MonkeyPatch) -> Iterator[bool]:
    """jsonschema with idna (idn-hostname asserted), and with or without ``fqdn`` (``hostname``
    asserted, read as the guard reads it, or not asserted at all)."""
    pytest.importorskip("idna")
    for checkers in (jsonschema.Draft202012Validator.FORMAT_CHECKER.checkers, jsonschema.FormatChecker.checkers):
        if request.param:
            checker = (lambda text: not isinstance(text, str) or _guard_accepts("hostname", text), ())
            monkeypatch.setitem(checkers, "hostname", checker)  # a checker is built from the class's dict
        else:
            monkeypatch.delitem(checkers, "hostname", raising=False)
    _forget()
    yield request.param
    monkeypatch.undo()
    _forget()


def _forget() -> None:
    reference_validator.format_checker.cache_clear()
    reference_validator.validator_class.cache_clear()
    generate._VALIDATORS.clear()
    containment.clear_caches()


def _findings(case: Path) -> dict[str, tuple[Level, object, str]]:
    old, new = load_contracts([case / "old"]), load_contracts([case / "new"])
    pairs, changes = pair_files(old.contracts, new.contracts)
    report = run_diff(pairs, changes, DiffSettings(), Context(today=date(2026, 11, 30)))
    return {f.pointer: (f.level, f.witness, f.message + (f.witness_note or ""))
            for f in report.findings if f.rule != "major-bump-required"}


def test_idn_hostname_against_hostname_is_judged_by_what_jsonschema_asserts(hostname_checked: bool) -> None:
    """With fqdn, a non-ASCII host name (例子.广告) shows both the input narrowing and the output
    widening (ERR); without it jsonschema cannot confirm it (WARN, saying fqdn is missing).
    email against idn-email stays WARN either way: jsonschema reads them alike."""
    found = _findings(CASES / "proof-format-idn")
    for pointer, name in (("/input/properties/host", "host"), ("/output/properties/server", "server")):
        level, witness, text = found[pointer]
        if hostname_checked:
            assert level is Level.BREAKING and witness[name] == "例子.广告", (pointer, found[pointer])  # type: ignore[index]
        else:
            assert level is Level.DANGEROUS and "it needs fqdn" in text, (pointer, found[pointer])
    assert found["/input/properties/to"][0] is Level.DANGEROUS
    assert found["/output/properties/reply_to"][0] is Level.DANGEROUS


def test_a_widened_input_hostname_is_safe_where_jsonschema_checks_both(hostname_checked: bool,
                                                                       tmp_path: Path) -> None:
    """hostname -> idn-hostname contains the old format; where jsonschema asserts idn-hostname and not
    hostname, the text "" (no hostname) passes the old check and fails the new one: ERR, and the
    message says it is this environment's reading."""
    for side, fmt in (("old", "hostname"), ("new", "idn-hostname")):
        folder = tmp_path / "host" / side
        folder.mkdir(parents=True)
        text = (CASES / "proof-format-widened" / side / "demo.yaml").read_text("utf-8")
        (folder / "demo.yaml").write_text(text.replace("format: idn-email", f"format: {fmt}")
                                          .replace("format: email", f"format: {fmt}"), "utf-8")
    level, witness, text = _findings(tmp_path / "host")["/input/properties/to"]
    if hostname_checked:
        assert level is Level.SAFE and "a widening" in text
    else:
        assert level is Level.BREAKING and "it needs fqdn" in text and witness["to"] == "", text  # type: ignore[index]


def test_the_environment_independent_widenings_are_safe() -> None:
    """email < idn-email, uri < iri, uri-reference < iri-reference: INFO whatever is installed."""
    found = _findings(CASES / "proof-format-widened")
    assert {level for level, _, _ in found.values()} == {Level.SAFE}, found
