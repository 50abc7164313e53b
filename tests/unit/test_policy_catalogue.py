"""The bad-input catalogue (threats-and-invariants 1.9) against the compile step, no JVM.

Each case must end in a typed error that names the rule (and a position where the parser gave
one), raised while compiling: before any Spark job could start. The Spark-side cases (side
effects, runtime containment, identifiers) are in tests/spark/test_policy_runtime.py.
"""

from __future__ import annotations

from dataclasses import replace

import pytest

from quality_py import Id, LambdaFunction, Layout, OutputExpression, Rule, RuleSet, RuleSuite
from quality_py.errors import ModelError, PolicyError, QualityError
from quality_py.model.policy import RulePolicy
from quality_py.sql.compiler import compile_expression, compile_suite

RULE = Id(77, 3)


def _compile(text: str, policy: RulePolicy | None = None) -> None:
    suite = RuleSuite(Id(1, 1), [RuleSet(Id(2, 1), [Rule(Id(10, 1), "a > 0"), Rule(RULE, text)])])
    compile_suite(suite, policy=policy)


REJECTED = [
    # (catalogue number, text, error code)
    (1, "amount >", "RULE_SYNTAX"),
    (2, "amount > 0; DROP TABLE t", "UNSUPPORTED_STATEMENT"),
    (3, "amount > 0) OR (1=1", "RULE_SYNTAX"),
    (4, "amount > 0) , (select 1", "RULE_SYNTAX"),
    (6, "x > 0 /* unterminated", "RULE_SYNTAX"),
    (7, "-- x > 0", "RULE_SYNTAX"),
    (7, "/* only a comment */", "RULE_SYNTAX"),
    (9, "x > 0 AS alias_trick", "POLICY"),
    (11, "sum(amount) > 0", "POLICY"),
    (12, "row_number() over (order by id) = 1", "POLICY"),
    (13, "reflect('java.lang.System','exit',0) is null", "POLICY"),
    (14, "java_method('java.lang.System','getProperty','user.name') = 'root'", "POLICY"),
    (14, "try_reflect('java.lang.System','getProperty','user.name') = 'root'", "POLICY"),
    (14, "`ReFlEcT`('java.lang.System','getProperty','user.name') = 'root'", "POLICY"),
    (14, "builtin.reflect('java.lang.System','getProperty','user.name') = 'root'", "POLICY"),
    (14, "system.builtin.reflect('java.lang.System','getProperty','x') = 'root'", "POLICY"),
    (15, "IDENTIFIER('ref' || 'lect')('java.lang.System','getProperty','user.name') = ''", None),
    (
        16,
        "(select max(a) from (select transform(1) using 'touch /tmp/qp_marker' as (a string)))"
        " is null",
        None,
    ),
    (17, "(select count(*) from text.`/etc/passwd`) > 0", "POLICY"),
    (18, "x < (select count(*) from other_tbl)", "POLICY"),
    (18, "exists(select 1 from secrets)", "POLICY"),
    (19, "my_registered_udf(x)", "POLICY"),
    (20, "secret('s','k') = 'x'", "POLICY"),
    (20, "current_user() = 'admin'", "POLICY"),
    (20, "session_user() = 'admin'", "POLICY"),
    # identity in every spelling: bare names resolve to the session's identity in Spark
    (20, "user = 'admin'", "POLICY"),
    (20, "current_user = 'admin'", "POLICY"),
    (20, "session_user = 'admin'", "POLICY"),
    (20, "user() = 'admin'", "POLICY"),
    (20, "upper(current_role) = 'ADMIN'", "POLICY"),
    # operators nobody writes in a data-quality rule: the typo 'a > > 0' parses as a shift
    (27, "amount > > 0", "POLICY"),
    (27, "amount < < 0", "POLICY"),
    (27, "a & 1 = 1", "POLICY"),
    (27, "a | 2 > 0", "POLICY"),
    (27, "a ^ 3 > 0", "POLICY"),
    (27, "~a > 0", "POLICY"),
    # catastrophic matching: LIKE runs as a regex, each inner % one more power of the length
    (28, "s LIKE '%a%a%a%a%a%a%a%a%a%a%b'", "POLICY"),
    (28, "s ILIKE '%a%a%a%b'", "POLICY"),
    (28, "s LIKE pattern_column", "POLICY"),
    (28, "s RLIKE '.*a.*a.*a.*b'", "POLICY"),
    (28, "regexp_extract(s, '.+a.*b.*c', 0) = ''", "POLICY"),
    (28, "regexp_extract(s, 'x', 2.5) = ''", "POLICY"),  # found by the long fuzz: a crash
    (28, "size(split(s, '.*,.*,.*;')) > 1", "POLICY"),
    (20, "java_method('java.lang.System','getenv','HOME') is null", "POLICY"),
    (20, "input_file_name() = ''", "POLICY"),
    (21, "assert_true(x > 0)", "POLICY"),
    (21, "raise_error('boom') is null", "POLICY"),
    (22, "rand() < 0.5", "POLICY"),
    (22, "randn() < 0.5", "POLICY"),
    (22, "uuid() is not null", "POLICY"),
    (22, "shuffle(a)[0] > 1", "POLICY"),
    (22, "monotonically_increasing_id() > 5", "POLICY"),
    (22, "spark_partition_id() = 0", "POLICY"),
    (24, "(" * 49 + "x > 0" + ")" * 49, "POLICY"),
    (24, "(" * 500 + "x > 0" + ")" * 500, "POLICY"),
    (24, "(" * 5000 + "x > 0" + ")" * 5000, "POLICY"),
    (25, "abs(" * 2000 + "x" + ")" * 2000 + " > 0", "POLICY"),
    (26, " OR ".join(f"x = {i}" for i in range(10_000)), "POLICY"),
    (26, "x = '" + "a" * 1_000_000 + "'", "POLICY"),
    (27, "length(repeat(s, 1000000000)) > 0", "POLICY"),
    (27, "size(sequence(1, 200000000)) > 0", "POLICY"),
    (27, "size(array_repeat(s, 100000000)) > 0", "POLICY"),
    (27, "length(repeat(s, n)) > 0", "POLICY"),
    (27, "length(lpad(s, 1000000000, 'x')) > 0", "POLICY"),
    (28, "s rlike '^(.*?,){11}P'", "POLICY"),
    (28, "s rlike '(a|b)+'", "POLICY"),
    (28, "s rlike '(x+x+)+y'", "POLICY"),
    (28, "regexp_replace(s, '(\\\\w|\\\\d)+$', '') = ''", "POLICY"),
    (28, "s rlike pattern_column", "POLICY"),
    (29, "s rlike '['", "POLICY"),
    (32, "x > 0\x1b[31m", "POLICY"),
    # issue 24, found by the signature fuzzer and the algebra of sizes
    (27, "size(transform(a, x -> s)) > 0", "POLICY"),  # a copy of s per element of a
    (27, "length(replace(s, 'a', t)) > 0", "POLICY"),  # a copy of t per 'a' in s
    (27, "length(" + "hex(" * 14 + "s" + ")" * 14 + ") > 0", "POLICY"),  # 2^14 times s
    (21, "size(array_sort(a, (x, y) -> x - y)) > 0", "POLICY"),  # null comparison aborts
    (21, "round(d, 2147483647) > 0", "POLICY"),  # 10^scale overflows BigInteger
    (21, "to_date(s, 'EEEE') IS NULL", "POLICY"),  # a format-only letter aborts the parse
    (21, "to_char(x, '999') = ''", "POLICY"),  # the fuzzer cannot cover it
]


