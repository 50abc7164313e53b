"""Validators of common formats: ``is_valid_uuid``, ``is_valid_ipv4_address``,
``is_ipv4_address_in_cidr``, ``is_valid_email`` and ``is_valid_json``.

Each is true for a valid value, false for an invalid one and null for a null one (a rule fails
on a null result, so ``is_valid_email(email)`` fails a missing address too; ``email IS NULL OR
is_valid_email(email)`` checks only the addresses given, as DQX does). Their meanings are
DQX's (0.16, ``databricks/labs/dqx/check_funcs.py``), so ``convert --from dqx`` maps DQX's checks
onto them:

* ``is_valid_uuid(x [, strict])``: the 8-4-4-4-12 hexadecimal form in any case; ``strict``
  (a boolean literal) also requires a version digit 1-8 and a variant digit 8, 9, a or b.
* ``is_valid_ipv4_address(x)``: a dotted quad of decimal octets 0-255 without leading zeros.
* ``is_ipv4_address_in_cidr(x, 'a.b.c.d/n')``: a valid IPv4 address whose first ``n`` bits
  are the block's (the block is a text literal, checked when the rule compiles; its host bits
  may be set, as DQX reads them).
* ``is_valid_ipv6_address(x)``: what Python's ``ipaddress.IPv6Address`` reads (DQX checks
  it so): eight groups of 1-4 hexadecimal digits separated by ``:``, one ``::`` standing for
  one or more zero groups, the last two groups optionally a dotted quad, and an optional
  ``%scope`` (not empty, no second ``%``); no ``/``.
* ``is_ipv6_address_in_cidr(x, 'block')``: a valid IPv6 address whose first bits are the
  block's (a text literal Python's ``ipaddress.IPv6Network`` reads, host bits allowed; the
  scope is ignored).
* ``is_valid_country_code(x [, 'alpha-2'|'alpha-3'|'numeric' [, case_sensitive]])`` and
  ``is_valid_currency_code(x [, 'alphabetic'|'numeric' [, case_sensitive]])``: one of the
  codes ISO 3166-1 / ISO 4217 assign (:mod:`quality_py.sql.iso_codes`), compared as
  text (a number ``4`` is not the code ``004``), in any case when ``case_sensitive`` is false.
* ``is_valid_date(x [, 'format'])``, ``is_valid_timestamp(x [, 'format'])``: Spark's
  ``try_to_timestamp`` reads the value (with the format, a text literal of Spark's datetime
  patterns such as ``'yyyy-MM-dd'``), as DQX's checks of those names test it.
* ``is_recent(x, 'duration' [, at])``: the time ``x`` (a timestamp, a date, or text Spark
  casts to one) is no older than the duration (``'1 day'``, ``'6 hours'``) at ``at``: a time
  expression, or an ISO text (a date alone is judged at the end of that day, a time without a
  zone is UTC, as ``is_fresh`` judges them); without ``at`` the clock (which a policy may
  forbid). A run's ``--data-time`` (a job's ``data_time`` tag) is the variable ``${DATA_TIME}``:
  ``is_recent(updated_at, '2 days', '${DATA_TIME}')`` judges a backfill at its data's time.
* ``is_valid_email(x)``: DQX's subset of RFC 5322: a dot-atom or quoted local part of at most
  64 characters, ``@``, a host name whose labels are letters, digits and inner hyphens (at
  most 63) under an alphabetic top-level label of 2-63 letters, or a bracketed IPv4 address or
  ``IPv6:`` literal; at most 254 characters in all.
* ``is_valid_json(x)``: Spark's ``try_parse_json`` reads it (Spark 4).

No pattern here can backtrack: DQX writes the e-mail address as one pattern with look-aheads
and an alternation the regex check refuses, and here the same language is split into parts each
matched by a pattern the regex check proves linear (:data:`PATTERNS`, tested): the local part
and host name as repeated groups ending with a delimiter, a quoted local part with its escaped
pairs removed first.
"""

