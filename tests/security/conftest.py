from __future__ import annotations

# The browser test here drives the same Debian chromium as tests/e2e, with the same arguments.
from tests.e2e.conftest import browser_type_launch_args  # noqa: F401
