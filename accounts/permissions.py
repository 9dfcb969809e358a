"""What a personal token's scopes let it call (accounts.scopes says what each scope is for).

A read (GET, HEAD, OPTIONS) needs ``read``. A write needs the scope its view declares as
``token_scope``; a write whose view declares none needs every scope: such calls change the
account itself (its tokens, settings, push subscriptions, turning it into a bot), which a token
made for a bot's moves should not reach. A browser session is not limited: its ``request.auth``
is None, and a person at the site may do anything. The check comes before the view runs, so a
token without the scope learns nothing from the call, not even whether the game exists.

Views that set their own ``permission_classes`` (the public ones, with AllowAny) are not
checked: whoever may call them without any credentials may call them with any token.
"""

from __future__ import annotations

from typing import Any

from django.core.exceptions import ImproperlyConfigured
from rest_framework.permissions import SAFE_METHODS, BasePermission
from rest_framework.request import Request

from accounts.authentication import TokenAuth
from accounts.scopes import READ, SCOPES

SCOPE_MISSING = "scope_missing"


def scopes_needed(method: str, view: Any) -> frozenset[str]:
    """The scopes a token needs to call ``method`` on ``view`` (a view or its class)."""
    if method in SAFE_METHODS:
        return frozenset({READ})
    declared = getattr(view, "token_scope", None)
    if declared is None:
        return frozenset(SCOPES)
    if declared not in SCOPES:  # a typo must not open a write to every token, nor close it
        raise ImproperlyConfigured(f"{type(view).__name__}.token_scope {declared!r} is not one of {SCOPES}")
    return frozenset({declared})


def missing_scopes_detail(missing: list[str]) -> str:
    if len(missing) == 1:
        return f"This token lacks the {missing[0]} scope, which this call needs."
    return (
        f"This token lacks the {', '.join(missing[:-1])} and {missing[-1]} scopes, which this call needs "
        "(a change to the account needs a token with every scope)."
    )


class TokenScopes(BasePermission):
    """Refuses a token's call outside its scopes: 403 ``scope_missing``, naming them."""

    code = SCOPE_MISSING

    def has_permission(self, request: Request, view: Any) -> bool:
        auth = request.auth
        if not isinstance(auth, TokenAuth):  # a session, or nobody (IsAuthenticated's to refuse)
            return True
        needed = scopes_needed(request.method or "GET", view)
        missing = [scope for scope in SCOPES if scope in needed and scope not in auth.scopes]
        if not missing:
            return True
        # DRF makes a permission per request, so the message is this request's alone.
        self.message = missing_scopes_detail(missing)
        return False


def document_token_scopes(
    result: dict[str, Any], generator: Any, request: Any, public: bool
) -> dict[str, Any]:
    """A drf-spectacular hook: each operation a token's scopes limit says which scope it needs
    (in its description and as ``x-token-scopes``), and its 403 may be ``scope_missing``."""
    for path, _regex, method, callback in getattr(generator, "endpoints", None) or []:
        view = getattr(callback, "cls", None)
        operation = result.get("paths", {}).get(path, {}).get(method.lower())
        if view is None or operation is None or TokenScopes not in view.permission_classes:
            continue
        if _token_may_call(operation):
            _describe(operation, sorted(scopes_needed(method, view), key=SCOPES.index))
    return result


def _token_may_call(operation: dict[str, Any]) -> bool:
    return any("tokenAuth" in requirement for requirement in operation.get("security", []))


def _describe(operation: dict[str, Any], scopes: list[str]) -> None:
    operation["x-token-scopes"] = scopes
    words = ", ".join(f"`{scope}`" for scope in scopes)
    said = f"A token needs the scope{'s' if len(scopes) > 1 else ''} {words}."
    operation["description"] = f"{operation.get('description', '')}\n\n{said}".strip()
    refused = operation.setdefault("responses", {}).setdefault("403", {"description": "Error"})
    refused["description"] = f"{refused.get('description', 'Error')}; `scope_missing`: {said}"
