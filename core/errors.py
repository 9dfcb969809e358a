"""What a service refuses, by kind. Services in every app raise these; the API (core.api_errors)
turns each kind into its HTTP status and the pages show ``detail`` beside the form."""

from __future__ import annotations

from django.db import InterfaceError, InternalError, OperationalError

# PostgreSQL's read_only_sql_transaction: a write reached a server that is (now) a standby, as
# when a pooler still points at a primary that a failover demoted.
READ_ONLY_SQLSTATE = "25006"


class ServiceError(Exception):
    kind = "invalid"  # invalid | forbidden | not_found | conflict

    def __init__(self, code: str, detail: str) -> None:
        super().__init__(detail)
        self.code = code
        self.detail = detail


class InvalidRequest(ServiceError):
    kind = "invalid"


class Forbidden(ServiceError):
    kind = "forbidden"


class NotFound(ServiceError):
    kind = "not_found"


class Conflict(ServiceError):
    kind = "conflict"


def database_unavailable(exc: BaseException) -> bool:
    """Whether ``exc`` says the database cannot serve now (a broken connection, a restart, a
    failover), which is answered 503 and retried, rather than a fault of the request's own."""
    if isinstance(exc, (OperationalError, InterfaceError)):
        return True
    return isinstance(exc, InternalError) and getattr(exc.__cause__, "sqlstate", None) == READ_ONLY_SQLSTATE
