"""The widgets: Stepper (the stepper, two-way) and View (a teaching view), both <attn-lab>
drawn by front.js from the files in their own state (_assets.py)."""

from __future__ import annotations

import anywidget
import numpy as np
import traitlets as t

from . import _assets
from ._convert import to_matrix
from ._fields import MATRIX_NAMES, state_from_kwargs

THEMES = ("auto", "light", "dark")
INPUTS = ("shown", "collapsed", "hidden")
CONTROLS = ("full", "minimal", "none")
# The views that read the little model's files (1.5 MB), which other widgets leave out.
MODEL_VIEWS = {"model"}


def _one_of(name, value, choices):
    if value not in choices:
        raise ValueError(f"{name} must be one of {', '.join(map(repr, choices))}, got {value!r}")
    return value


class _Element(anywidget.AnyWidget):
    """What every attnlab widget syncs: the element's files and how to draw it."""

    _esm = _assets.front_end()
    _kind = t.Unicode().tag(sync=True)
    _files = t.Dict().tag(sync=True)
    _bundle = t.Unicode().tag(sync=True)
    _attributes = t.Dict().tag(sync=True)
    theme = t.Unicode("auto").tag(sync=True)
    #: The element's message when it refused a state (a shape the core rejects), else "".
    error = t.Unicode("").tag(sync=True)

    def __init__(self, kind, attributes, *, theme, with_model, **traits):
        _one_of("theme", theme, THEMES)
        super().__init__(
            _kind=kind,
            _files=_assets.files_for(with_model),
            _bundle=_assets.bundle_key(),
            _attributes=attributes,
            theme=theme,
            **traits,
        )


    def _repr_mimebundle_(self, **kwargs):
        from . import _static

        bundle = super()._repr_mimebundle_(**kwargs)
        if _static._EMBED and bundle:
            data, metadata = bundle
            bundle = ({**data, "text/html": _static.fragment(self)}, metadata)
        return bundle


def _matrix_property(name):
    def get(self):
        value = self.state.get(name)
        return None if value is None else np.array(value, dtype=np.float64)

    def put(self, value):
        mode = "qkv" if name in ("Q", "K", "V") else "x" if name != "Wo" else self.state.get("mode", "x")
        self.state = {**self.state, name: to_matrix(name, value), "mode": mode}

    return property(get, put, doc=f"The input matrix {name} as a NumPy array (None when the state has none); setting it redraws the widget.")


