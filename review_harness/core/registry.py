"""Functions registered under names with a decorator: a rule engine's detectors, looked up by
the ids its data names.

    DETECTORS: Registry[Detector] = Registry("detector")
    detector = DETECTORS.register

    @detector("retries")
    def retries(ctx): ...
"""

from __future__ import annotations

from collections.abc import Callable
from typing import TypeVar

F = TypeVar("F", bound=Callable)


class Registry(dict[str, F]):
    """name -> function; registering a name twice is an error (two modules claiming one id)."""

    def __init__(self, what: str):
        super().__init__()
        self.what = what

    def register(self, name: str) -> Callable[[F], F]:
        def add(fn: F) -> F:
            if name in self:
                raise ValueError(f"two {self.what}s registered as {name!r}")
            self[name] = fn
            return fn

        return add
