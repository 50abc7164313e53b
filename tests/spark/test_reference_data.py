"""Views and lookup maps declared as data (io/views.py) and map_lookup/map_contains in rules.

Expected values are worked out by hand from the small tables written here.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from quality_py import Id, Rule, RuleSet, RuleSuite, add_data_quality
from quality_py.cli import main
from quality_py.errors import LibraryFunctionError, ReferenceDataError
from quality_py.io.views import MapConfig, ViewConfig, load_view_file, load_views

pytestmark = pytest.mark.semantics  # expected values depend on what Spark computes or refuses

AIRLINES = "carrier,name\nAA,American\nUA,United\nB6,JetBlue\n"
FLIGHTS = "id,carrier,dep_delay\n1,AA,5\n2,UA,-3\n3,ZZ,10\n4,,0\n"
VIEWS = """
views:
  - {name: qp_airlines, source: airlines.csv}
  - name: qp_big_carriers
    sql: SELECT carrier, name FROM qp_airlines WHERE carrier <> 'B6'
maps:
  - {name: qp_carrier_names, view: qp_big_carriers, key: carrier, value: "named_struct('name', name)"}
"""


@pytest.fixture
def files(tmp_path: Path) -> Path:
    (tmp_path / "airlines.csv").write_text(AIRLINES)
    (tmp_path / "flights.csv").write_text(FLIGHTS)
    (tmp_path / "views.yaml").write_text(VIEWS)
    return tmp_path


def _suite(*rules: Rule, views: tuple[str, ...] = ()) -> RuleSuite:
    suite = RuleSuite(Id(1, 1), [RuleSet(Id(2, 1), list(rules))])
    return suite.with_policy(suite.policy.with_views(*views))


def test_views_load_in_dependency_order_and_maps_look_up(spark: Any, files: Path) -> None:
    views, maps = load_view_file(files / "views.yaml")
    loaded = load_views(spark, views, maps)
    assert loaded.views == ("qp_airlines", "qp_big_carriers")  # the SQL view after its source
    assert loaded.maps == ("qp_carrier_names",) and loaded.map_sizes == {"qp_carrier_names": 2}
    flights = (
        spark.read.option("header", True)
        .option("inferSchema", True)
        .csv(str(files / "flights.csv"))
    )
    suite = _suite(
        Rule(Id(10, 1), "map_contains('qp_carrier_names', carrier)"),
        Rule(Id(11, 1), "mapLookup('qp_carrier_names', carrier).name = 'United'"),
        Rule(Id(12, 1), "exists(SELECT 1 FROM qp_big_carriers b WHERE b.carrier = main.carrier)"),
        views=loaded.names,
    )
    out = add_data_quality(flights, suite, layout="compact").orderBy("id").collect()
    codes = [list(r.DataQuality.ruleResults) for r in out]
    # AA: known, not United; UA: known, United; ZZ: unknown; null carrier: unknown
    assert codes == [
        [100000, 0, 100000],
        [100000, 100000, 100000],
        [0, 0, 0],
        [0, 0, 0],
    ]


def test_a_rule_column_named_key_or_value_cannot_bind_to_the_map(spark: Any) -> None:
    spark.createDataFrame(
        [("k1", "one"), ("k2", "two")], "key string, value string"
    ).createOrReplaceTempView("qp_pairs")
    loaded = load_views(spark, (), (MapConfig("qp_pair_map", "qp_pairs", "key", "value"),))
    # the input has its own key and value columns; k2 maps to 'two', k3 is absent
    df = spark.createDataFrame([("k2", "zzz"), ("k3", "one")], "key string, value string")
    suite = _suite(
        Rule(Id(10, 1), "map_lookup('qp_pair_map', key) = 'two'"),
        Rule(Id(11, 1), "map_contains('qp_pair_map', key)"),
        views=loaded.names,
    )
    out = add_data_quality(df, suite, layout="compact").orderBy("key").collect()
    assert [list(r.DataQuality.ruleResults) for r in out] == [[100000, 100000], [0, 0]]


def test_a_map_the_policy_does_not_name_is_refused(spark: Any) -> None:
    df = spark.createDataFrame([("AA",)], "carrier string")
    with pytest.raises(LibraryFunctionError) as err:
        add_data_quality(df, _suite(Rule(Id(10, 1), "map_contains('secret', carrier)")))
    assert err.value.code == "POLICY" and err.value.item_id == Id(10, 1)


def test_problems_are_reported_together_before_anything_loads(spark: Any) -> None:
    views = (
        ViewConfig("qp_a", sql="SELECT * FROM qp_b"),
        ViewConfig("qp_b", sql="SELECT * FROM qp_a"),
        ViewConfig("qp_c", sql="SELECT * FROM qp_nowhere"),
        ViewConfig("qp_c", source="x.csv", format="csv"),
    )
    maps = (MapConfig("qp_m", "qp_missing", "k", "v"),)
    with pytest.raises(ReferenceDataError) as err:
        load_views(spark, views, maps)
    text = err.value.message
    for part in ("declared twice: qp_c", "qp_nowhere", "cycle: qp_a, qp_b", "qp_missing"):
        assert part in text, text
    assert not {"qp_a", "qp_b", "qp_c", "qp_m"} & {t.name for t in spark.catalog.listTables()}


def test_a_map_whose_keys_repeat_is_refused(spark: Any) -> None:
    spark.createDataFrame(
        [("a", 1), ("a", 2), ("b", 3)], "k string, v int"
    ).createOrReplaceTempView("qp_dupes")
    with pytest.raises(ReferenceDataError, match=r"keys repeat .*'a'"):
        load_views(spark, (), (MapConfig("qp_dupe_map", "qp_dupes", "k", "v"),))


def test_view_sql_must_be_a_query(spark: Any) -> None:
    with pytest.raises(ReferenceDataError, match="one SELECT"):
        load_views(spark, (ViewConfig("qp_x", sql="DROP TABLE qp_airlines"),))


def test_the_command_line_loads_reference_data(
    spark: Any, files: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    (files / "rules.yaml").write_text(
        """
