"""Reading and writing suites: YAML rulesets."""

from __future__ import annotations