from __future__ import annotations

import ipaddress
import re
from datetime import datetime, timedelta, timezone

from sqlglot import exp

from quality_py.errors import QualityError
from quality_py.model.times import parse_datetime, parse_duration
from quality_py.sql import iso_codes
from quality_py.sql.build import lit
from quality_py.sql.context import PassContext
from quality_py.sql.library.registry import expand, library_error, register

_OCTET = r"(25[0-5]|2[0-4][0-9]|1[0-9]{2}|[1-9]?[0-9])"
_QUAD = r"\.".join([_OCTET] * 4)
_HEX = "[0-9A-Fa-f]"
#: DQX's e-mail characters (check_funcs.py, _EMAIL_ATEXT, _EMAIL_QTEXT, _EMAIL_QPAIR,
#: _EMAIL_DOMAIN_LABEL)
_ATEXT = r"[A-Za-z0-9!#$%&'*+/=?^_`{|}~-]"
_QTEXT = r"[\x21\x23-\x5B\x5D-\x7E]"
_QPAIR = r"\\[\x09\x20-\x7E]"
_LABEL = r"[A-Za-z0-9](?:[A-Za-z0-9-]{0,61}[A-Za-z0-9])?"

UUID = rf"\A{_HEX}{{8}}-{_HEX}{{4}}-{_HEX}{{4}}-{_HEX}{{4}}-{_HEX}{{12}}\z"
UUID_STRICT = rf"\A{_HEX}{{8}}-{_HEX}{{4}}-[1-8]{_HEX}{{3}}-[89ABab]{_HEX}{{3}}-{_HEX}{{12}}\z"
IPV4 = rf"\A{_QUAD}\z"
#: a dot-atom local part followed by one dot: (atext+ .)+, at most 64 times (the local part is
#: at most 64 characters, checked beside it: a bound Java's matcher needs, see regex_depth)
DOT_ATOM_DOT = rf"\A(?:{_ATEXT}+\.){{1,64}}\z"
#: the inside of a quoted local part, its escaped pairs removed, is quoted text
QUOTED_PAIR = _QPAIR
QUOTED_TEXT = rf"\A{_QTEXT}*\z"
#: a host name but its top-level label: (label .)+, at most 127 labels (254 characters in all)
HOST_LABELS = rf"\A(?:{_LABEL}\.){{1,127}}\z"
TOP_LABEL = r"\A[A-Za-z]{2,63}\z"
IP_LITERAL = rf"\A\[(?:{_QUAD}|IPv6:[A-Fa-f0-9:]+)\]\z"
#: one group of an IPv6 address
HEXTET = rf"\A{_HEX}{{1,4}}\z"
#: every pattern the expansions match (the regex check proves each linear: tested)
PATTERNS = (UUID, UUID_STRICT, IPV4, DOT_ATOM_DOT, QUOTED_PAIR, QUOTED_TEXT, HOST_LABELS,
            TOP_LABEL, IP_LITERAL, HEXTET)  # fmt: skip
_CIDR = re.compile(rf"{_QUAD}/(3[0-2]|[12]?[0-9])")


def ipv4_block(text: str) -> tuple[int, int] | None:
    """An IPv4 CIDR block as (its first ``n`` bits as a number, ``n``), DQX's pattern
    (``IPV4_CIDR_BLOCK``), or None when it is not one.

    >>> ipv4_block("192.168.1.77/24"), ipv4_block("10.0.0.0/0"), ipv4_block("1.2.3.04/8")
    ((12625921, 24), (0, 0), None)
    """
    m = _CIDR.fullmatch(text)
    if m is None:
        return None
    number = 0
    for octet in m.groups()[:4]:
        number = number * 256 + int(octet)
    prefix = int(m.group(5))
    return number >> (32 - prefix), prefix


def _text(node: exp.Expr) -> str:
    """A text literal's value ('' for any other argument, which no block reader accepts)."""
    return str(node.this) if isinstance(node, exp.Literal) and node.is_string else ""


