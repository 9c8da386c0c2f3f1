"""Headless Chromium settings shared by the browser tests (Debian's chromium; no downloads)."""

from __future__ import annotations

CHROMIUM = "/usr/bin/chromium"
# Without the background-networking flags Chromium tries to reach Google's hosts at start,
# which this offline machine refuses.
CHROMIUM_ARGS = [
    "--headless=new",
    "--no-sandbox",
    "--disable-gpu",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
    "--no-first-run",
]
