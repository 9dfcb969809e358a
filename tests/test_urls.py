"""Each app owns its routes: its pages in ``<app>/urls.py``, its API in ``<app>/api_urls.py``,
and dragonheart_site/urls.py only includes them (no view is named there)."""

from __future__ import annotations

import ast
from pathlib import Path

import pytest
from django.urls import URLPattern, URLResolver, get_resolver

from tests.support.source import parse

ROOT = Path(__file__).resolve().parents[1]
APPS = ("core", "accounts", "games", "players", "notifications")
# What the site's URLconf may include besides the apps' own modules: Django's language
# switcher and the mail provider's inbound webhook.
LIBRARY_URLS = {"django.conf.urls.i18n", "anymail.urls"}
APP_URLS = {f"{app}.{name}" for app in APPS for name in ("urls", "api_urls")}


def _not_included(source: str) -> list[str]:
    """The routes of a URLconf's source that name anything but an included module (or the
    admin's own site), and what it imports besides Django's URL helpers and settings."""
    wrong = []
    for node in ast.walk(parse(source)):
        if isinstance(node, ast.ImportFrom) and node.module not in {
            "__future__", "django.conf", "django.contrib", "django.urls",
        }:  # fmt: skip
            wrong.append(f"from {node.module} import …")
        if isinstance(node, ast.Import):
            wrong.append(f"import {', '.join(alias.name for alias in node.names)}")
        if isinstance(node, ast.Call) and getattr(node.func, "id", None) == "path":
            target = node.args[1]
            if ast.unparse(target) == "admin.site.urls":
                continue
            name = None
            if isinstance(target, ast.Call) and getattr(target.func, "id", None) == "include":
                first = target.args[0]
                name = first.value if isinstance(first, ast.Constant) else None
            if name not in APP_URLS | LIBRARY_URLS:
                wrong.append(ast.unparse(node))
    return wrong


def test_the_site_urlconf_only_includes_the_apps_url_modules() -> None:
    assert _not_included((ROOT / "dragonheart_site" / "urls.py").read_text()) == []


@pytest.mark.parametrize(
    "line",
    [
        'path("", views.home, name="home")',
        'path("jsi18n/", JavaScriptCatalog.as_view(), name="javascript-catalog")',
        'path("", include("games.views"))',
    ],
)
def test_it_sees_a_view_named_in_the_site_urlconf(line: str) -> None:
    source = (ROOT / "dragonheart_site" / "urls.py").read_text()
    planted = source.replace("urlpatterns = [\n", f"urlpatterns = [\n    {line},\n", 1)
    assert _not_included(planted) == [ast.unparse(ast.parse(line))]


def _routes(
    patterns: list[URLPattern | URLResolver], module: str, prefix: str = ""
) -> list[tuple[str, str, str]]:
    """(the URLconf module a route is written in, its path, its view's module), every route."""
    found = []
    for pattern in patterns:
        if isinstance(pattern, URLResolver):
            inner = getattr(pattern.urlconf_module, "__name__", module)
            found += _routes(pattern.url_patterns, inner, prefix + str(pattern.pattern))
        else:
            view = getattr(pattern.callback, "view_class", pattern.callback)
            found.append((module, prefix + str(pattern.pattern), view.__module__))
    return found


def test_each_app_routes_its_own_views_pages_in_urls_and_api_in_api_urls() -> None:
    routes = [r for r in _routes(get_resolver().url_patterns, "") if r[0] in APP_URLS]
    pages = ("accounts", "games", "notifications", "players")
    api = ("core", "accounts", "games", "notifications", "players")
    assert {module for module, _path, _view in routes} == {f"{app}.urls" for app in pages} | {
        f"{app}.api_urls" for app in api
    }
    for module, path, view in routes:
        app, kind = module.split(".")
        assert view.split(".")[0] in {app, "django"}, f"{path} routes {view} from {module}"
        assert path.startswith("api/") == (kind == "api_urls"), f"{path} in {module}"
