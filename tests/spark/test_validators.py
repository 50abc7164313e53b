"""The format validators (``is_valid_email``, ``is_valid_uuid``, ``is_valid_ipv4_address``,
``is_ipv4_address_in_cidr``, ``is_valid_json``) mean what DQX's checks of those names mean.

The oracles are independent of our code: DQX's own patterns (databricks/labs/dqx/check_funcs.py
at 911f68f, ``DQPattern.EMAIL_ADDRESS``, ``UUID``, ``UUID_STRICT``, ``_IPV4_OCTET``, read as
facts and matched with Python's ``re`` as DQX's ``_pattern_for_python_re`` matches them, with
``\\z`` as Python's ``\\Z`` and ASCII digits as Java's), Python's ``ipaddress`` for CIDR blocks,
and JSON texts judged by hand (RFC 8259). Each corpus holds hand cases and a bounded number of
generated ones (a fixed seed)."""

from __future__ import annotations

import ipaddress
import random
import re
from typing import Any

import pytest

from quality_py import LibraryFunctionError
from quality_py import functions as Q

pytestmark = pytest.mark.semantics  # expected values depend on what Spark computes or refuses
SPARK4 = int(__import__("pyspark").__version__.split(".")[0]) >= 4

_AT = r"[A-Za-z0-9!#$%&'*+/=?^_`{|}~-]"
_LABEL = r"[A-Za-z0-9](?:[A-Za-z0-9-]{0,61}[A-Za-z0-9])?"
_QT = r"[\x21\x23-\x5B\x5D-\x7E]"
_QP = r"\\[\x09\x20-\x7E]"
_OCT = r"(25[0-5]|2[0-4]\d|1\d{2}|[1-9]?\d)"
DQX_EMAIL = re.compile(
    rf"\A(?=.{{1,254}}\Z)(?=[^@]{{1,64}}@)(?:{_AT}+(?:\.{_AT}+)*|\"(?:{_QT}|{_QP})*\")@"
    rf"(?:(?:{_LABEL}\.)+[A-Za-z]{{2,63}}|\[(?:{_OCT}(?:\.{_OCT}){{3}}|IPv6:[A-Fa-f0-9:]+)\])\Z",
    re.ASCII,
)
DQX_UUID = re.compile(
    r"\A[0-9A-Fa-f]{8}-[0-9A-Fa-f]{4}-[0-9A-Fa-f]{4}-[0-9A-Fa-f]{4}-[0-9A-Fa-f]{12}\Z"
)
DQX_UUID_STRICT = re.compile(
    r"\A[0-9A-Fa-f]{8}-[0-9A-Fa-f]{4}-[1-8][0-9A-Fa-f]{3}-[89ABab][0-9A-Fa-f]{3}-[0-9A-Fa-f]{12}\Z"
)

EMAILS = [
    "a@b.co", "first.last@example.com", "x@sub.example.org", "a..b@example.com",
    ".a@example.com", "a.@example.com", "a@example", "a@example.c", "a@example.c0m",
    "a@-x.com", "a@x-.com", "a@x--y.com", '"john doe"@example.com', '"a\\"b"@example.com',
    '"a@b"@example.com', '"a\\\\"@x.io', '"a\\"@x.io', '""@x.io', '"@x.io', "a@[192.168.1.1]",
    "a@[192.168.1.256]", "a@[IPv6:2001:db8::1]", "a@[IPv6:zz]", "a@b.com\n", "a@b.com\r",
    "a b@c.com", "@example.com", "a@", "a@@b.com", "a@b@c.com", "é@x.com", "a@é.com",
    "a" * 64 + "@x.com", "a" * 65 + "@x.com", "a@" + "b" * 63 + ".com", "a@" + "b" * 64 + ".com",
    "a@" + ".".join(["b" * 60] * 4) + ".com", "a@" + ".".join(["b" * 61] * 4) + ".com",
    "a@x." + "c" * 63, "a@x." + "c" * 64, "", "{|}~@x.org", "a@x.y.z.travel", "a@1.2.3.4",
    # the most dots and labels the lengths allow (the parts' patterns bound their repetitions),
    # and far more (values the depth of Java's matcher was measured against)
    "a." * 31 + "aa@x.com", "a." * 32 + "a@x.com", "a@" + "b." * 125 + "cc",
    "a@" + "b." * 126 + "cc", "a." * 20_000 + "a@x.com", "a@" + "b." * 20_000 + "cc",
]  # fmt: skip
UUIDS = [
    "123e4567-e89b-12d3-a456-426614174000", "123E4567-E89B-12D3-A456-426614174000",
    "00000000-0000-0000-0000-000000000000", "ffffffff-ffff-ffff-ffff-ffffffffffff",
    "123e4567-e89b-92d3-a456-426614174000", "123e4567-e89b-12d3-c456-426614174000",
    "123e4567e89b12d3a456426614174000", "{123e4567-e89b-12d3-a456-426614174000}",
    "123e4567-e89b-12d3-a456-42661417400", "123e4567-e89b-12d3-a456-426614174000\n",
    "g23e4567-e89b-12d3-a456-426614174000", "",
]  # fmt: skip


