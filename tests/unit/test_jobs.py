"""A quality job is one typed value (issue 39): built from arguments, a dict or a YAML file; the
command line's options build the same value; what is wrong with it is refused before Spark
starts, naming the field. No JVM here: a job that needs none (a YAML ruleset, checked) is
prepared without one."""

from __future__ import annotations

import re
import shlex
from pathlib import Path

import pytest

from quality_py import Outputs, QualityJob, SparkSettings
from quality_py.cli.common import job_of
from quality_py.cli.parser import build_parser
from quality_py.errors import InputError, OutputOverlapError, QualityError
from quality_py.jobs import ReferenceData

ROOT = Path(__file__).resolve().parents[2]
FLIGHTS = str(ROOT / "rulesets" / "flights.yaml")


def test_a_dict_builds_the_job_its_fields_say() -> None:
    job = QualityJob.from_dict(
        {
            "ruleset": "rules.yaml",
            "input": {"path": "data/orders.csv", "format": "csv"},
            "where": "region = 'EU'",
            "views": {"countries": "ref/countries.csv"},
            "outputs": {"valid": "out/v", "quarantine": "out/q", "publish": "direct"},
            "history": "table:main.dq.history",
            "tags": {"table": "orders", "day": 26},
            "keys": ["id", "region"],
            "spark": {
                "remote": "sc://localhost:15002",
                "conf": {"spark.sql.shuffle.partitions": 4},
            },
        }
    )
    assert (job.input, job.format, job.where) == ("data/orders.csv", "csv", "region = 'EU'")
    assert job.views == (("countries", "ref/countries.csv"),)
    assert job.outputs == Outputs(valid="out/v", quarantine="out/q", publish="direct")
    assert job.tags == (("table", "orders"), ("day", "26"))
    assert job.keys == ("id", "region")
    assert job.spark == SparkSettings(
        remote="sc://localhost:15002", conf=(("spark.sql.shuffle.partitions", "4"),)
    )
    assert job.layout == "map" and job.name == "DataQuality"  # the command line's defaults


@pytest.mark.parametrize(
    ("document", "named"),
    [
        ({"ouputs": {"valid": "v"}}, "unknown job field 'ouputs' (did you mean 'outputs'?)"),
        ({"outputs": {"valid": "v", "fromat": "delta"}}, "unknown outputs field 'fromat'"),
        ({"outputs": {"format": "xml"}}, "job field 'outputs.format': 'xml' is none of auto"),
        ({"input": {"path": "a", "table": "b"}}, "input is one of path, table or sample"),
        ({"input": 3}, "job field 'input': expected a path, a table or a DataFrame, not 3"),
        ({"tags": ["a"]}, "job field 'tags'"),
        ({"keys": [1]}, "job field 'keys': expected a list of texts"),
        ({"strict": "yes"}, "job field 'strict': expected true or false"),
        ({"layout": "wide"}, "job field 'layout': 'wide' is none of map, compact"),
        ({"outputs": {"valid": "v", "output": "o"}}, "give output, or valid/quarantine/stats"),
        ([1, 2], "a job is a mapping of fields"),
    ],
)
def test_a_wrong_field_is_refused_naming_it(document: object, named: str) -> None:
    with pytest.raises(InputError) as caught:
        QualityJob.from_dict(document, "orders-job.yaml")  # type: ignore[arg-type]
    assert named in caught.value.message


def test_a_job_file_that_is_not_yaml_names_its_line(tmp_path: Path) -> None:
    path = tmp_path / "job.yaml"
    path.write_text("ruleset: rules.yaml\ninput: [unclosed\n")
    with pytest.raises(InputError) as caught:
        QualityJob.from_yaml(path)
    assert re.match(rf"{re.escape(str(path))}:\d+:\d+: not YAML", caught.value.message)


def test_a_job_file_with_aliases_is_refused(tmp_path: Path) -> None:
    path = tmp_path / "job.yaml"
    path.write_text("ruleset: &r rules.yaml\nhistory: *r\n")
    with pytest.raises(QualityError) as caught:
        QualityJob.from_yaml(path)
    assert str(path) in str(caught.value) and "alias" in str(caught.value)


def test_the_command_line_and_a_job_file_are_the_same_job(tmp_path: Path) -> None:
    argv = ["run", "rules.yaml", "--input", "data/orders.csv", "--where", "amount > 0",
            "--view", "countries=ref/countries.csv", "--valid", "out/v", "--quarantine", "out/q",
            "--history", "out/h", "--tag", "table=orders", "--key", "id,region",
            "--hide-column", "email", "--run-id", "r1", "--notify", "out/events.jsonl",
            "--conf", "spark.sql.shuffle.partitions=4", "--strict"]  # fmt: skip
    (tmp_path / "job.yaml").write_text(
        """
ruleset: rules.yaml
input: data/orders.csv
where: amount > 0
views: {countries: ref/countries.csv}
outputs: {valid: out/v, quarantine: out/q}
history: out/h
tags: {table: orders}
keys: [id, region]
hide_columns: [email]
run_id: r1
notify: [out/events.jsonl]
spark: {conf: {spark.sql.shuffle.partitions: "4"}}
strict: true
"""
    )
    from_cli = job_of(build_parser().parse_args(argv))
    assert from_cli == QualityJob.from_yaml(tmp_path / "job.yaml")