@pytest.mark.parametrize(("case", "text", "code"), REJECTED, ids=[f"#{c[0]}" for c in REJECTED])
def test_bad_input_is_a_typed_error_naming_the_rule(case: int, text: str, code: str | None) -> None:
    with pytest.raises(QualityError) as err:
        _compile(text)
    assert err.value.item_id == RULE, (case, err.value)
    if code is not None:
        assert err.value.code == code, (case, err.value)
    assert not isinstance(err.value, RecursionError)


def test_empty_and_blank_rules_cannot_even_be_built() -> None:  # catalogue 7
    for text in ("", "   ", "\n"):
        with pytest.raises(ModelError):
            Rule(RULE, text)


@pytest.mark.parametrize(
    "text",
    [
        "amount > 100 -- ) THEN 1 ELSE 0 END",  # 5: compiled alone, the comment ends the rule
        "`weird col`` é` > 1",  # 30
        "prix_€ > 0",
        "a.b > 0",
        "exists(arr, x -> x > 0)",  # 44: a lambda variable may shadow a column
        "s rlike '^[A-Z]{2}[0-9]+$'",
        "length(repeat(s, 3)) > 0",
        "regexp_extract(s, '([0-9]+)-([0-9]+)', 1) = '12'",
        "CAST(s AS INT) > 5 AND d / n > 1 AND element_at(arr, 2) = 1",
        "coalesce(try_divide(a, b), 0) >= 0 AND nvl(s, '') <> ''",
        "transform(arr, v -> v * 2)[0] > 1",
    ],
)
def test_ordinary_rules_are_accepted(text: str) -> None:
    _compile(text)