def _generated(seed: int, alphabet: str, count: int, longest: int) -> list[str]:
    rng = random.Random(seed)
    return ["".join(rng.choice(alphabet) for _ in range(rng.randint(0, longest)))
            for _ in range(count)]  # fmt: skip


def _evaluate(spark: Any, values: list[str | None], *exprs: str) -> list[tuple[Any, ...]]:
    df = spark.createDataFrame([(i, v) for i, v in enumerate(values)], "i INT, s STRING")
    cols = [Q.expr(e, over=df).alias(f"c{n}") for n, e in enumerate(exprs)]
    rows = df.select("i", *cols).orderBy("i").collect()
    assert len(rows) == len(values)
    return [tuple(r)[1:] for r in rows]


def test_emails_as_dqx_matches_them(spark: Any) -> None:
    corpus = EMAILS + _generated(1, 'ab.@"\\[]-1:eIPv6 \n', 1500, 14)
    corpus += ["x" + g + "@ex.com" for g in _generated(2, 'a."\\@ -', 300, 6)]
    got = [r[0] for r in _evaluate(spark, [*corpus, None], "is_valid_email(s)")]
    expected = [DQX_EMAIL.search(v) is not None for v in corpus]
    wrong = [(v, g) for v, g, e in zip(corpus, got, expected, strict=False) if g != e]
    assert wrong == [] and got[-1] is None
    assert 30 < sum(expected) < len(corpus) - 30  # both answers are exercised


def test_uuids_as_dqx_matches_them(spark: Any) -> None:
    corpus = UUIDS + ["-".join(g[i:j] for i, j in ((0, 8), (8, 12), (12, 16), (16, 20), (20, 32)))
                      for g in _generated(3, "0123456789abcdefABCDEFg", 400, 33)]  # fmt: skip
    rows = _evaluate(spark, [*corpus, None], "is_valid_uuid(s)", "is_valid_uuid(s, true)",
                     "is_valid_uuid(s, false)")  # fmt: skip
    for v, (loose, strict, loose2) in zip(corpus, rows, strict=False):
        assert (loose, strict, loose2) == (
            DQX_UUID.search(v) is not None, DQX_UUID_STRICT.search(v) is not None,
            DQX_UUID.search(v) is not None), v  # fmt: skip
    assert rows[-1] == (None, None, None)


def test_ipv4_addresses_and_blocks_as_python_reads_them(spark: Any) -> None:
    rng = random.Random(4)
    corpus = ["0.0.0.0", "255.255.255.255", "10.1.2.3", "10.255.0.1", "11.0.0.0", "192.168.1.77",
              "192.168.2.1", "01.2.3.4", "1.2.3", "1.2.3.4.5", "256.1.1.1", "1.2.3.4\n", " 1.2.3.4",
              "1.2.3.٤", "", "a.b.c.d"]  # fmt: skip
    corpus += [".".join(str(rng.choice([0, 1, 9, 10, 99, 127, 192, 255, 256, rng.randint(0, 300)]))
                        for _ in range(4)) for _ in range(300)]  # fmt: skip
    blocks = ["10.0.0.0/8", "192.168.1.77/24", "0.0.0.0/0", "255.255.255.255/32", "10.128.0.0/9"]

    def valid(v: str) -> bool:
        try:
            ipaddress.IPv4Address(v)
        except ValueError:
            return False
        return True

    exprs = ["is_valid_ipv4_address(s)"] + [f"is_ipv4_address_in_cidr(s, '{b}')" for b in blocks]
    rows = _evaluate(spark, [*corpus, None], *exprs)
    for v, got in zip(corpus, rows, strict=False):
        inside = [valid(v) and ipaddress.IPv4Address(v) in ipaddress.ip_network(b, strict=False)
                  for b in blocks]  # fmt: skip
        assert got == (valid(v), *inside), v
    assert set(rows[-1]) == {None}
    assert sum(r[1] for r in rows[:-1]) > 10  # some addresses are in 10.0.0.0/8


@pytest.mark.parametrize("block", ["10.0.0.0", "10.0.0.00/8", "10.0.0.0/33", "x/8", "1.2.3.4/ 8"])
def test_a_malformed_cidr_block_is_refused_when_the_rule_compiles(spark: Any, block: str) -> None:
    df = spark.createDataFrame([("1.2.3.4",)], "s STRING")
    with pytest.raises(LibraryFunctionError, match="CIDR block"):
        Q.expr(f"is_ipv4_address_in_cidr(s, '{block}')", over=df)