def _matches(value: exp.Expr, pattern: str) -> exp.Expr:
    return expand("__a0 RLIKE __a1", value, lit(pattern))


@register("is_valid_uuid", 1, 2)
def _uuid(args: list[exp.Expr], ctx: PassContext) -> exp.Expr:
    """True when the value is a UUID's 8-4-4-4-12 hexadecimal text (``strict``: with a version
    1-8 and variant 8, 9, a or b)."""
    strict = False
    if len(args) == 2:
        if not isinstance(args[1], exp.Boolean):
            raise library_error(ctx, "is_valid_uuid's strict is true or false", args[1],
                                "LIBRARY_ARGUMENTS")  # fmt: skip
        strict = bool(args[1].this)
    return _matches(args[0], UUID_STRICT if strict else UUID)


@register("is_valid_ipv4_address", 1)
def _ipv4(args: list[exp.Expr], ctx: PassContext) -> exp.Expr:
    """True when the value is a dotted quad of octets 0-255 without leading zeros."""
    return _matches(args[0], IPV4)


@register("is_ipv4_address_in_cidr", 2)
def _in_cidr(args: list[exp.Expr], ctx: PassContext) -> exp.Expr:
    """True when the value is an IPv4 address inside the CIDR block (a text literal)."""
    node = args[1]
    block = ipv4_block(_text(node))
    if block is None:
        raise library_error(
            ctx, "is_ipv4_address_in_cidr takes an IPv4 CIDR block as a text literal, such as "
            "'10.0.0.0/8' (octets 0-255 without leading zeros, a prefix 0-32)", node,
            "LIBRARY_ARGUMENTS",
        )  # fmt: skip
    network, prefix = block
    number = " + ".join(
        f"CAST(split(__a0, '[.]')[{i}] AS BIGINT) * {256 ** (3 - i)}" for i in range(4)
    )
    return expand(
        f"CASE WHEN __a0 RLIKE __a1 THEN shiftright({number}, {32 - prefix}) = {network} "
        "WHEN __a0 IS NOT NULL THEN false END",
        args[0],
        lit(IPV4),
    )


@register("is_valid_email", 1)
def _email(args: list[exp.Expr], ctx: PassContext) -> exp.Expr:
    """True when the value is an e-mail address of DQX's RFC 5322 subset."""
    template = (
        "CASE WHEN __a0 IS NULL THEN NULL ELSE length(__a0) <= 254 AND instr(__a0, '@') "
        "BETWEEN 2 AND 65 AND (CASE WHEN startswith(__L, '\"') THEN length(__L) >= 2 AND "
        "endswith(__L, '\"') AND regexp_replace(substring(__L, 2, length(__L) - 2), __a2, '') "
        "RLIKE __a3 ELSE concat(__L, '.') RLIKE __a1 END) AND (CASE WHEN startswith(__D, '[') "
        "THEN __D RLIKE __a6 ELSE __H RLIKE __a4 AND substring_index(__D, '.', -1) RLIKE __a5 "
        "END) END"
    )
    domain = "substring_index(__a0, '@', -1)"
    local = f"substring(__a0, 1, length(__a0) - length({domain}) - 1)"
    host = f"substring({domain}, 1, length({domain}) - length(substring_index({domain}, '.', -1)))"
    template = template.replace("__L", local).replace("__H", host).replace("__D", domain)
    patterns = (DOT_ATOM_DOT, QUOTED_PAIR, QUOTED_TEXT, HOST_LABELS, TOP_LABEL, IP_LITERAL)
    return expand(template, args[0], *[lit(p) for p in patterns])


@register("is_valid_json", 1)
def _json(args: list[exp.Expr], ctx: PassContext) -> exp.Expr:
    """True when Spark's ``try_parse_json`` reads the value (Spark 4)."""
    return expand("CASE WHEN __a0 IS NOT NULL THEN try_parse_json(__a0) IS NOT NULL END", args[0])