def test_lambdas_and_outputs_are_checked_too() -> None:
    bad_lambda = RuleSuite(
        Id(1, 1),
        [RuleSet(Id(2, 1), [Rule(Id(10, 1), "f(a)")])],
        lambdas=[LambdaFunction("f", "x -> reflect('java.lang.System', 'exit', x)", Id(5, 2))],
    )
    with pytest.raises(QualityError) as err:
        compile_suite(bad_lambda)
    assert (err.value.code, err.value.item_id) == ("POLICY", Id(5, 2))
    from quality_py.runners.rule_engine import engine_struct
    from quality_py.sql.dq_struct import rendered

    out = OutputExpression(Id(9, 1), "java_method('java.lang.System', 'getenv', 'HOME')")
    suite = RuleSuite(Id(1, 1), [RuleSet(Id(2, 1), [Rule(Id(10, 1), "a > 0", 1, out)])])
    compiled = compile_suite(suite)
    with pytest.raises(QualityError) as err:
        engine_struct(
            suite,
            [rendered("c0")],
            [None],
            "string",
            compiled.lambdas,
            debug=False,
            layout=Layout.MAP,
        )
    assert (err.value.code, err.value.item_id) == ("POLICY", Id(9, 1))


def test_trusted_and_widened_policies() -> None:
    _compile("raise_error('x') IS NULL", RulePolicy.trusted_policy())
    _compile("my_registered_udf(x)", RulePolicy(allowed_functions=frozenset({"MY_REGISTERED_UDF"})))
    _compile("exists(select 1 from lookup l where l.k = main.k)", RulePolicy().with_views("lookup"))
    with pytest.raises(QualityError):  # a view name with a qualifier is another table
        _compile("exists(select 1 from other.lookup l)", RulePolicy().with_views("lookup"))
    with pytest.raises(QualityError):  # file paths never match a view
        _compile("(select count(*) from text.`/etc/passwd`) > 0", RulePolicy().with_views("text"))
    # limits apply even to trusted suites (the parser needs them)
    with pytest.raises(QualityError) as err:
        _compile("(" * 100 + "x" + ")" * 100, RulePolicy.trusted_policy())
    assert err.value.code == "POLICY"


def test_errors_escape_control_characters() -> None:  # catalogue 32
    with pytest.raises(QualityError) as err:
        _compile("x >\r\n 'a\x1b[2J' AND")
    text = str(err.value)
    assert "\x1b" not in text and "\r" not in text


def test_a_subquery_must_read_a_permitted_view() -> None:
    # found by the fuzzer: a SELECT without FROM is not a lookup
    with pytest.raises(QualityError) as err:
        _compile(
            "exists(SELECT airlines a WHERE a.carrier = main.carrier)",
            RulePolicy().with_views("airlines"),
        )
    assert err.value.code == "POLICY" and "FROM" in err.value.message


CLOCKS = [  # catalogue 23: clock reads
    "ts > current_timestamp()",
    "ts > now()",
    "d <= current_date()",
    "d <= curdate()",
    "unix_timestamp() > 0",
]


@pytest.mark.parametrize("text", CLOCKS)
def test_query_clock_is_allowed_by_default_and_refused_by_a_strict_policy(text: str) -> None:
    _compile(text)  # Spark fixes the clock once per query: "not in the future" rules work
    with pytest.raises(QualityError) as err:
        _compile(text, RulePolicy(allow_clock=False))
    assert err.value.code == "POLICY" and err.value.item_id == RULE
    assert "clock" in err.value.message


ACCEPTED = [
    "s LIKE '%otc'",
    "s LIKE 'ab%'",
    "s LIKE '%a%'",  # the trailing % always succeeds: linear
    "s RLIKE '^[A-Z]+-[0-9]+$'",
    "s RLIKE 'a.*b'",
    "s RLIKE '^\\w+@\\w+\\.[a-z]{2,}$'",
    "shiftright(a, 1) > 0",  # the function form of a shift stays allowed
    "main.user = 'admin'",  # a column named user, qualified
]


@pytest.mark.parametrize("text", ACCEPTED)
def test_everyday_forms_stay_allowed(text: str) -> None:
    _compile(text)


def test_bit_operators_when_the_policy_allows_them() -> None:
    _compile("a & 1 = 1", RulePolicy(allow_bitwise_operators=True))


def test_exponential_lambda_chains_are_refused_quickly() -> None:
    import tracemalloc

    lambdas = [LambdaFunction("l0", "x -> x + 1", Id(100, 1))] + [
        LambdaFunction(f"l{k}", f"x -> l{k - 1}(x) + l{k - 1}(x)", Id(100 + k, 1))
        for k in range(1, 21)
    ]
    suite = RuleSuite(Id(1, 1), [RuleSet(Id(2, 1), [Rule(RULE, "l20(a) > 0")])], lambdas=lambdas)
    # bounded in bytes, not wall time: 35 MB at the refusal (measured); 2**20 inlined calls
    # would be gigabytes (46 s at 16 levels before the bound)
    tracemalloc.start()
    try:
        with pytest.raises(QualityError) as err:
            compile_suite(suite)
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    assert peak < 100_000_000
    assert err.value.code == "POLICY" and "syntax nodes" in err.value.message


