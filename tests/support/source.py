"""Python source parsed as the tests that read the project's code parse it."""

from __future__ import annotations

import ast
from concurrent.futures import ThreadPoolExecutor


def parse(source: str) -> ast.Module:
    """``ast.parse`` in a thread of its own. CPython 3.11.7's AST validator keeps a recursion
    count in the thread's state, which something an earlier test did in the same thread can
    leave off: once, in a whole run, every module was then refused with "SystemError: AST
    constructor recursion depth mismatch (before=144, after=163)" (CPython's issue 106905). A
    new thread starts its count afresh."""
    with ThreadPoolExecutor(max_workers=1) as pool:
        return pool.submit(ast.parse, source).result()