#: an IPv6 address's parts as Python's ``_ip_int_from_string`` reads them, bound once to
#: ``qp_parts`` (the text before ``%``, split at ``:``); __BODY uses them
_V6_BIND = (
    "element_at(transform(array(split(substring_index(__a0, '%', 1), ':')), qp_parts -> __BODY), 1)"
)
_N = "size(qp_parts)"
_TAIL = "element_at(qp_parts, -1)"
_IS_QUAD = f"(instr({_TAIL}, '.') > 0)"
_WIDE = f"({_N} + IF({_IS_QUAD}, 1, 0))"  # the parts once a dotted quad is two groups
_INNER = f"slice(qp_parts, 2, {_N} - 2)"
_SKIP = f"array_position({_INNER}, '')"  # the index of the part '::' leaves empty
_FIRST_EMPTY, _LAST_EMPTY = "(qp_parts[0] = '')", f"({_TAIL} = '')"
_GIVEN = f"({_WIDE} - 1 - IF({_FIRST_EMPTY}, 1, 0) - IF({_LAST_EMPTY}, 1, 0))"
#: the structure: at least 3 parts, at most 9; a dotted quad last; one '::' at most, a ':' at
#: either end only as part of it, and it stands for one group at least; else eight groups
_V6_BODY = (
    f"{_N} >= 3 AND {_WIDE} <= 9 AND (NOT {_IS_QUAD} OR {_TAIL} RLIKE __a1) AND "
    f"size(filter({_INNER}, qp_p -> qp_p = '')) <= 1 AND (CASE WHEN {_SKIP} > 0 THEN "
    f"(NOT {_FIRST_EMPTY} OR {_SKIP} = 1) AND (NOT {_LAST_EMPTY} OR {_SKIP} = {_N} - 2) AND "
    f"{_GIVEN} <= 7 ELSE {_WIDE} = 8 AND NOT {_FIRST_EMPTY} AND NOT {_LAST_EMPTY} END) AND "
    f"forall(IF({_IS_QUAD}, slice(qp_parts, 1, {_N} - 1), qp_parts), "
    "qp_h -> qp_h = '' OR qp_h RLIKE __a2)"
)
#: no '/', and a scope after '%' that is not empty and has no second '%'
_V6_TEXT = (
    "instr(__a0, '/') = 0 AND (instr(__a0, '%') = 0 OR (length(substring(__a0, "
    "instr(__a0, '%') + 1)) > 0 AND instr(substring(__a0, instr(__a0, '%') + 1), '%') = 0))"
)
_V6_VALID = (
    f"CASE WHEN __a0 IS NULL THEN NULL ELSE {_V6_TEXT} AND "
    f"{_V6_BIND.replace('__BODY', _V6_BODY)} END"
)
_OCTETS = f"transform(split({_TAIL}, '[.]'), qp_o -> CAST(qp_o AS INT))"
_GROUPS = (
    f"IF({_IS_QUAD}, concat(slice(qp_parts, 1, {_N} - 1), array(hex({_OCTETS}[0] * 256 + "
    f"{_OCTETS}[1]), hex({_OCTETS}[2] * 256 + {_OCTETS}[3]))), qp_parts)"
)
#: the 32 hexadecimal digits of a valid address: '::' as its zero groups, each group padded
_V6_HEX = _V6_BIND.replace(
    "__BODY",
    f"lower(concat_ws('', transform(flatten(transform({_GROUPS}, (qp_g, qp_i) -> CASE WHEN "
    f"qp_g = '' AND qp_i = {_SKIP} THEN array_repeat('0', 8 - {_GIVEN}) WHEN qp_g = '' THEN "
    "CAST(array() AS ARRAY<STRING>) ELSE array(qp_g) END)), qp_g -> lpad(qp_g, 4, '0'))))",
)