def test_only_a_job_that_reads_data_or_tables_needs_spark() -> None:
    assert not QualityJob(ruleset=FLIGHTS).needs_spark
    assert QualityJob(ruleset=FLIGHTS, schema="a INT").needs_spark
    assert QualityJob(ruleset="rules.csv").needs_spark  # rule tables are read by Spark
    assert QualityJob(ruleset=FLIGHTS, history="table:dq.history").needs_spark
    assert not QualityJob(ruleset=FLIGHTS, history="out/history").needs_spark


def test_a_yaml_job_without_data_prepares_without_spark(tmp_path: Path) -> None:
    rules = tmp_path / "rules.yaml"
    rules.write_text("suite: {id: 1}\nrule_sets: [{id: 5, rules: [{id: 9, expression: a > 0}]}]\n")
    prepared = QualityJob(ruleset=str(rules)).prepare()
    assert prepared.spark is None and prepared.frame is None
    assert prepared.compiled is not None  # rule errors come before any JVM
    assert prepared.suite.rule_count == prepared.compiled.suite.rule_count == 1
    # the flights rules read the sample's views: without them the policy refuses, naming the rule
    with pytest.raises(QualityError, match="known_airline"):
        QualityJob(ruleset=FLIGHTS).prepare()
    assert QualityJob(ruleset=FLIGHTS).prepare(compile=False).suite.rule_count > 0


def test_an_output_over_what_the_job_reads_is_refused_before_spark(tmp_path: Path) -> None:
    data = tmp_path / "orders.csv"
    data.write_text("id\n1\n")
    job = QualityJob(
        ruleset=FLIGHTS,
        input=str(data),
        outputs=Outputs(valid=str(tmp_path / "x" / ".." / "orders.csv")),
    )
    with pytest.raises(OutputOverlapError) as caught:
        job.prepare()
    assert "the valid output" in caught.value.message and "is the input" in caught.value.message
    assert data.read_text() == "id\n1\n"


def test_a_views_file_source_is_read_by_the_job_and_never_written(tmp_path: Path) -> None:
    (tmp_path / "ref").mkdir()
    (tmp_path / "ref" / "airports.csv").write_text("faa\nJFK\n")
    views = tmp_path / "views.yaml"
    views.write_text("views: [{name: airports, source: ref/airports.csv}]\n")
    job = QualityJob(
        ruleset=FLIGHTS,
        input="sample:flights",
        views_file=str(views),
        outputs=Outputs(quarantine=str(tmp_path / "ref")),
    )
    with pytest.raises(OutputOverlapError) as caught:
        job.prepare()
    assert "view 'airports' of the views file" in caught.value.message


def test_the_reference_data_is_one_value_giving_names_and_policy(tmp_path: Path) -> None:
    views = tmp_path / "views.yaml"
    views.write_text("views: [{name: carriers, source: carriers.csv}]\n")
    data = ReferenceData.read({"ports": "ports.csv"}, str(views), input="sample:flights")
    assert data.names == ("ports", "carriers", "airlines", "airports", "planes")
    assert data.policy().allowed_views == {"ports", "carriers", "airlines", "airports", "planes"}
    assert [label for label, _ in data.sources()] == [
        "view 'ports'", "view 'carriers' of the views file",
    ]  # fmt: skip


def test_a_run_without_an_output_is_refused_before_spark() -> None:
    with pytest.raises(InputError) as caught:
        QualityJob(ruleset=FLIGHTS, input="sample:flights").run()
    assert "a run writes somewhere" in caught.value.message
    with pytest.raises(InputError, match="a run needs an input"):
        QualityJob(ruleset=FLIGHTS, outputs=Outputs(valid="v")).run()


def test_the_jobs_doc_command_is_one_the_command_line_takes() -> None:
    doc = (ROOT / "docs" / "jobs.md").read_text(encoding="utf-8")
    (command,) = re.findall(r"^```bash\n(.*?)^```", doc, re.MULTILINE | re.DOTALL)
    words = shlex.split(command)
    args = build_parser().parse_args(words[1:])
    assert (words[0], args.command, args.file, args.json) == (
        "quality-py", "job", "orders-job.yaml", "/tmp/dq/orders.json",
    )  # fmt: skip


def test_the_runs_data_time_is_the_variable_data_time(tmp_path: Path) -> None:
    """``--data-time`` (the tag ``data_time``) is ``${DATA_TIME}`` in the ruleset, unless the
    run gives the variable itself; without either the variable is missing (an error)."""
    rules = tmp_path / "rules.yaml"
    rules.write_text("suite: {id: 1}\nrule_sets: [{id: 5, rules: [{id: 9, expression: "
                     "\"is_recent(ts, '1 day', '${DATA_TIME}')\"}]}]\n")  # fmt: skip

    def text(job: QualityJob) -> str:
        prepared = job.prepare(compile=False)
        return next(r for _, r in prepared.suite.iter_rules()).expression

    dated = QualityJob(ruleset=str(rules), tags={"data_time": "2026-11-23"})
    assert text(dated) == "is_recent(ts, '1 day', '2026-11-23')"
    given = QualityJob(ruleset=str(rules), tags={"data_time": "2026-11-23"},
                       variables={"DATA_TIME": "2026-01-01"})  # fmt: skip
    assert text(given) == "is_recent(ts, '1 day', '2026-01-01')"
    with pytest.raises(QualityError, match="DATA_TIME"):
        QualityJob(ruleset=str(rules)).prepare(compile=False)
