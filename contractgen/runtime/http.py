"""A guarded tool whose implementation sends the call to an HTTP API with httpx: the operation that
``contractgen import`` recorded from an OpenAPI document (``x-openapi``), and ``HttpImplementation``.

The base URL and credentials come from the application's configuration, never from the model's
arguments: configured headers win over a header argument of the same name, and the path template
is filled with each argument quoted whole, so no argument can change the host or the path's shape.
HTTP errors go through the guard's transport mapping (``runtime.transport``, on by default): a 429's
Retry-After becomes ``retry_after``. httpx is imported when the tool is implemented, not with this module.
"""

from __future__ import annotations

import base64
import json
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any, Generic
from urllib.parse import quote

from .envelope_types import InT, OutT, WireT
from .guard import GuardedTool
from .stub import ToolStub

__all__ = ["HttpImplementation", "HttpOperation", "HttpParameter", "build_request"]


@dataclass(frozen=True)
class HttpParameter:
    """One argument sent as a path, query, header or cookie parameter named ``name``."""

    argument: str
    location: str
    name: str


@dataclass(frozen=True)
class HttpOperation:
    """How a call goes to HTTP; the build writes one per imported operation from ``x-openapi``."""

    method: str
    path: str
    parameters: tuple[HttpParameter, ...] = ()
    #: the body: one argument (``body_argument``), or these arguments as its properties
    body_argument: str | None = None
    body_properties: tuple[str, ...] = ()
    media_type: str = "application/json"
    #: the result: under this key when the response is not an object; ``text``/``base64`` when not JSON
    wrapped_as: str | None = None
    encoding: str | None = None
    servers: tuple[str, ...] = ()

    @classmethod
    def from_mapping(cls, mapping: Mapping[str, Any]) -> HttpOperation:
        """The operation from a manifest's ``x-openapi`` mapping."""
        body = mapping.get("body") or {}
        response = mapping.get("response") or {}
        return cls(
            method=str(mapping["method"]).upper(), path=str(mapping["path"]),
            parameters=tuple(HttpParameter(p["argument"], p["in"], p["name"]) for p in mapping.get("parameters", ())),
            body_argument=body.get("argument"), body_properties=tuple(body.get("properties", ())),
            media_type=str(body.get("media_type", "application/json")),
            wrapped_as=response.get("wrapped_as"), encoding=response.get("encoding"),
            servers=tuple(mapping.get("servers", ())))


@dataclass(frozen=True)
class Request:
    method: str
    path: str
    params: list[tuple[str, str]]
    headers: dict[str, str]
    body: Any  # JSON value, form mapping, or None for no body
    form: bool = False


def build_request(operation: HttpOperation, arguments: Mapping[str, Any]) -> Request:
    """The request for one call's (already validated) arguments, in their JSON form."""
    path = operation.path
    params: list[tuple[str, str]] = []
    headers: dict[str, str] = {}
    cookies: list[str] = []
    for parameter in operation.parameters:
        if parameter.argument not in arguments or arguments[parameter.argument] is None:
            continue
        value = arguments[parameter.argument]
        if parameter.location == "path":
            path = path.replace("{" + parameter.name + "}", quote(_text(value), safe=""))
        elif parameter.location == "query":
            # OpenAPI's default query style (form, exploded): a list repeats the name
            values = value if isinstance(value, list) else [value]
            params.extend((parameter.name, _text(v)) for v in values)
        elif parameter.location == "header":
            headers[parameter.name] = _text(value)
        elif parameter.location == "cookie":
            cookies.append(f"{parameter.name}={quote(_text(value), safe='')}")
    if cookies:
        headers["Cookie"] = "; ".join(cookies)
    body: Any = None
    if operation.body_argument is not None:
        body = arguments.get(operation.body_argument)
    elif operation.body_properties:
        body = {name: arguments[name] for name in operation.body_properties if name in arguments}
    return Request(operation.method, path, params, headers, body, form=operation.media_type.startswith(
        "application/x-www-form-urlencoded"))


def _text(value: Any) -> str:
    """A parameter value as text (OpenAPI's simple/form styles): true/false, numbers as JSON writes
    them, lists comma-joined, objects as JSON (a ``content`` parameter)."""
    if isinstance(value, str):
        return value
    if isinstance(value, list):
        return ",".join(_text(v) for v in value)
    return json.dumps(value, separators=(",", ":"), sort_keys=True)


class HttpImplementation(Generic[InT, OutT, WireT]):
    """``implement(base_url=..., headers=..., auth=...)``: the stub implemented by an HTTP call."""

    def __init__(self, stub: ToolStub[InT, OutT, WireT], operation: HttpOperation) -> None:
        self.stub, self.operation = stub, operation

    def __call__(self, *, base_url: str | None = None, headers: Mapping[str, str] | None = None,
                 auth: Any = None, client: Any = None, timeout: float = 30.0,
                 **options: Any) -> GuardedTool[InT, OutT, WireT]:
        """The guarded tool. ``base_url`` defaults to the document's first absolute server URL;
        ``headers`` and ``auth`` (an httpx auth) carry the credentials; ``client`` (an
        ``httpx.Client``) replaces the one made here (its base URL is then used as is); ``options``
        go to ``ToolStub.implement``."""
        import httpx

        if client is None:
            base = base_url or next((s for s in self.operation.servers if "://" in s), None)
            if base is None:
                raise ValueError(f"{self.stub.name}: expected a base_url (the document names no absolute server "
                                 f"URL: {list(self.operation.servers)})")
            client = httpx.Client(base_url=base, auth=auth, timeout=timeout)
        configured = dict(headers or {})
        operation = self.operation

        def call(arguments: Any) -> Any:
            sent = arguments.model_dump(mode="json", by_alias=True, exclude_unset=True) \
                if hasattr(arguments, "model_dump") else dict(arguments)
            request = build_request(operation, sent)
            lowered = {k.lower() for k in configured}
            extra = {k: v for k, v in request.headers.items() if k.lower() not in lowered}
            body: dict[str, Any] = {}
            if request.body is not None:
                body = {"data": request.body} if request.form else {"json": request.body}
            # httpx joins a path to the base URL's own path (base .../api, path /pets -> .../api/pets)
            response = client.request(request.method, request.path, params=request.params,
                                      headers={**extra, **configured}, **body)
            response.raise_for_status()
            return _result(operation, response)

        return self.stub.implement(call, **options)  # raise_for_status: the guard maps the status


def _result(operation: HttpOperation, response: Any) -> Any:
    """The parsed body as the output schema has it (the guard checks it like any result)."""
    if operation.encoding == "text":
        return {"content": response.text}
    if operation.encoding == "base64":
        return {"content": base64.b64encode(response.content).decode("ascii")}
    value = response.json() if response.content else {}
    return {operation.wrapped_as: value} if operation.wrapped_as is not None else value