@pytest.mark.skipif(not SPARK4, reason="try_parse_json is Spark 4's")
def test_json_texts(spark: Any) -> None:
    cases = {'{"a": 1}': True, "[1, 2]": True, "1": True, '"x"': True, "null": True,
             "true": True, '{"a": 1': False, "[1, 2": False, "abc": False, "{a: 1}": False,
             "'x'": False}  # fmt: skip
    rows = _evaluate(spark, [*cases, None], "is_valid_json(s)")
    assert [r[0] for r in rows] == [*cases.values(), None]


IPV6 = [
    "::", "::1", "1::", "1::2", "2001:db8::1", "2001:DB8:0:0:8:800:200C:417A", "fe80::1%eth0",
    "fe80::1%", "fe80::1%a%b", "fe80::1%eth/0", "2001:db8::/32", "1:2:3:4:5:6:7:8", "1:2:3:4:5:6:7",
    "1:2:3:4:5:6:7:8:9", "1:2:3:4:5:6:7::", "::2:3:4:5:6:7:8", "1::3:4:5:6:7:8", ":1:2:3:4:5:6:7",
    "1:2:3:4:5:6:7:", ":::", "1:::2", "1::2::3", "::ffff:1.2.3.4", "::1.2.3.4", "1.2.3.4",
    "1:2:3:4:5:6:1.2.3.4", "1:2:3:4:5:6:7:1.2.3.4", "::ffff:01.2.3.4", "::ffff:1.2.3.256",
    "::1.2.3.4:5", "12345::", "0000:0000::", "g::", " ::1", "::1 ", "", ":", "1:2", "::%x",
    "[::1]", "::\u0661", "ABCD:EF01:2345:6789:ABCD:EF01:2345:6789", "2001:db8:0:1::",
]  # fmt: skip


def _ipv6_corpus(seed: int, count: int) -> list[str]:
    """Addresses of eight groups, a run of them compressed to '::' or the last two a dotted
    quad, some with a scope; then about a third damaged (a character added, removed or
    replaced), so valid addresses and near misses are both many."""
    rng = random.Random(seed)
    firsts = ["2001", "fe80", "0", "1", "ffff"]
    out = []
    for _ in range(count):
        groups = [rng.choice(firsts), rng.choice(["db8", "DB8", "0", "8000", "abcd"])]
        groups += [rng.choice(["0", "1", "a", "ffff", "0db8", "1234"]) for _ in range(6)]
        if rng.random() < 0.2:
            groups[6:] = [rng.choice(["1.2.3.4", "255.0.0.1", "10.0.0.01"])]
        if rng.random() < 0.6:
            i = rng.randint(0, len(groups) - 1)
            j = rng.randint(i + 1, len(groups))
            text = ":".join(groups[:i]) + "::" + ":".join(groups[j:])
        else:
            text = ":".join(groups)
        if rng.random() < 0.1:
            text += rng.choice(["%eth0", "%", "%1%2", "/64"])
        if rng.random() < 0.35:
            k = rng.randint(0, len(text))
            text = text[:k] + rng.choice(["", ":", "g", "0", ".", " "]) + text[k + 1 :]
        out.append(text)
    return out


def test_ipv6_addresses_and_blocks_as_python_reads_them(spark: Any) -> None:
    """DQX checks IPv6 with Python's ``ipaddress`` (check_funcs.py,
    ``_build_is_valid_ipv6_address_udf`` and ``_build_is_ipv6_address_in_cidr_udf``): the
    oracle is that module."""
    corpus = IPV6 + _ipv6_corpus(5, 1200)
    blocks = ["2001:db8::/32", "::/0", "fe80::/10", "2001:db8::1/128", "1::/15", "0:8000::/17"]

    def address(v: str) -> ipaddress.IPv6Address | None:
        try:
            return ipaddress.IPv6Address(v)
        except ValueError:
            return None

    exprs = ["is_valid_ipv6_address(s)"] + [f"is_ipv6_address_in_cidr(s, '{b}')" for b in blocks]
    rows = _evaluate(spark, [*corpus, None], *exprs)
    wrong = []
    for v, got in zip(corpus, rows, strict=False):
        ip = address(v)
        want = (ip is not None, *[ip is not None and ip in ipaddress.IPv6Network(b, strict=False)
                                  for b in blocks])  # fmt: skip
        if got != want:
            wrong.append((v, got, want))
    assert wrong == []
    assert set(rows[-1]) == {None}
    valid = sum(r[0] for r in rows[:-1])
    assert 100 < valid < len(corpus) - 100  # both answers are exercised
    assert 0 < sum(r[1] for r in rows[:-1]) < valid  # some inside 2001:db8::/32, not all


