"""save_html / to_html: one self-contained page (the browser test opens it offline)."""

import base64
import json
import re

import pytest

import attnlab


def test_the_page_holds_each_file_once_and_every_widgets_state(tmp_path, root):
    a = attnlab.Stepper(Q=[[1, 0]], K=[[1, 0], [0, 1]], V=[[1, 0], [0, 1]], tokens=["</script>", "b"])
    b = attnlab.Stepper(preset="causal")
    path = attnlab.save_html(tmp_path / "page.html", a, b, title="two <steppers>")
    page = path.read_text()
    assert "<title>two &lt;steppers&gt;</title>" in page
    files = json.loads(re.search(r"const FILES = (.*);\n", page).group(1))
    assert base64.b64decode(files["element.js"]) == (root / "dist" / "element.js").read_bytes()
    assert page.count('"element.js"') == 1  # the element's files once, however many widgets
    states = json.loads(re.search(r"const STATES = (.*);\n", page).group(1).replace("<\\/", "</"))
    assert [s["_kind"] for s in states] == ["stepper", "stepper"]
    assert states[0]["state"]["tokens"][0] == "</script>"
    assert page.count("</script>") == 1  # a token cannot close the page's script
    assert re.search(r'id="attnlab-[0-9a-f]+-1" class="attnlab-static"', page)


def test_only_attnlab_widgets():
    with pytest.raises(TypeError, match=r"widgets\[1\] is a str, not an attnlab widget"):
        attnlab.to_html(attnlab.View("softmax"), "softmax")
    with pytest.raises(TypeError, match="at least one"):
        attnlab.to_html()


def test_static_outputs_add_a_self_contained_copy_to_each_output():
    stepper = attnlab.Stepper(preset="causal")
    data, _ = stepper._repr_mimebundle_()
    assert "text/html" not in data and "application/vnd.jupyter.widget-view+json" in data
    attnlab.static_outputs()
    try:
        data, _ = stepper._repr_mimebundle_()
        other, _ = attnlab.View("softmax")._repr_mimebundle_()
    finally:
        attnlab.static_outputs(False)
    assert "application/vnd.jupyter.widget-view+json" in data  # live notebooks still get the widget
    ids = [re.search(r'const ID_PREFIX = "([^"]+)"', d["text/html"]).group(1) for d in (data, other)]
    assert ids[0] != ids[1]  # two outputs on one exported page do not share element ids
    assert f'<div id="{ids[0]}-0"' in data["text/html"]
