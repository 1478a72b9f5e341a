"""SemVer 2.0 precedence of contract versions (contractgen/manifest/semver.py), and its agreement with
PEP 440 (``packaging``, which reads migration ranges) on every version ``check`` accepts."""

from __future__ import annotations

from hypothesis import given
from hypothesis import strategies as st
from packaging.version import Version

from contractgen.manifest.semver import parse, pep440_disagreement, same_version, sort_key


def test_the_precedence_example_of_the_semver_spec() -> None:
    """SemVer 2.0, section 11: 1.0.0-alpha < 1.0.0-alpha.1 < 1.0.0-alpha.beta < 1.0.0-beta <
    1.0.0-beta.2 < 1.0.0-beta.11 < 1.0.0-rc.1 < 1.0.0 (numeric identifiers compare as numbers)."""
    ordered = ["1.0.0-alpha", "1.0.0-alpha.1", "1.0.0-alpha.beta", "1.0.0-beta", "1.0.0-beta.2",
               "1.0.0-beta.11", "1.0.0-rc.1", "1.0.0", "1.9.0", "1.10.0", "2.0.0-rc.1", "2.0.0"]
    shuffled = ordered[1::2] + ordered[::2]
    assert sorted(shuffled, key=sort_key) == ordered


def test_build_metadata_does_not_count() -> None:
    assert same_version("1.0.0", "1.0.0+build.2")
    assert same_version("1.0.0-rc.1+a", "1.0.0-rc.1+b")
    assert parse("1.0.0+build.2") == parse("1.0.0") and hash(parse("1.0.0+build.2")) == hash(parse("1.0.0"))
    assert not same_version("1.0.0", "1.0.1") and not same_version("1.0.0-rc.1", "1.0.0")
    # PEP 440 reads the metadata as a local version, ordered above the release: the reason for this module
    assert Version("1.0.0+build.2") > Version("1.0.0")


def test_what_is_not_semver_is_refused() -> None:
    for text in ("01.0.0", "1.01.0", "1.0.0-01", "1.0", "v1.0.0", "1.0.0-", "1.0.0+", "1.0.0-a..b", ""):
        assert parse(text) is None, text


def test_pre_releases_pep440_orders_otherwise_are_named() -> None:
    """1.0.0-1 is a post-release to PEP 440 (above 1.0.0, SemVer puts it below); dev sorts below alpha
    there; rc10 is below rc2 in SemVer; c and pre mean rc in PEP 440."""
    for text in ("1.0.0-1", "1.0.0-post.1", "1.0.0-dev.1", "1.0.0-rc1", "1.0.0-c.1", "1.0.0-pre.1", "1.0.0-a.1"):
        assert pep440_disagreement(text) is not None, text
    for text in ("1.0.0", "1.0.0+build.7", "1.0.0-alpha", "1.0.0-alpha.1", "1.0.0-beta.2", "1.0.0-rc.10"):
        assert pep440_disagreement(text) is None, text


_AGREED = st.builds(
    lambda core, pre, build: ".".join(map(str, core)) + pre + build,
    st.tuples(*(st.integers(0, 12),) * 3),
    st.one_of(st.just(""), st.sampled_from(["alpha", "beta", "rc"]).flatmap(
        lambda tag: st.one_of(st.just(f"-{tag}"), st.integers(0, 12).map(lambda n: f"-{tag}.{n}")))),
    st.one_of(st.just(""), st.sampled_from(["+build.7", "+b2", "+sha.5114f85"])),
)


@given(_AGREED, _AGREED)
def test_versions_check_accepts_are_ordered_alike_by_semver_and_pep440(a: str, b: str) -> None:
    """On every version the check lets through, SemVer and PEP 440 (build metadata dropped) agree,
    except that PEP 440 reads ``alpha`` as ``alpha.0`` (the check's duplicate-version sees them equal)."""
    if pep440_disagreement(a) or pep440_disagreement(b):
        return
    left, right = parse(a), parse(b)
    assert left is not None and right is not None
    pa, pb = Version(Version(a).public), Version(Version(b).public)
    if left < right:
        assert pa <= pb, (a, b)
    elif left == right:
        assert pa == pb, (a, b)