class Stepper(_Element):
    """The attention stepper: every step of softmax(QKᵀ/√d_k)·V with the core's numbers.

    Give Q, K, V, or the tokens X with Wq, Wk, Wv (and Wo, heads), or neither and a preset;
    the options of trace() in snake_case (causal=True, window=2, key_padding=[…], …); step=
    the step on view. ``state`` is the element's whole state, synced both ways: an edit in the
    widget changes ``stepper.Q``, and ``stepper.Q = …`` redraws it.
    """

    state = t.Dict().tag(sync=True)
    _trace = t.Dict().tag(sync=True)

    def __init__(self, *, preset=None, step=None, theme="auto", editable=True, inputs="shown", controls="full", tabs=False, **options):
        from ._assets import schema

        lists = schema()
        if preset is not None:
            _one_of("preset", preset, lists["stepperPresets"])
        if step is not None:
            _one_of("step", step, lists["stepIds"])
        state = state_from_kwargs(options)
        qkv = [n for n in ("Q", "K", "V") if n in state]
        x = [n for n in ("X", "Wq", "Wk", "Wv") if n in state]
        if qkv and x:
            raise TypeError(f"give either Q, K, V or X, Wq, Wk, Wv, not both (got {', '.join(qkv + x)})")
        if qkv and len(qkv) < 3:
            raise TypeError(f"Q, K and V go together: missing {', '.join(n for n in 'QKV' if n not in state)}")
        if x and len(x) < 4:
            raise TypeError(f"X, Wq, Wk and Wv go together: missing {', '.join(n for n in ('X', 'Wq', 'Wk', 'Wv') if n not in state)}")
        if qkv:
            state["mode"] = "qkv"
        elif x:
            state["mode"] = "x"
        if (qkv or x) and "tokens" not in state:
            rows = len(state["K"] if qkv else state["X"])
            state["tokens"] = [f"t{i + 1}" for i in range(rows)]  # the preset's labels would not fit
        if step is not None:
            state["step"] = step
        attributes = {
            "preset": preset or ("tiny" if not (qkv or x) else None),
            "step": step,
            "editable": "true" if editable else "false",
            "inputs": _one_of("inputs", inputs, INPUTS),
            "controls": _one_of("controls", controls, CONTROLS),
            "tabs": bool(tabs),
        }
        super().__init__("stepper", attributes, theme=theme, with_model=bool(tabs), state=state)

    X, Wq, Wk, Wv, Wo, Q, K, V = (_matrix_property(n) for n in MATRIX_NAMES)

    @property
    def step(self):
        """The step on view (a step id such as 'softmax'); setting it shows that step."""
        return self.state.get("step")

    @step.setter
    def step(self, value):
        from ._assets import schema

        self.state = {**self.state, "step": _one_of("step", value, schema()["stepIds"])}

    def set(self, **options):
        """Changes several fields at once (the same keyword arguments as Stepper()), one redraw."""
        fields = state_from_kwargs(options)
        if {"Q", "K", "V"} & fields.keys():
            fields["mode"] = "qkv"
        elif {"X", "Wq", "Wk", "Wv"} & fields.keys():
            fields["mode"] = "x"
        self.state = {**self.state, **fields}

    def steps(self):
        """The ids of the current trace's steps, in order (once the widget has rendered)."""
        return list(dict.fromkeys(s["id"] for s in self._rendered()))

    def values(self, step: str) -> np.ndarray:
        """The current trace's values at `step`, as the core computed them in the widget.

        A per-head step gives an array (heads, rows, cols), any other (rows, cols).
        """
        steps = self._rendered()
        chosen = [s for s in steps if s["id"] == step]
        if not chosen:
            have = ", ".join(dict.fromkeys(s["id"] for s in steps))
            raise ValueError(f"step {step!r} is not in this trace; its steps are {have}")
        if self._trace.get("tooLarge"):
            raise RuntimeError(f"{self._trace['tooLarge']}: compute it with attnlab's JavaScript or C++ library instead")
        arrays = [np.array(s["values"], dtype=np.float64).reshape(s["shape"]) for s in chosen]
        if chosen[0]["head"] is None:
            return arrays[0]
        return np.stack([a for _, a in sorted(zip((s["head"] for s in chosen), arrays))])

    def _rendered(self):
        steps = self._trace.get("steps")
        if not steps:
            raise RuntimeError("the stepper has no trace yet: display it first (the core runs in the widget)")
        return steps


class View(_Element):
    """A teaching view on its own: View('geometry'), View('softmax'), …, View('model').

    view_state: the view's own fields (the element's README lists them per view), e.g.
    View('cost', view_state={'maxN': 512}).
    """

    state = t.Dict().tag(sync=True)

    def __init__(self, view: str, *, view_state=None, theme="auto", tabs=False, quiz=True):
        from ._assets import schema

        views = [v for v in schema()["views"] if v != "stepper"]
        _one_of("view", view, views)
        attributes = {"preset": view, "tabs": bool(tabs), "no-quiz": not quiz}
        if view_state is not None and not isinstance(view_state, dict):
            raise TypeError(f"view_state must be a dict of the view's fields (web/element/README.md), got {type(view_state).__name__}")
        # The element checks the view's fields, and says what it refused in the widget.
        state = {"viewState": view_state} if view_state else {}
        super().__init__("view", attributes, theme=theme, with_model=view in MODEL_VIEWS or bool(tabs), state=state)
        self.view = view