suite: {id: 1, version: 1}
rule_sets:
  - id: 2
    rules:
      - {id: 10, expression: "map_contains('qp_carrier_names', carrier)", action_if_failed: drop}
"""
    )
    from quality_py.io.blooms import build_bloom, save_bloom

    # a bloom of the known flight ids, stored beside the YAML and declared in it
    ids = spark.createDataFrame([(1,), (3,)], "id int")
    save_bloom(build_bloom(ids, "id", "known_ids"), str(files / "ids.qpbloom"))
    (files / "views.yaml").write_text(
        VIEWS + "blooms:\n  - {name: qp_known_ids, path: ids.qpbloom}\n"
    )
    (files / "rules.yaml").write_text(
        (files / "rules.yaml").read_text()
        + "      - {id: 11, expression: \"bloom_contains(id, 'qp_known_ids')\", action_if_failed: drop}\n"
    )
    code = main(
        [
            "run", str(files / "rules.yaml"), "--input", str(files / "flights.csv"),
            "--views", str(files / "views.yaml"), "--valid", str(files / "valid"),
        ]
    )  # fmt: skip
    assert code == 0, capsys.readouterr().err
    valid = spark.read.parquet(str(files / "valid"))
    # ids 1 and 2 have a known carrier (3: ZZ, 4: none); of those only 1 is a known id
    assert sorted(r.id for r in valid.collect()) == [1]
    assert main(["validate", str(files / "rules.yaml"), "--schema", "id INT, carrier STRING",
                 "--views", str(files / "views.yaml")]) == 0  # fmt: skip


def test_views_declared_in_a_table(spark: Any, files: Path) -> None:
    from quality_py.io.views import views_from_table

    table = spark.createDataFrame(
        [
            (
                "qp_t_top",
                None,
                None,
                "SELECT * FROM qp_t_airlines WHERE carrier = 'UA'",
                None,
                None,
            ),
            ("qp_t_airlines", str(files / "airlines.csv"), "csv", None, "carrier <> 'B6'", None),
        ],
        "name string, source string, format string, sql string, filter string, depends_on string",
    )
    maps = spark.createDataFrame(
        [("qp_t_names", "qp_t_airlines", "carrier", "name")],
        "name string, view string, key string, value string",
    )
    loaded = load_views(spark, *views_from_table(table, maps))
    assert loaded.views == ("qp_t_airlines", "qp_t_top") and loaded.map_sizes == {"qp_t_names": 2}
    assert [r.carrier for r in spark.table("qp_t_top").collect()] == ["UA"]
