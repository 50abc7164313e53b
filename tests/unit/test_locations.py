"""Locations: every spelling of one place is one identity, and overlap is by path segments.

Property tests generate paths and respell them (``.`` and ``..`` segments, doubled and trailing
slashes, ``file:`` URIs, symlinks, relative to the working directory, scheme aliases and host
case for URIs); the expected relation is known by construction, never computed by the code."""

from __future__ import annotations

import os
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from quality_py.errors import OutputOverlapError
from quality_py.gate.locations import location, overlap, require_disjoint

SEGMENT = st.text("abcdefgh_-1", min_size=1, max_size=6).filter(lambda s: s not in (".", ".."))
SEGMENTS = st.lists(SEGMENT, min_size=1, max_size=4)


def _respell(parts: list[str], draw: st.DrawFn) -> str:
    """``parts`` written another way that means the same path."""
    out: list[str] = []
    for part in parts:
        kind = draw(st.sampled_from(["plain", "dot", "detour", "double"]))
        if kind == "dot":
            out += [".", part]
        elif kind == "detour":
            out += [draw(SEGMENT), "..", part]
        elif kind == "double":
            out += ["", part]  # a doubled slash
        else:
            out.append(part)
    return "/".join(out) + draw(st.sampled_from(["", "/", "/."]))


@st.composite
def spellings(draw: st.DrawFn) -> tuple[list[str], str]:
    parts = draw(SEGMENTS)
    return parts, _respell(parts, draw)


@settings(max_examples=60, deadline=None)
@given(spellings(), st.sampled_from(["", "file:", "file://"]))
def test_local_spellings_are_one_place(
    tmp_path_factory: pytest.TempPathFactory, case: tuple[list[str], str], prefix: str
) -> None:
    root = tmp_path_factory.getbasetemp()
    parts, spelt = case
    plain = location(str(root.joinpath(*parts)))
    other = location(prefix + str(root) + "/" + spelt)
    assert overlap(plain, other) == "is"
    assert overlap(plain, location(str(root.joinpath(*parts, "child")))) == "inside"
    assert overlap(location(str(root.joinpath(*parts, "child"))), plain) == "contains"
    sibling = location(str(root.joinpath(*parts[:-1], parts[-1] + "x")))
    assert overlap(plain, sibling) is None  # a shared string prefix is no overlap


@settings(max_examples=40, deadline=None)
@given(spellings(), st.sampled_from(["s3", "s3a", "s3n"]), st.sampled_from(["bucket", "BUCKET"]))
def test_uri_spellings_are_one_place(case: tuple[list[str], str], scheme: str, host: str) -> None:
    parts, spelt = case
    plain = location("s3://bucket/" + "/".join(parts))
    assert overlap(plain, location(f"{scheme}://{host}/{spelt}")) == "is"
    assert overlap(plain, location("gs://bucket/" + "/".join(parts))) is None
    assert overlap(plain, location("s3://other/" + "/".join(parts))) is None


def test_symlinks_and_relative_paths_resolve(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    (tmp_path / "data" / "in").mkdir(parents=True)
    os.symlink(tmp_path / "data", tmp_path / "alias")
    monkeypatch.chdir(tmp_path)
    assert overlap(location(str(tmp_path / "data" / "in")), location("alias/in")) == "is"
    assert overlap(location("data", table=False), location("./alias/in/quarantine")) == "inside"


def test_databricks_views_are_their_uris() -> None:
    assert overlap(location("dbfs:/mnt/raw"), location("/dbfs/mnt/raw/q")) == "inside"
    assert overlap(location("/Volumes/c/s/v/in"), location("dbfs:/Volumes/c/s/v/in")) == "is"


def test_tables_by_qualified_name() -> None:
    current = ("spark_catalog", "default")
    assert overlap(location("t", current=current), location("Default.T", current=current)) == "is"
    assert overlap(location("main.s.t"), location("`main`.`s`.`t`")) == "is"
    assert overlap(location("main.s.t"), location("main.s.t2")) is None


def test_refusals_name_both_places() -> None:
    with pytest.raises(
        OutputOverlapError, match="the stats output /a/b/s is inside the valid output /a/b"
    ):
        require_disjoint([], [("valid", location("/a/b")), ("stats", location("/a/b/s"))])
    require_disjoint([("input", location("/a/in"))], [("valid", location("/a/valid"))])
