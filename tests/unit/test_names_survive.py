"""Names that survive every reader (issue 53, point 4): a page, a dataset's page and a
partition directory are derived from run ids, tags and suite ids so that two different inputs
never give one name, and no name is one that Spark, Hadoop or a browser hides.

The hidden-name rule is Spark's ``InMemoryFileIndex.shouldFilterOutPathName`` read as a fact: a
name starting with ``.``, or with ``_`` and holding no ``=``, or ending in ``._COPYING_``.
"""

from __future__ import annotations

from datetime import datetime, timedelta, timezone

import pytest
from hypothesis import given
from hypothesis import strategies as st

from quality_py.errors import ModelError
from quality_py.gate.run_ids import partition_directory, require_run_id
from quality_py.history.records import run_page
from quality_py.model.file_names import MAX_NAME, decode_part, encode_part, file_name
from quality_py.report.site_model import check_path, dataset_slug, rule_path


def _hidden(name: str) -> bool:  # Spark's rule, written out again here from its source
    return (
        name.startswith(".")
        or (name.startswith("_") and "=" not in name)
        or name.endswith("._COPYING_")
    )


texts = st.text(min_size=0, max_size=60)
ids = st.text(st.characters(blacklist_categories=("Cs",)), min_size=1, max_size=200)


@given(texts)
def test_a_part_reads_back(text: str) -> None:
    assert decode_part(encode_part(text)) == text


@given(st.lists(texts, max_size=5), st.lists(texts, max_size=5))
def test_different_parts_never_share_a_name(a: list[str], b: list[str]) -> None:
    if a != b:
        assert file_name("page", *a) != file_name("page", *b)


@given(st.lists(st.text(max_size=400), max_size=4))
def test_no_name_is_hidden_special_or_too_long(parts: list[str]) -> None:
    name = file_name("run", *parts)
    assert not _hidden(name) and len(name.encode()) <= MAX_NAME
    assert name == name.lower()  # a reader that ignores case never merges two names
    assert "/" not in name and "\\" not in name and ":" not in name and " " not in name
    assert all(c.isascii() and c.isprintable() for c in name)


def test_a_year_of_hourly_runs_with_a_long_common_prefix_has_one_page_each() -> None:
    # the case that collided: run ids sharing a long prefix, a page told apart by 6 hex digits
    start = datetime(2026, 1, 1, tzinfo=timezone.utc)
    pages = set()
    for hour in range(24 * 365):
        when = start + timedelta(hours=hour)
        run_id = f"scheduled__backfill_of_the_orders_table_{when:%Y-%m-%dT%H:%M:%S}+00:00"
        pages.add(run_page("quality_run", run_id, when))
    assert len(pages) == 24 * 365


def test_datasets_whose_tags_join_to_the_same_text_have_their_own_pages() -> None:
    # "a=b c=d" read as one tag or two: the old page name joined them with spaces
    one = dataset_slug("1", [("a", "b c=d")])
    two = dataset_slug("1", [("a", "b"), ("c", "d")])
    assert one != two
    assert rule_path(one, "101") != rule_path(two, "101")
    assert check_path(one, "k") != check_path(two, "k")
    # a dataset name and a key split differently never meet either
    assert rule_path("a-b", "c") != rule_path("a", "b-c")


@given(ids)
def test_an_accepted_run_id_names_a_directory_every_reader_lists(run_id: str) -> None:
    try:
        require_run_id(run_id)
    except ModelError:
        return
    assert not _hidden(partition_directory("qp_run_id", run_id))


@pytest.mark.parametrize("run_id", ["backfill._COPYING_", "x._COPYING_"])
def test_a_run_id_that_would_hide_its_rows_is_refused(run_id: str) -> None:
    with pytest.raises(ModelError, match="hidden from every reader") as err:
        require_run_id(run_id)
    assert err.value.code == "INVALID_ID"
