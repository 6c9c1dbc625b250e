"""Jupyter's HTML export of a notebook with its saved widget state, offline.

nbconvert's HTML page draws saved widgets with Jupyter's widget manager for static pages
(@jupyter-widgets/html-manager's embed-amd.js) and RequireJS, both loaded from a CDN, and the
manager then looks for anywidget's front end on a CDN too. The ``attnlab`` template (installed
with the wheel into share/jupyter/nbconvert/templates/) is nbconvert's ``lab`` template with
those three inlined from the installed packages: the manager and RequireJS from the wheel
(npm's @jupyter-widgets/html-manager 1.0.15 and requirejs 2.3.8, staged by
python/scripts/stage.sh), anywidget's from the installed anywidget. So::

    jupyter nbconvert --to html --template attnlab notebook.ipynb

or ``attnlab.export_html("notebook.ipynb")`` writes a page that renders every saved widget
(attnlab's and any other anywidget or ipywidgets control) with no kernel and no network.
"""

from __future__ import annotations

import functools
import json
import re
from pathlib import Path

from ._assets import STATIC, _need

TEMPLATES = Path(__file__).parent / "templates"


def _inline(text: str) -> str:
    """Script text that no '</script' inside it can close early."""
    return re.sub(r"</(script)", r"<\\/\1", text, flags=re.I)


@functools.lru_cache(maxsize=None)
def offline_scripts() -> dict[str, str]:
    """{requirejs, anywidget, manager}: the scripts the attnlab template inlines."""
    import anywidget

    amd = Path(anywidget.__file__).parent / "nbextension" / "index.js"
    if not amd.is_file():
        raise FileNotFoundError(f"anywidget {anywidget.__version__} has no AMD front end ({amd}) for Jupyter's static widget manager")
    # anywidget's AMD module from a blob: URL, under its module name: the manager asks RequireJS
    # for "anywidget" (before any CDN) and RequireJS loads that URL.
    anywidget_js = (
        "(function () {\n"
        f"  var source = {json.dumps(amd.read_text(encoding='utf-8')).replace('<', chr(92) + 'u003c')};\n"
        "  var url = URL.createObjectURL(new Blob([source], { type: 'text/javascript' }));\n"
        "  window.requirejs.config({ paths: { anywidget: url } });\n"
        "})();"
    )
    vendor = STATIC / "vendor"
    return {
        "requirejs": _inline(_need(vendor / "require.js").read_text(encoding="utf-8")),
        "anywidget": anywidget_js,
        "manager": _inline(_need(vendor / "embed-amd.js").read_text(encoding="utf-8")),
    }


try:
    from nbconvert.preprocessors import Preprocessor
except ImportError:  # nbconvert is not a dependency of attnlab: the template needs it, nothing else does
    Preprocessor = object


class OfflineWidgets(Preprocessor):
    """Puts offline_scripts() into resources["attnlab_offline"] for the attnlab template."""

    def preprocess(self, nb, resources):
        resources["attnlab_offline"] = offline_scripts()
        return nb, resources


def export_html(notebook, html=None) -> Path:
    """Writes `notebook` (a path to an .ipynb with its widget state saved) as an offline HTML page.

    The same as ``jupyter nbconvert --to html --template attnlab notebook.ipynb``; `html`
    defaults to the notebook's path with .html. Returns the page's path.
    """
    from nbconvert import HTMLExporter

    notebook = Path(notebook)
    html = Path(html) if html is not None else notebook.with_suffix(".html")
    exporter = HTMLExporter(template_name="attnlab", extra_template_basedirs=[str(TEMPLATES)])
    body, _ = exporter.from_filename(str(notebook))
    html.write_text(body, encoding="utf-8")
    return html
