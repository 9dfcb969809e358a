"""What a service refuses, by kind. Services in every app raise these; the API (core.api_errors)
turns each kind into its HTTP status and the pages show ``detail`` beside the form."""

from __future__ import annotations


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
