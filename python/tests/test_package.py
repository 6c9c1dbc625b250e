"""The package as a user installs it: its version, and the wheel carrying the element, its
Worker, its wasm and the little model's files, byte for byte those of the npm build."""

import json
import os
import re
import zipfile

import attnlab
import pytest


def test_version_is_the_npm_packages(root):
    npm = json.loads((root / "package.json").read_text())["version"]
    pyproject = re.search(r'^version = "([^"]+)"', (root / "python" / "pyproject.toml").read_text(), re.M).group(1)
    assert attnlab.__version__ == npm == pyproject


@pytest.mark.skipif(not os.environ.get("ATTNLAB_WHEEL"), reason="only when testing the installed wheel")
def test_the_tests_import_the_installed_wheel():
    assert "site-packages" in attnlab.__file__, attnlab.__file__


def test_wheel_carries_the_element_worker_wasm_and_model(root, wheel):
    with zipfile.ZipFile(wheel) as z:
        names = set(z.namelist())
        carried = {n.removeprefix("attnlab/static/"): z.read(n) for n in names if n.startswith("attnlab/static/")}
    for name in ["element.js", "attnlab.js", "attnlab-worker.js", "attnlab-core.wasm", "attnlab-model.wasm", "attnlab-learn.wasm", "webgpu.js"]:
        assert carried.get(name) == (root / "dist" / name).read_bytes(), f"{name} is not dist/{name}"
    for name in ["model.json", "tokenizer.json", "weights.bin"]:
        assert carried.get(f"model/{name}") == (root / "model" / name).read_bytes(), f"model/{name}"
    assert "attnlab/front.js" in names and "attnlab/__init__.py" in names
    # The threaded core needs a cross-origin-isolated page, which no notebook is.
    assert not [n for n in carried if "threads" in n]


def test_every_file_the_element_names_is_in_the_wheel(wheel):
    """front.js rewrites each sibling a script names to a blob: URL: one missing would be fetched."""
    with zipfile.ZipFile(wheel) as z:
        static = {n.removeprefix("attnlab/static/"): z.read(n) for n in z.namelist() if n.startswith("attnlab/static/")}
    named = set()
    for name, data in static.items():
        if name.endswith(".js"):
            text = data.decode()
            # What a module loads relative to itself: new URL(…, import.meta.url), import(…), from …
            named |= set(re.findall(r"new URL\(\s*(?:/\*.*?\*/\s*)?[`'\"]([^`'\"]+)[`'\"]\s*,\s*import\.meta\.url", text))
            named |= set(re.findall(r"(?:import\(|from)\s*[`'\"](\.{1,2}/[^`'\"]+)[`'\"]", text))
    named = {n.removeprefix("./").replace("../model/", "model/") for n in named}
    missing = {n for n in named if n not in static and "threads" not in n}
    assert {"attnlab.js", "attnlab-core.wasm", "attnlab-worker.js", "model/weights.bin"} <= named, named
    assert not missing, missing


def test_widget_state_carries_the_files_as_binary_buffers():
    from ipywidgets.widgets.widget import _remove_buffers

    stepper = attnlab.Stepper(preset="causal")
    state, paths, buffers = _remove_buffers(stepper.get_state())
    sent = {path[-1]: len(buf) for path, buf in zip(paths, buffers) if path[0] == "_files"}
    assert {"element.js", "attnlab.js", "attnlab-core.wasm", "attnlab-worker.js"} <= set(sent)
    assert "weights.bin" not in sent  # the model's files only go with the views that read them
    model = attnlab.View("model")
    _, paths, buffers = _remove_buffers(model.get_state())
    assert {p[-1] for p in paths} >= {"weights.bin", "model.json", "tokenizer.json"}


def test_wheel_carries_the_nbconvert_template_and_the_offline_widget_manager(wheel):
    """`jupyter nbconvert --template attnlab` finds the template in share/; its scripts come from the wheel."""
    with zipfile.ZipFile(wheel) as z:
        names = set(z.namelist())
        require = z.read("attnlab/static/vendor/require.js").decode()
    data = "attnlab-" + attnlab.__version__ + ".data/data/share/jupyter/nbconvert/templates/attnlab/"
    assert {data + "conf.json", data + "index.html.j2", "attnlab/templates/attnlab/conf.json"} <= names
    assert {"attnlab/static/vendor/embed-amd.js", "attnlab/static/vendor/README.txt", "attnlab/static/vendor/embed-amd.js.LICENSE.txt"} <= names
    assert "RequireJS 2.3.8" in require


def test_offline_scripts_cannot_close_their_script_element():
    from attnlab._nbconvert import offline_scripts

    scripts = offline_scripts()
    assert set(scripts) == {"requirejs", "anywidget", "manager"}
    for name, text in scripts.items():
        assert "</script" not in text.lower(), name
    assert "requirejs.config({ paths: { anywidget: url } })" in scripts["anywidget"]
    assert "<" not in scripts["anywidget"].split("var source = ", 1)[1].split(";\n", 1)[0]  # the module's text, JSON with < escaped