def ipv6_block(text: str) -> tuple[str, int] | None:
    """An IPv6 CIDR block as (its network's 32 hexadecimal digits, its prefix length), as
    DQX's ``_is_valid_ipv6_cidr_block`` accepts it (host bits allowed), or None.

    >>> ipv6_block("2001:db8::1/32"), ipv6_block("2001:db8::"), ipv6_block("::/129")
    (('20010db8000000000000000000000000', 32), None, None)
    """
    if "/" not in text:
        return None
    try:
        network = ipaddress.IPv6Network(text, strict=False)
    except ValueError:  # AddressValueError and NetmaskValueError
        return None
    return f"{int(network.network_address):032x}", network.prefixlen


@register("is_valid_ipv6_address", 1)
def _ipv6(args: list[exp.Expr], ctx: PassContext) -> exp.Expr:
    """True when the value is an IPv6 address Python's ``ipaddress`` reads."""
    return expand(_V6_VALID, args[0], lit(IPV4), lit(HEXTET))


@register("is_ipv6_address_in_cidr", 2)
def _in_v6_cidr(args: list[exp.Expr], ctx: PassContext) -> exp.Expr:
    """True when the value is an IPv6 address inside the CIDR block (a text literal)."""
    node = args[1]
    block = ipv6_block(_text(node))
    if block is None:
        raise library_error(
            ctx, "is_ipv6_address_in_cidr takes an IPv6 CIDR block as a text literal, such as "
            "'2001:db8::/32'", node, "LIBRARY_ARGUMENTS",
        )  # fmt: skip
    digits, prefix = block
    whole, rest = divmod(prefix, 4)
    tests = [f"substring(__H, 1, {whole}) = '{digits[:whole]}'"] if whole else []
    if rest:
        nibble = int(digits[whole], 16) >> (4 - rest)
        tests.append(
            f"shiftright(CAST(conv(substring(__H, {whole + 1}, 1), 16, 10) AS INT), "
            f"{4 - rest}) = {nibble}"
        )
    inside = " AND ".join(tests).replace("__H", _V6_HEX) or "true"
    template = f"CASE WHEN __a0 IS NULL THEN NULL WHEN {_V6_VALID} THEN {inside} ELSE false END"
    return expand(template, args[0], lit(IPV4), lit(HEXTET))


_ISO = {
    "is_valid_country_code": {"alpha-2": iso_codes.COUNTRY_ALPHA_2,
                              "alpha-3": iso_codes.COUNTRY_ALPHA_3,
                              "numeric": iso_codes.COUNTRY_NUMERIC},
    "is_valid_currency_code": {"alphabetic": iso_codes.CURRENCY_ALPHABETIC,
                               "numeric": iso_codes.CURRENCY_NUMERIC},
}  # fmt: skip


def _iso(name: str, args: list[exp.Expr], ctx: PassContext) -> exp.Expr:
    """``args[0]`` among the codes of ``name``'s format (``args[1]``, a text literal; the first
    format by default), case-insensitively when ``args[2]`` is ``false``."""
    formats = _ISO[name]
    kind = next(iter(formats))
    if len(args) > 1:
        if not (isinstance(args[1], exp.Literal) and args[1].is_string):
            raise library_error(ctx, f"{name}'s format is a text literal", args[1],
                                "LIBRARY_ARGUMENTS")  # fmt: skip
        kind = str(args[1].this).lower()
        if kind not in formats:
            raise library_error(ctx, f"{name}'s format is one of {', '.join(formats)}", args[1],
                                "LIBRARY_ARGUMENTS")  # fmt: skip
    sensitive = True
    if len(args) > 2:
        if not isinstance(args[2], exp.Boolean):
            raise library_error(ctx, f"{name}'s case_sensitive is true or false", args[2],
                                "LIBRARY_ARGUMENTS")  # fmt: skip
        sensitive = bool(args[2].this)
    codes = sorted(formats[kind])
    value = "CAST(__a0 AS STRING)"
    if not sensitive:
        value, codes = f"lower({value})", [c.lower() for c in codes]
    return expand(f"{value} IN ({', '.join(repr(c) for c in codes)})", args[0])


