"""Size bounds of SQL values as polynomials in the data's size (the algebra of ``bound_growth``).

A bound is a polynomial with non-negative coefficients over ``N``, the size of the largest
value the row or a permitted view holds, and one variable per enclosing lambda (the size of
the element it is called with). ``sum``, ``scale`` and ``max`` keep the degree; only a
product of two data-sized values raises it. A rule whose value has degree 2 in ``N`` grows with
the square of the data and is refused; so is a coefficient over the policy's cap.

>>> n = var("N")
>>> show(add(scale(n, 3), const(5)))
'3·N + 5'
>>> degree(mul(n, n))
2
"""

from __future__ import annotations

from collections.abc import Iterable

#: One term: the variables with their exponents, sorted; ``()`` is the constant.
Monomial = tuple[tuple[str, int], ...]
#: A polynomial: coefficient per monomial.
Poly = dict[Monomial, float]


def const(value: float) -> Poly:
    return {(): float(value)} if value else {}


def var(name: str) -> Poly:
    return {((name, 1),): 1.0}


def add(*polys: Poly) -> Poly:
    out: Poly = {}
    for poly in polys:
        for mono, coef in poly.items():
            out[mono] = out.get(mono, 0.0) + coef
    return out


def scale(poly: Poly, factor: float) -> Poly:
    return {mono: coef * factor for mono, coef in poly.items()} if factor else {}


def bound_max(polys: Iterable[Poly]) -> Poly:
    """A bound of each of ``polys`` (coefficient-wise maximum: all coefficients are >= 0)."""
    out: Poly = {}
    for poly in polys:
        for mono, coef in poly.items():
            out[mono] = max(out.get(mono, 0.0), coef)
    return out


def _times(left: Monomial, right: Monomial) -> Monomial:
    powers = dict(left)
    for name, power in right:
        powers[name] = powers.get(name, 0) + power
    return tuple(sorted(powers.items()))


def mul(left: Poly, right: Poly) -> Poly:
    out: Poly = {}
    for lm, lc in left.items():
        for rm, rc in right.items():
            mono = _times(lm, rm)
            out[mono] = out.get(mono, 0.0) + lc * rc
    return out


def power(poly: Poly, exponent: int) -> Poly:
    out = const(1)
    for _ in range(exponent):
        out = mul(out, poly)
    return out


def split(poly: Poly, name: str) -> dict[int, Poly]:
    """``poly`` as a polynomial in ``name``: the coefficient polynomial of each power."""
    out: dict[int, Poly] = {}
    for mono, coef in poly.items():
        powers = dict(mono)
        exponent = powers.pop(name, 0)
        rest = tuple(sorted(powers.items()))
        out.setdefault(exponent, {})[rest] = out.get(exponent, {}).get(rest, 0.0) + coef
    return out


def degree(poly: Poly) -> int:
    return max((sum(p for _, p in mono) for mono in poly), default=0)


def largest_coefficient(poly: Poly) -> float:
    """The largest coefficient of a term that holds a variable."""
    return max((coef for mono, coef in poly.items() if mono), default=0.0)


def constant(poly: Poly) -> float:
    return poly.get((), 0.0)


def show(poly: Poly) -> str:
    def term(mono: Monomial, coef: float) -> str:
        names = "·".join(n if p == 1 else f"{n}^{p}" for n, p in mono)
        number = f"{coef:,.0f}"
        return number if not names else (names if coef == 1 else f"{number}·{names}")

    ordered = sorted(poly.items(), key=lambda kv: (-sum(p for _, p in kv[0]), kv[0]))
    return " + ".join(term(m, c) for m, c in ordered if c) or "0"
