"""save_html: widgets as one self-contained HTML page that renders without a kernel, offline.

Jupyter's own static export (nbconvert with the saved widget state) draws widgets with a
widget manager it loads from a CDN, so it needs the network. This page needs nothing: it holds
front.js, the element's files (once, however many widgets) and each widget's state, and gives
front.js a stand-in for anywidget's model. Edits in the page work; they just reach no Python.
"""

from __future__ import annotations

import base64
import html
import json
import uuid
from pathlib import Path

from . import _assets

# What front.js reads of a model, besides _files (sent once for the page).
_KEYS = ("_kind", "_bundle", "_attributes", "theme", "state", "attention_json")

_BOOT = """
const PREFIX = ID_PREFIX;
const decode = (text) => { const bytes = Uint8Array.from(atob(text), (c) => c.charCodeAt(0)); return new DataView(bytes.buffer); };
const files = Object.fromEntries(Object.entries(FILES).map(([name, text]) => [name, decode(text)]));
const front = await import(URL.createObjectURL(new Blob([FRONT], { type: 'text/javascript' })));
STATES.forEach((state, i) => {
  const model = {
    get: (key) => (key === '_files' ? files : state[key]),
    set: (key, value) => { state[key] = value; },
    save_changes() {}, on() {}, off() {},
  };
  front.default.render({ model, el: document.getElementById(`${PREFIX}-${i}`) });
});
"""


def _script_literal(value) -> str:
    """JSON that is safe inside <script>: no '</' can close it."""
    return json.dumps(value).replace("</", "<\\/")


def fragment(*widgets) -> str:
    """A <div> per widget and the <script> that draws them, to put inside any HTML page."""
    from ._widgets import _Element

    if not widgets:
        raise TypeError("to_html() needs at least one attnlab widget")
    for i, widget in enumerate(widgets):
        if not isinstance(widget, _Element):
            raise TypeError(f"widgets[{i}] is a {type(widget).__name__}, not an attnlab widget (Stepper, View or show_attention's)")
    files = {}
    for widget in widgets:
        files.update(widget._files)
    states = [{key: getattr(widget, key) for key in _KEYS if widget.has_trait(key)} for widget in widgets]
    prefix = f"attnlab-{uuid.uuid4().hex[:12]}"  # several fragments on one page (outputs of one notebook)
    script = (
        f"const ID_PREFIX = {_script_literal(prefix)};\n"
        f"const FILES = {_script_literal({name: base64.b64encode(data).decode() for name, data in files.items()})};\n"
        f"const FRONT = {_script_literal(_assets.front_end())};\n"
        f"const STATES = {_script_literal(states)};\n" + _BOOT
    )
    boxes = "\n".join(f'<div id="{prefix}-{i}" class="attnlab-static"></div>' for i in range(len(widgets)))
    return f"{boxes}\n<script type=\"module\">\n{script}</script>\n"


def to_html(*widgets, title: str = "attnlab") -> str:
    """The page's HTML for `widgets` (Stepper, View, show_attention's widgets)."""
    body = fragment(*widgets)
    return (
        "<!doctype html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n"
        f"<title>{html.escape(title)}</title>\n"
        "<meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">\n"
        "<style>body { font-family: system-ui, sans-serif; margin: 1em auto; max-width: 1100px; } .attnlab-static { margin: 1em 0; }</style>\n"
        f"</head>\n<body>\n{body}</body>\n</html>\n"
    )


# static_outputs(True): every widget's output also carries fragment(widget) as text/html.
_EMBED = False


def static_outputs(enabled: bool = True) -> None:
    """Also write each widget as self-contained HTML into its output, for nbconvert's HTML export.

    Jupyter's HTML export draws widgets from the saved widget state with a widget manager it
    loads from a CDN; an output's text/html needs nothing. Export with the widget state left
    out (``jupyter nbconvert --to html`` of a notebook whose widget state was not saved, or
    ``--ClearMetadataPreprocessor.enabled=True``) and the page shows these copies, offline.
    Each output then holds the element's files (about 1.6 MB in the .ipynb).
    """
    global _EMBED
    _EMBED = bool(enabled)


def save_html(path, *widgets, title: str = "attnlab") -> Path:
    """Writes to_html(*widgets) to `path`; returns the path."""
    path = Path(path)
    path.write_text(to_html(*widgets, title=title), encoding="utf-8")
    return path
