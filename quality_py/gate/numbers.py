"""Numbers from outside a run, typed once: finite, of the kind asked for, in their range.

A threshold of ``.nan`` compares false with everything, so an alert it guards never fires; an
``inf`` bound lets every value through. Every numeric parameter a ruleset, a ``${VAR}``, the
command line or a caller gives (alert thresholds, anomaly bounds and factors, windows, bounds of
dataset checks, quantiles, histogram edges, sizes) is read by :func:`number`, which refuses
those and names the parameter; a dataclass states the range of each numeric field once, in the
field's metadata (:func:`numeric`), and :func:`check_fields` applies them on construction, so a
value is checked whichever way it arrives. ``tests/unit/test_numbers.py`` walks every such
class and fails on a numeric field that declares no range.

>>> number("0.25", name="run", low=0, high=1)
0.25
>>> try:
...     number(float("nan"), name="max_increase")
... except ModelError as err:
...     print(err.parameter, "|", err.message)
max_increase | max_increase must be a finite number, not nan
"""

from __future__ import annotations

import dataclasses
import math
from decimal import Decimal
from typing import Any

from quality_py.errors import ModelError

#: The metadata key of a field's range (see :func:`numeric`).
KEY = "quality_py_number"


def parameter_error(name: str, message: str) -> ModelError:
    """A refused parameter: the error names it (``err.parameter``), so a YAML reader can point at
    the value's line and column."""
    err = ModelError(message)
    err.parameter = name  # type: ignore[attr-defined]
    return err


def _range_text(low: float | None, high: float | None, low_open: bool, high_open: bool) -> str:
    if low is not None and high is not None:
        return f"in {'(' if low_open else '['}{low:g}, {high:g}{')' if high_open else ']'}"
    if low is not None:
        return f"{'above' if low_open else 'at least'} {low:g}"
    if high is not None:
        return f"{'below' if high_open else 'at most'} {high:g}"
    return ""


def number(
    value: object,
    *,
    name: str,
    low: float | None = None,
    high: float | None = None,
    low_open: bool = False,
    high_open: bool = False,
    integer: bool = False,
) -> Any:
    """``value`` as a finite float (an int with ``integer``) in its range, else a
    :class:`~quality_py.errors.ModelError` naming ``name``. Text that reads as a number is a
    number (values from ``${VAR}`` and the command line are text); booleans are not.

    >>> number(3, name="window", low=1, integer=True), number("1e3", name="n")
    (3, 1000.0)
    >>> try:
    ...     number(1.5, name="window", integer=True)
    ... except ModelError as err:
    ...     print(err.message)
    window must be a whole number, not 1.5
    """
    if isinstance(value, bool) or not isinstance(value, int | float | Decimal | str):
        raise parameter_error(name, f"{name} must be a number, not {value!r}")
    try:
        as_float = float(value.strip() if isinstance(value, str) else value)
    except (ValueError, OverflowError):
        raise parameter_error(name, f"{name} must be a number, not {value!r}") from None
    if not math.isfinite(as_float):
        raise parameter_error(name, f"{name} must be a finite number, not {value}")
    out: float | int = value if isinstance(value, int) else as_float  # 12 stays 12
    if integer:
        if isinstance(value, int):
            out = value
        elif as_float.is_integer() and abs(as_float) < 2**53:
            out = int(as_float)
        else:
            raise parameter_error(name, f"{name} must be a whole number, not {value}")
    below = low is not None and (out <= low if low_open else out < low)
    above = high is not None and (out >= high if high_open else out > high)
    if below or above:
        span = _range_text(low, high, low_open, high_open)
        raise parameter_error(name, f"{name} must be {span}, not {value}")
    return out


def numeric(
    low: float | None = None,
    high: float | None = None,
    *,
    low_open: bool = False,
    high_open: bool = False,
    integer: bool = False,
    optional: bool = False,
) -> dict[str, Any]:
    """A dataclass field's metadata stating its range: ``field(default=..., metadata=numeric(0,
    1))``; ``optional``: None is allowed (the parameter is off).

    >>> numeric(0, 1)[KEY]["high"]
    1
    """
    spec = {"low": low, "high": high, "low_open": low_open, "high_open": high_open}
    return {KEY: {**spec, "integer": integer, "optional": optional}}


def check_fields(obj: object) -> None:
    """Check, and store as typed numbers, every field of the dataclass ``obj`` whose metadata
    states a range (:func:`numeric`); call it first in ``__post_init__``.

    >>> @dataclasses.dataclass(frozen=True)
    ... class Rate:
    ...     share: float = dataclasses.field(default=0.5, metadata=numeric(0, 1))
    ...     def __post_init__(self) -> None:
    ...         check_fields(self)
    >>> Rate("0.2").share
    0.2
    """
    for f in dataclasses.fields(obj):  # type: ignore[arg-type]
        spec = f.metadata.get(KEY)
        if spec is None:
            continue
        value = getattr(obj, f.name)
        if value is None and spec["optional"]:
            continue
        checked = number(
            value,
            name=f.name,
            low=spec["low"],
            high=spec["high"],
            low_open=spec["low_open"],
            high_open=spec["high_open"],
            integer=spec["integer"],
        )
        object.__setattr__(obj, f.name, checked)
