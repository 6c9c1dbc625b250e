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
from pathlib import Path

from . import _assets

# What front.js reads of a model, besides _files (sent once for the page).
_KEYS = ("_kind", "_bundle", "_attributes", "theme", "state", "attention_json")

_BOOT = """
const decode = (text) => { const bytes = Uint8Array.from(atob(text), (c) => c.charCodeAt(0)); return new DataView(bytes.buffer); };
const files = Object.fromEntries(Object.entries(FILES).map(([name, text]) => [name, decode(text)]));
const front = await import(URL.createObjectURL(new Blob([FRONT], { type: 'text/javascript' })));
STATES.forEach((state, i) => {
  const model = {
    get: (key) => (key === '_files' ? files : state[key]),
    set: (key, value) => { state[key] = value; },
    save_changes() {}, on() {}, off() {},
  };
  front.default.render({ model, el: document.getElementById(`attnlab-${i}`) });
});
"""


def _script_literal(value) -> str:
    """JSON that is safe inside <script>: no '</' can close it."""
    return json.dumps(value).replace("</", "<\\/")


def to_html(*widgets, title: str = "attnlab") -> str:
    """The page's HTML for `widgets` (Stepper, View, show_attention's widgets)."""
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
    script = (
        f"const FILES = {_script_literal({name: base64.b64encode(data).decode() for name, data in files.items()})};\n"
        f"const FRONT = {_script_literal(_assets.front_end())};\n"
        f"const STATES = {_script_literal(states)};\n" + _BOOT
    )
    boxes = "\n".join(f'<div id="attnlab-{i}" class="attnlab-static"></div>' for i in range(len(widgets)))
    return (
        "<!doctype html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n"
        f"<title>{html.escape(title)}</title>\n"
        "<meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">\n"
        "<style>body { font-family: system-ui, sans-serif; margin: 1em auto; max-width: 1100px; } .attnlab-static { margin: 1em 0; }</style>\n"
        f"</head>\n<body>\n{boxes}\n<script type=\"module\">\n{script}</script>\n</body>\n</html>\n"
    )


def save_html(path, *widgets, title: str = "attnlab") -> Path:
    """Writes to_html(*widgets) to `path`; returns the path."""
    path = Path(path)
    path.write_text(to_html(*widgets, title=title), encoding="utf-8")
    return path
