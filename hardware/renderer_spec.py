"""``[camera] renderer = "module:factory"``: the synthetic camera's frames from code named in table.toml.

Apart from the camera so that ``config check`` (``hardware.config``, beside the camera, not over it)
can check the name the same way the camera loads it."""

from __future__ import annotations

import importlib
import inspect
from collections.abc import Callable
from typing import Any

from hardware.errors import CameraError


def renderer_factory(spec: str) -> Callable[[int, int], Any]:
    """The factory ``"module:factory"`` names, checked to take ``(width, height)``; it returns the
    camera's ``render(index, t) -> frame | None``.

    Why checked before it is called: a typo that names some other callable (``os:system``) would
    otherwise pass ``config check`` and fail, or do something else, only when the camera starts."""
    mod_name, _, attr = spec.partition(":")
    try:
        factory = getattr(importlib.import_module(mod_name), attr)
    except (ImportError, AttributeError, ValueError) as exc:
        raise CameraError(f"找不到合成渲染器 {spec!r}（{exc}） / cannot load renderer {spec!r}: {exc}") from exc
    try:
        inspect.signature(factory).bind(0, 0)
    except (TypeError, ValueError) as exc:  # not callable, no signature, or not (width, height)
        raise CameraError(f"{spec!r} 不是渲染器工厂：须能以 factory(width, height) 调用（{exc}） / "
                          f"is not a renderer factory: it must be called as "
                          f"factory(width, height) ({exc})") from exc
    return factory