@pytest.mark.parametrize("block", ["2001:db8::", "2001:db8::/129", "10.0.0.0/8", "x/8", "::/x"])
def test_a_malformed_ipv6_block_is_refused_when_the_rule_compiles(spark: Any, block: str) -> None:
    df = spark.createDataFrame([("::1",)], "s STRING")
    with pytest.raises(LibraryFunctionError, match="CIDR block"):
        Q.expr(f"is_ipv6_address_in_cidr(s, '{block}')", over=df)


def test_country_and_currency_codes_by_hand(spark: Any) -> None:
    """ISO 3166-1 and ISO 4217 facts: UK is reserved (the kingdom is GB), XK user-assigned;
    840 is the United States and its dollar, 004 Afghanistan (not a current currency), 978 the
    euro (no country); XXX and XTS are currency codes the standard assigns."""
    exprs = ["is_valid_country_code(s)", "is_valid_country_code(s, 'alpha-3')",
             "is_valid_country_code(s, 'NUMERIC')", "is_valid_country_code(s, 'alpha-2', false)",
             "is_valid_currency_code(s)", "is_valid_currency_code(s, 'numeric')",
             "is_valid_currency_code(s, 'alphabetic', false)"]  # fmt: skip
    cases = {  # country alpha-2, alpha-3, numeric, alpha-2 any case; currency, numeric, any case
        "US": "1001000", "us": "0001000", "GB": "1001000", "UK": "0000000", "XK": "0000000",
        "USA": "0100000", "usa": "0000000", "840": "0010010", "4": "0000000", "004": "0010000",
        "EUR": "0000101", "eur": "0000001", "XXX": "0000101", "XTS": "0000101",
        "BTC": "0000000", "978": "0000010", "": "0000000",
    }  # fmt: skip
    rows = _evaluate(spark, [*cases, None], *exprs)
    got = {v: "".join(str(int(x)) for x in r) for v, r in zip(cases, rows, strict=False)}
    assert got == cases
    assert set(rows[-1]) == {None}
    df = spark.createDataFrame([("US",)], "s STRING")
    with pytest.raises(LibraryFunctionError, match="alpha-2, alpha-3, numeric"):
        Q.expr("is_valid_country_code(s, 'alpha-4')", over=df)


def test_dates_and_timestamps_in_a_format_by_hand(spark: Any) -> None:
    """Calendar facts: 2024 is a leap year, 2023 is not; there is no month 13 or hour 24."""
    exprs = ["is_valid_date(s, 'yyyy-MM-dd')", "is_valid_date(s, 'dd/MM/yyyy')",
             "is_valid_timestamp(s, 'yyyy-MM-dd HH:mm:ss')", "is_valid_date(s)"]  # fmt: skip
    cases = {
        "2024-02-29": "1001", "2023-02-29": "0000", "2024-13-01": "0000", "29/02/2024": "0100",
        "31/04/2024": "0000", "2024-12-31 23:59:59": "0011", "2024-12-31 24:00:00": "0000",
        "abc": "0000", "": "0000",
    }  # fmt: skip
    # Spark 3.5's default parser policy (EXCEPTION) stops a query on a text the pre-3.0 parser
    # reads otherwise ('2024-12-31 23:59:59' as yyyy-MM-dd); CORRECTED is Spark 4's default
    spark.conf.set("spark.sql.legacy.timeParserPolicy", "CORRECTED")
    try:
        rows = _evaluate(spark, [*cases, None], *exprs)
    finally:
        spark.conf.unset("spark.sql.legacy.timeParserPolicy")
    got = {v: "".join(str(int(x)) for x in r) for v, r in zip(cases, rows, strict=False)}
    assert got == cases
    assert set(rows[-1]) == {None}


def test_is_recent_judges_at_the_time_given(spark: Any) -> None:
    """By hand: at the end of 2026-11-23 (UTC), a day back is 2026-11-23T00:00Z; six hours back
    from 12:00+02:00 is 04:00Z."""
    values = ["2026-11-23 00:00:00", "2026-11-22 23:59:59", "2026-11-24 05:00:00", "2026-11-23",
              "2026-11-22", "not a time"]  # fmt: skip
    spark.conf.set("spark.sql.session.timeZone", "UTC")
    try:
        rows = _evaluate(spark, [*values, None], "is_recent(s, '1 day', '2026-11-23')",
                         "is_recent(s, '6 hours', '2026-11-23T12:00:00+02:00')",
                         "is_recent(s, '36500 days')")  # fmt: skip
    finally:
        spark.conf.unset("spark.sql.session.timeZone")
    assert rows == [(True, False, True), (False, False, True), (True, True, True),
                    (True, False, True), (False, False, True), (None, None, None),
                    (None, None, None)]  # fmt: skip
