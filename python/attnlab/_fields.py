"""The stepper's keyword arguments: trace()'s request fields in snake_case (the core's schema,
staged into static/schema.json), plus the element's own state fields, each checked and
converted the way the element's state.js checks them, so a mistake raises in Python with the
argument's name instead of a message inside the widget.
"""

from __future__ import annotations

import difflib
import re

from . import _convert as c
from ._assets import schema

# The backward pass's request fields are the element's own (backward=True, d_output=…).
_SKIPPED_GROUPS = {"BackwardFields"}
MATRIX_NAMES = ("X", "Wq", "Wk", "Wv", "Wo", "Q", "K", "V")


def snake(name: str) -> str:
    """keyPadding → key_padding; the matrices keep their names (X, Wq, Q, …)."""
    return name if name in MATRIX_NAMES else re.sub(r"(?<!^)([A-Z])", lambda m: "_" + m.group(1).lower(), name)


def _choice(choices):
    def check(name, value):
        if value not in choices:
            raise ValueError(f"{name} must be one of {', '.join(map(repr, choices))}, got {value!r}")
        return value

    return check


def _probability(name, value):
    value = c.to_number(name, value)
    if not 0 <= value < 1:
        raise ValueError(f"{name} must be a probability from 0 up to (not including) 1, got {value}")
    return value


def _window(name, value):
    if isinstance(value, dict):
        unknown = set(value) - {"left", "right"}
        if unknown:
            raise ValueError(f"{name} takes only 'left' and 'right', got {sorted(unknown)}")
        return {side: c.to_whole(f"{name}[{side!r}]", v) for side, v in value.items()}
    return c.to_whole(name, value)


def _indices(name, value):
    if hasattr(value, "detach"):
        value = value.detach().cpu().numpy()
    return [c.to_whole(f"{name}[{i}]", v) for i, v in enumerate(list(value))]


def _row(name, value):
    return c.to_array(name, value, dims=1).tolist()


def _tokens(name, value):
    if isinstance(value, str) or not all(isinstance(t, str) for t in value):
        raise TypeError(f"{name} must be a list of strings (one label a token), got {value!r}")
    return list(value)


def _scale(name, value):
    return bool(value) if isinstance(value, bool) else c.to_number(name, value)


def _checker(field):
    kind = field["kind"]
    if kind == "whole":
        minimum = int(field.get("min") or 0)
        return lambda name, value: c.to_whole(name, value, minimum)
    if "choices" in field:  # "choice", and kinds like "alignment" that list their values
        return _choice(field["choices"])
    return {
        "matrix": lambda name, value: c.to_matrix(name, value),
        "boolean": c.to_bool,
        "number": c.to_number,
        "probability": _probability,
        "choice": _choice(field.get("choices", [])),
        "flags": c.to_flags,
        "mask": c.to_mask,
        "indices": _indices,
        "row": _row,
        "window": _window,
        "text": lambda name, value: str(value),
    }.get(kind, _unchecked)


def _unchecked(name, value):
    """A kind this package does not know yet (a newer core): the element checks it."""
    return value.tolist() if hasattr(value, "tolist") else value


def _fields():
    """snake_case name → (state field name, checker)."""
    fields = {}
    for group, entries in schema()["traceGroups"].items():
        if group in _SKIPPED_GROUPS:
            continue
        for field in entries:
            fields[snake(field["name"])] = (field["name"], _checker(field))
    # The element's own fields (web/element/state.js).
    fields.update(
        tokens=("tokens", _tokens),
        scale=("scale", _scale),
        backward=("backward", c.to_bool),
        d_output=("dOutput", lambda name, value: c.to_matrix(name, value)),
        predict=("predict", c.to_bool),
    )
    return fields


def state_from_kwargs(kwargs: dict) -> dict:
    """The element's state fields for `kwargs` (snake_case), each checked; a TypeError names an unknown one."""
    fields = _fields()
    state = {}
    for key, value in kwargs.items():
        if key not in fields:
            close = difflib.get_close_matches(key, list(fields), n=3)
            hint = f"; did you mean {', '.join(close)}?" if close else f"; the options are {', '.join(sorted(fields))}"
            raise TypeError(f"Stepper() got an unknown argument {key!r}{hint}")
        if value is None:
            continue
        name, check = fields[key]
        state[name] = check(key, value)
    return state


def option_names() -> list[str]:
    return sorted(_fields())