def test_a_lambda_named_like_a_library_function_is_an_error() -> None:
    for name in ("passed", "packInts", "soft_fail"):
        suite = RuleSuite(
            Id(1, 1),
            [RuleSet(Id(2, 1), [Rule(RULE, "a > 0")])],
            lambdas=[LambdaFunction(name, "x -> x", Id(9, 1))],
        )
        with pytest.raises(QualityError) as err:
            compile_suite(suite)
        assert err.value.item_id == Id(9, 1) and "library function" in err.value.message


@pytest.mark.parametrize(
    "text",
    [
        "EXISTS(SELECT 1 FROM airports a, airlines b WHERE a.faa = origin)",  # comma: cross join
        "EXISTS(SELECT 1 FROM airports CROSS JOIN airlines)",
        "EXISTS(SELECT 1 FROM airports a JOIN airlines b ON a.faa = b.carrier)",
        "origin IN (SELECT a.faa FROM airports a LEFT JOIN airports b ON a.tz = b.tz)",
        "(SELECT count(*) FROM (SELECT * FROM airports a JOIN airlines b ON true) t) > 0",
    ],
)
def test_lookups_that_join_views_are_refused(text: str) -> None:
    policy = RulePolicy().with_views("airports", "airlines")
    with pytest.raises(PolicyError, match="one view per SELECT") as info:
        compile_expression(text, item_id=Id(9, 1), policy=policy)
    assert info.value.item_id == Id(9, 1)
    compile_expression(text, policy=replace(policy, allow_lookup_joins=True))


@pytest.mark.parametrize(
    "text",
    [
        "EXISTS(SELECT 1 FROM airports a WHERE EXISTS(SELECT 1 FROM airports b WHERE b.tz <> a.tz))",
        "origin IN (SELECT faa FROM airports a WHERE a.tz IN (SELECT tz FROM airports))",
        "EXISTS(SELECT 1 FROM airports a WHERE (SELECT count(*) FROM airlines b) > a.alt)",
        "(SELECT max(alt) FROM airports a HAVING max(alt) > (SELECT min(alt) FROM airports)) > 0",
    ],
)
def test_a_join_written_as_nested_subqueries_is_refused(text: str) -> None:
    """The same class as a join of views: a subquery in another subquery's condition runs once
    per row of that one, for every input row (issue 24)."""
    policy = RulePolicy().with_views("airports", "airlines")
    with pytest.raises(PolicyError, match="inside another subquery's condition") as info:
        compile_expression(text, item_id=Id(9, 1), policy=policy)
    assert info.value.item_id == Id(9, 1)
    compile_expression(text, policy=replace(policy, allow_lookup_joins=True))


def test_single_view_lookups_stay_allowed() -> None:
    policy = RulePolicy().with_views("airports")
    for text in (
        "EXISTS(SELECT 1 FROM airports WHERE faa = origin)",
        "origin IN (SELECT faa FROM airports WHERE tz < 0)",
        "(SELECT max(alt) FROM (SELECT alt FROM airports WHERE faa = origin) t) > 0",
    ):
        compile_expression(text, policy=policy)


def test_a_suite_holds_a_bounded_number_of_subqueries() -> None:
    """Each correlated subquery is a join in the suite's one plan: 160 of them overflowed an
    executor's stack and ended the JVM (Spark 4.3, local[2]); past ``max_subqueries`` (64) the
    rule that crosses it is refused, by name, before any job."""
    from quality_py import Id, Rule, RulePolicy, RuleSet, RuleSuite
    from quality_py.errors import PolicyError
    from quality_py.sql.compiler import compile_suite

    policy = RulePolicy().with_views("ref")
    rules = [Rule(Id(100 + i, 1), f"(SELECT max(v) FROM ref WHERE ref.k = k{i}) > 0")
             for i in range(65)]  # fmt: skip
    suite = RuleSuite(Id(1, 1), [RuleSet(Id(2, 1), rules)], policy=policy)
    with pytest.raises(PolicyError, match="more than 64 subqueries") as caught:
        compile_suite(suite)
    assert caught.value.item_id == Id(164, 1)  # the 65th
    assert (
        len(
            compile_suite(RuleSuite(Id(1, 1), [RuleSet(Id(2, 1), rules[:64])], policy=policy)).rules
        )
        == 64
    )
