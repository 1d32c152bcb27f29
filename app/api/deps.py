"""Typed dependencies that routes declare."""

from __future__ import annotations

from typing import Annotated

from fastapi import Depends, Request

from app.composition import Resources


def get_resources(request: Request) -> Resources:
    resources: Resources = request.app.state.resources
    return resources


ResourcesDep = Annotated[Resources, Depends(get_resources)]
