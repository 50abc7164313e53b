"""Headless Chromium for the report tests: the page's DOM after loading, and a screenshot.

Chromium comes from the system packages (``scripts/test.sh`` installs it where missing). In CI
(``CI`` set) a missing browser fails the tests that need it; elsewhere they are skipped.
"""

from __future__ import annotations

import os
import shutil
import subprocess
import tempfile
from html.parser import HTMLParser
from pathlib import Path
from typing import Any

import pytest

ROOT = Path(__file__).resolve().parents[1]
#: where tests keep what they render (screenshots), for people to look at after a run
OUTPUT = ROOT / "out" / "test-output"
_FLAGS = [
    "--headless",
    "--no-sandbox",
    "--disable-gpu",
    "--disable-quic",
    "--no-first-run",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
    "--hide-scrollbars",
]


def chromium() -> str:
    """The Chromium executable, or skip (fail in CI) when there is none."""
    found = shutil.which("chromium") or shutil.which("chromium-browser")
    if found is None:
        if os.environ.get("CI"):
            pytest.fail(
                "Chromium is missing: scripts/test.sh installs it (apt-get install chromium)"
            )
        pytest.skip("Chromium is not installed (scripts/test.sh installs it)")
    return found


def _run(page: Path, *extra: str, fragment: str = "", stderr: list[str] | None = None) -> str:
    with tempfile.TemporaryDirectory() as profile:
        done = subprocess.run(
            [
                chromium(),
                *_FLAGS,
                f"--user-data-dir={profile}",
                *extra,
                page.resolve().as_uri() + fragment,
            ],
            capture_output=True,
            text=True,
            timeout=120,
            check=False,
        )
    if done.returncode != 0:
        raise AssertionError(f"chromium exited {done.returncode}: {done.stderr[-2000:]}")
    if stderr is not None:
        stderr.extend(done.stderr.splitlines())
    return done.stdout


def dump_dom(page: Path) -> str:
    """The page's DOM as Chromium serialises it after loading (not the file's text)."""
    return _run(page, "--virtual-time-budget=2000", "--dump-dom")


def console_checked_dom(page: Path, fragment: str = "") -> str:
    """The page's DOM after loading (at address fragment ``fragment``, e.g. ``#status=failed``),
    failing when the page wrote anything to the browser's console (a script error, say)."""
    lines: list[str] = []
    dom = _run(
        page,
        "--virtual-time-budget=3000",
        "--enable-logging=stderr",
        "--v=0",
        "--dump-dom",
        fragment=fragment,
        stderr=lines,
    )
    console = [line for line in lines if ":CONSOLE" in line or "Uncaught" in line]
    assert not console, f"{page.name}: the browser's console says {console}"
    return dom


def screenshot(page: Path, name: str, height: int = 3000, into: Path | None = None) -> Path:
    """A screenshot of ``page`` kept as ``out/test-output/<name>.png`` (or in ``into``)."""
    folder = into or OUTPUT
    folder.mkdir(parents=True, exist_ok=True)
    target = folder / f"{name}.png"
    target.unlink(missing_ok=True)
    _run(page, f"--window-size=1300,{height}", f"--screenshot={target}")
    assert target.exists() and target.stat().st_size > 10_000, "no screenshot was written"
    return target


class Elements(HTMLParser):
    """Every element's tag, attributes and text (the text of its direct text nodes)."""

    def __init__(self, text: str) -> None:
        super().__init__()
        self.items: list[dict[str, Any]] = []
        self._open: list[dict[str, Any]] = []
        self.feed(text)

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        item = {"tag": tag, "attrs": dict(attrs), "text": ""}
        self.items.append(item)
        if tag not in ("br", "meta", "line", "polyline", "rect", "input", "img"):
            self._open.append(item)

    def handle_endtag(self, tag: str) -> None:
        while self._open:
            if self._open.pop()["tag"] == tag:
                break

    def handle_data(self, data: str) -> None:
        if self._open:
            self._open[-1]["text"] += data

    def find(self, tag: str | None = None, **attrs: str) -> list[dict[str, Any]]:
        """The elements with ``tag`` whose attributes include ``attrs`` (``data_x`` = ``data-x``)."""
        wanted = {k.replace("_", "-"): v for k, v in attrs.items()}
        return [
            e
            for e in self.items
            if (tag is None or e["tag"] == tag)
            and all(e["attrs"].get(k) == v for k, v in wanted.items())
        ]