@register("is_valid_country_code", 1, 2, 3)
def _country(args: list[exp.Expr], ctx: PassContext) -> exp.Expr:
    """True when the value is a code ISO 3166-1 assigns (``alpha-2``, ``alpha-3`` or
    ``numeric``)."""
    return _iso("is_valid_country_code", args, ctx)


@register("is_valid_currency_code", 1, 2, 3)
def _currency(args: list[exp.Expr], ctx: PassContext) -> exp.Expr:
    """True when the value is a code ISO 4217 assigns (``alphabetic`` or ``numeric``)."""
    return _iso("is_valid_currency_code", args, ctx)


def _readable_time(name: str, args: list[exp.Expr], ctx: PassContext) -> exp.Expr:
    if len(args) == 1:
        return expand("CASE WHEN __a0 IS NOT NULL THEN try_to_timestamp(__a0) IS NOT NULL END",
                      args[0])  # fmt: skip
    if not (isinstance(args[1], exp.Literal) and args[1].is_string):
        raise library_error(ctx, f"{name}'s format is a text literal such as 'yyyy-MM-dd'",
                            args[1], "LIBRARY_ARGUMENTS")  # fmt: skip
    return expand(
        "CASE WHEN __a0 IS NOT NULL THEN try_to_timestamp(__a0, __a1) IS NOT NULL END", *args
    )


@register("is_valid_date", 1, 2)
def _date(args: list[exp.Expr], ctx: PassContext) -> exp.Expr:
    """True when Spark's ``try_to_timestamp`` reads the value (in the format, when given)."""
    return _readable_time("is_valid_date", args, ctx)


@register("is_valid_timestamp", 1, 2)
def _timestamp(args: list[exp.Expr], ctx: PassContext) -> exp.Expr:
    """True when Spark's ``try_to_timestamp`` reads the value (in the format, when given)."""
    return _readable_time("is_valid_timestamp", args, ctx)


_EPOCH = datetime(1970, 1, 1, tzinfo=timezone.utc)


def _instant(node: exp.Expr, ctx: PassContext) -> str:
    """``at`` of :func:`_recent` as SQL: an ISO text as its instant (a date: the end of it)."""
    if not (isinstance(node, exp.Literal) and node.is_string):
        return "__a2"
    text = str(node.this)
    try:
        when = parse_datetime(text)
    except QualityError as err:
        raise library_error(ctx, f"is_recent's time: {err.message}", node,
                            "LIBRARY_ARGUMENTS") from None  # fmt: skip
    if when.tzinfo is None:
        when = when.replace(tzinfo=timezone.utc)
    if len(text.strip()) == 10:  # a date: its data runs to the end of the day
        when += timedelta(days=1)
    return f"timestamp_micros({(when - _EPOCH) // timedelta(microseconds=1)})"


@register("is_recent", 2, 3)
def _recent(args: list[exp.Expr], ctx: PassContext) -> exp.Expr:
    """True when the time is no older than the duration at the given time (else the clock)."""
    span = args[1]
    try:
        if not (isinstance(span, exp.Literal) and span.is_string):
            raise ValueError
        micros = parse_duration(str(span.this)) // timedelta(microseconds=1)
    except (ValueError, QualityError):
        raise library_error(ctx, "is_recent's duration is a text literal such as '1 day' or "
                            "'6 hours'", span, "LIBRARY_ARGUMENTS") from None  # fmt: skip
    if len(args) == 3:
        at = _instant(args[2], ctx)
    elif not ctx.policy.allow_clock:
        raise library_error(ctx, "is_recent without its time reads the clock, which the "
                            "policy forbids: give the time, such as '${DATA_TIME}'", span,
                            "LIBRARY_ARGUMENTS")  # fmt: skip
    else:
        at = "current_timestamp()"
    template = (f"CASE WHEN __a0 IS NOT NULL THEN try_cast(__a0 AS TIMESTAMP) >= "
                f"timestamp_micros(unix_micros({at}) - {micros}) END")  # fmt: skip
    return expand(template, *args)
