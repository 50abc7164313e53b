"""DQX's check functions that do not convert, each with the reason (``convert --from dqx``
lists a check calling one with it; docs/migrating.md states them)."""

from __future__ import annotations

#: DQX's spatial checks (geo/check_funcs.py)
GEO_FUNCTIONS = (
    "is_geometry", "is_geography", "is_point", "is_linestring", "is_polygon", "is_multipoint",
    "is_multilinestring", "is_multipolygon", "is_geometrycollection", "is_ogc_valid",
    "is_non_empty_geometry", "is_not_null_island", "has_dimension", "has_x_coordinate_between",
    "has_y_coordinate_between", "is_area_equal_to", "is_area_not_equal_to",
    "is_area_not_greater_than", "is_area_not_less_than", "is_num_points_equal_to",
    "is_num_points_not_equal_to", "is_num_points_not_greater_than", "is_num_points_not_less_than",
    "are_polygons_mutually_disjoint", "is_geo_contains", "is_geo_covers", "is_geo_intersects",
    "is_geo_touches", "is_geo_within",
)  # fmt: skip

_ISO = (
    "thousands of codes (ISO 3166-2, ISO 639) that DQX reads from lists it ships: write "
    "in_reference with a view of the codes you accept"
)
_GEO = "a spatial function of Databricks (ST_*), which Spark does not have"
#: DQX's check functions (databricks/labs/dqx at 911f68f: check_funcs.py, geo/, pii/,
#: anomaly/) that do not convert, each with the reason (docs/migrating.md lists them).
UNMAPPED_FUNCTIONS: dict[str, str] = {
    "is_valid_national_id": "DQX's patterns use look-aheads and a back-reference, which the "
    "regex check refuses",
    "is_valid_subdivision_code": _ISO,
    "is_valid_language_code": _ISO,
    "has_no_outliers": "a median absolute deviation over the data set: use a dataset check "
    "(has_min, has_max, anomaly checks) on the column",
    "has_no_aggr_outliers": "an anomaly test of aggregates over time windows: use the history's "
    "anomaly checks",
    "aggr_matches_dataset": "compares with another table read by name",
    "compare_datasets": "compares with another table read by name, row by row",
    "is_data_fresh_per_time_window": "counts rows per time window against the clock: use a "
    "dataset check",
    "has_no_gaps_per_time_window": "gaps per time window: use a dataset check",
    "has_valid_json_schema": "parses with a schema given as a Spark type: use from_json in a "
    "sql_expression",
    "does_not_contain_pii": "a Presidio model run in Python",
    "has_no_row_anomalies": "a trained anomaly model run in Python",
    **dict.fromkeys(GEO_FUNCTIONS, _GEO),
}
