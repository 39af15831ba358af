"""The endpoints of docs/api.md §1 as Flask views, each derived from its declaration
(:mod:`referee.service.endpoints`): its route, its OpenAPI documentation, and a call of its handler
(:mod:`referee.service.answers`), which does the work.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from flask import Response, request
from flask_smorest import Blueprint

from referee.service.context import Referee
from referee.service.endpoints import ENDPOINTS, Endpoint
from referee.service.openapi import ERROR_RESPONSES
from referee.service.reading import JSON

View = Callable[..., Response]


def game_blueprint(ref: Referee) -> Blueprint:
    """The game endpoints, one view for each declaration, in the declarations' order."""
    blp = Blueprint("game", __name__, description="The referee (docs/api.md §1).")
    for endpoint in ENDPOINTS:
        documented(blp, endpoint)(view_of(ref, endpoint))
    return blp


def view_of(ref: Referee, endpoint: Endpoint) -> View:
    """The Flask view of ``endpoint``: its handler's answer as a Response (the path's parameters passed on)."""
    handler, content_type = endpoint.handler, endpoint.content_type

    def view(**params: Any) -> Response:
        status, body, lang = handler(ref, request.environ, **params)
        resp = Response(body, status=status, content_type=content_type)
        if lang is not None:
            resp.headers["Content-Language"] = lang
        return resp

    view.__name__ = endpoint.name  # Flask's endpoint name, "game." + name: metrics and logs
    view.__doc__ = endpoint.doc  # flask-smorest's summary and description
    return view


def documented(blp: Blueprint, endpoint: Endpoint) -> Callable[[View], View]:
    """flask-smorest's decorators of ``endpoint``: its route and its OpenAPI operation."""

    def decorate(view: View) -> View:
        for name in endpoint.errors:
            view = blp.alt_response(ERROR_RESPONSES[name][1], response=name)(view)
        if endpoint.response is None:  # a text answer (a record)
            text = {endpoint.content_type: {"schema": {"type": "string"}}}
            view = blp.doc(
                responses={str(endpoint.status): {"description": endpoint.response_description, "content": text}}
            )(view)
        else:
            view = blp.response(
                endpoint.status, endpoint.response, description=endpoint.response_description, content_type=JSON
            )(view)
        if endpoint.request is not None:
            content: dict[str, Any] = {"schema": endpoint.request.schema}
            if endpoint.request.example is not None:
                content["example"] = endpoint.request.example
            body = {"required": True, "description": endpoint.request.description, "content": {JSON: content}}
            view = blp.doc(requestBody=body)(view)
        view = blp.doc(operationId=endpoint.operation_id)(view)
        routed: View = blp.route(endpoint.path, methods=[endpoint.method])(view)
        return routed

    return decorate
