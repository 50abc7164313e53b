"""Is the Spark session hardened against what a rule could still reach?

The policy stops dangerous constructs in rule text, and Spark's own switches are a second
wall: restricted mode (no reflection, no script transforms, checked on the analysed plan),
no SQL on files, and a reflection allowlist. They are static settings, so a library can only
report them; the CLI warns when it runs rules from tables or YAML on a session without them.
"""

from __future__ import annotations

from dataclasses import dataclass

from quality_py.model.types import SparkSession

_SETTINGS = {
    "spark.sql.restrictedMode.enabled": "true",
    "spark.sql.runSQLOnFiles": "false",
}


@dataclass(frozen=True, slots=True)
class SessionHardening:
    """The session's security-relevant settings and whether all are as recommended."""

    settings: dict[str, str | None]
    missing: tuple[str, ...]  # recommended settings that are not in place

    @property
    def hardened(self) -> bool:
        """True when every recommended setting the Spark version has is in place."""
        return not self.missing

    def describe(self) -> str:
        """A one-paragraph summary for logs and the CLI."""
        if self.hardened:
            return "the Spark session is hardened"
        return "the Spark session is not hardened; set when building it: " + ", ".join(
            f"{k}={_SETTINGS.get(k, '<allowlist>')}" for k in self.missing
        )


def check_session(spark: SparkSession) -> SessionHardening:
    """Read the hardening settings of ``spark`` (no job, no change).

    >>> check_session(spark).settings["spark.sql.runSQLOnFiles"] in ("true", "false", None)
    True
    """
    values: dict[str, str | None] = {}
    missing = []
    for key, wanted in _SETTINGS.items():
        try:
            value = spark.conf.get(key, None)
        except Exception:
            value = None
        values[key] = value
        if value is None and key == "spark.sql.restrictedMode.enabled":
            continue  # this Spark has no restricted mode: nothing to ask for
        if (value or "").lower() != wanted:
            missing.append(key)
    try:
        allow = spark.conf.get("spark.sql.reflect.allowList", None)
    except Exception:
        allow = None
    values["spark.sql.reflect.allowList"] = allow
    return SessionHardening(values, tuple(missing))
