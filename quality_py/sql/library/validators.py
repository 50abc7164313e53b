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

import re

from sqlglot import exp

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
#: a dot-atom local part followed by one dot: (atext+ .)+
DOT_ATOM_DOT = rf"\A(?:{_ATEXT}+\.)+\z"
#: the inside of a quoted local part, its escaped pairs removed, is quoted text
QUOTED_PAIR = _QPAIR
QUOTED_TEXT = rf"\A{_QTEXT}*\z"
#: a host name but its top-level label: (label .)+
HOST_LABELS = rf"\A(?:{_LABEL}\.)+\z"
TOP_LABEL = r"\A[A-Za-z]{2,63}\z"
IP_LITERAL = rf"\A\[(?:{_QUAD}|IPv6:[A-Fa-f0-9:]+)\]\z"
#: every pattern the expansions match (the regex check proves each linear: tested)
PATTERNS = (UUID, UUID_STRICT, IPV4, DOT_ATOM_DOT, QUOTED_PAIR, QUOTED_TEXT, HOST_LABELS,
            TOP_LABEL, IP_LITERAL)  # fmt: skip
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
    block = ipv4_block(str(node.this)) if isinstance(node, exp.Literal) and node.is_string else None
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
