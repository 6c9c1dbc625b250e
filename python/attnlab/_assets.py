"""The files the widget's front end runs on, read once from the wheel's attnlab/static/.

Every widget carries the element's JavaScript and wasm in its own state (front.js turns them
into blob: URLs), so a notebook needs no server, CDN or network: JupyterLab, Notebook 7,
VS Code, Colab, marimo and a static HTML export all get the same bytes. The little model's
files (1.5 MB) go only with the widgets that read them (the model view, a view with tabs).
"""

from __future__ import annotations

import functools
import hashlib
import json
from pathlib import Path

STATIC = Path(__file__).parent / "static"
MODEL_DATA = ("model.json", "tokenizer.json", "weights.bin")


class MissingAssets(RuntimeError):
    """The package was imported from a source tree whose static/ was never staged."""


def _need(path: Path) -> Path:
    if not path.is_file():
        raise MissingAssets(
            f"attnlab's front-end file {path.name} is missing from {path.parent}: install the built "
            "wheel, or run `bash python/scripts/stage.sh` after `scripts/build.sh package`"
        )
    return path


@functools.lru_cache(maxsize=None)
def element_files() -> dict[str, bytes]:
    """The element, the package it imports, its Worker and wasm files: name → bytes."""
    _need(STATIC / "element.js")
    return {p.name: p.read_bytes() for p in sorted(STATIC.iterdir()) if p.suffix in (".js", ".wasm")}


@functools.lru_cache(maxsize=None)
def model_files() -> dict[str, bytes]:
    """The little model's files: model.json, tokenizer.json, weights.bin."""
    return {name: _need(STATIC / "model" / name).read_bytes() for name in MODEL_DATA}


@functools.lru_cache(maxsize=None)
def bundle_key() -> str:
    """A digest of the element's files: widgets with the same key share one module graph."""
    digest = hashlib.sha256()
    for name, data in element_files().items():
        digest.update(name.encode() + b"\0" + hashlib.sha256(data).digest())
    return digest.hexdigest()[:16]


@functools.lru_cache(maxsize=None)
def schema() -> dict:
    """The core's trace() fields, step ids and limits, and the element's views and presets."""
    return json.loads(_need(STATIC / "schema.json").read_text())


def files_for(with_model: bool) -> dict[str, bytes]:
    files = dict(element_files())
    if with_model:
        files.update(model_files())
    return files


def front_end() -> str:
    return (Path(__file__).parent / "front.js").read_text()
