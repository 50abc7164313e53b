"""Run ids: Spark's partition escaping (expected names by hand from Spark's list of escaped
characters) and its inverse over any printable text."""

from __future__ import annotations

import re
from pathlib import Path

import pytest
from hypothesis import given
from hypothesis import strategies as st

from quality_py.errors import ModelError
from quality_py.gate.run_ids import (
    MAX_RUN_ID,
    escape_value,
    partition_directory,
    require_run_id,
    unescape_value,
)

BY_HAND = {
    "scheduled__2026-11-23T10:00:00+00:00": "scheduled__2026-11-23T10%3A00%3A00+00%3A00",
    "2026-11-23 10:00:00": "2026-11-23 10%3A00%3A00",
    "a/b=c%d": "a%2Fb%3Dc%25d",
    'q"#*?\\': "q%22%23%2A%3F%5C",
    "{[x]}^'": "%7B%5Bx%5D}%5E%27",
    "élan 東京": "élan 東京",
    "nightly_42.1-a": "nightly_42.1-a",
}


@pytest.mark.parametrize(("value", "name"), BY_HAND.items())
def test_escaping_is_sparks(value: str, name: str) -> None:
    assert escape_value(value) == name
    assert unescape_value(name) == value


@given(st.text(st.characters(codec="utf-8"), min_size=1, max_size=MAX_RUN_ID))
def test_every_printable_id_round_trips_and_names_one_directory(text: str) -> None:
    directory = partition_directory("qp_run_id", text)
    assert "/" not in directory and ":" not in directory
    assert directory.count("=") == 1
    assert unescape_value(directory.split("=", 1)[1]) == text
    refused = not text.isprintable() or text.strip() != text or len(directory.encode()) > 255
    if refused:  # refused ids say why, in one line
        with pytest.raises(ModelError) as err:
            require_run_id(text)
        assert err.value.code == "INVALID_ID"
        assert "\n" not in str(err.value)
    else:
        assert require_run_id(text) == text


@given(st.text(min_size=1, max_size=40), st.text(min_size=1, max_size=40))
def test_distinct_ids_name_distinct_directories(a: str, b: str) -> None:
    if a != b:
        assert escape_value(a) != escape_value(b)


def test_a_number_from_yaml_is_refused_with_the_way_out() -> None:
    with pytest.raises(ModelError, match="quote it in a YAML file"):
        require_run_id(918273645)


def test_partition_directories_are_named_in_one_place() -> None:
    """Every directory named after a partition value goes through ``partition_directory``: no
    module of the package builds ``column=value`` by hand."""
    root = Path(__file__).resolve().parents[2] / "quality_py"
    by_hand = re.compile(r"partition\w*\}=|qp_run_id=\{")
    found = [
        str(p.relative_to(root))
        for p in root.rglob("*.py")
        if by_hand.search(p.read_text(encoding="utf-8"))
    ]
    assert found == []
