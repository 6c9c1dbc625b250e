# The marimo notebook of marimo.test.mjs: two steppers through mo.ui.anywidget, every teaching
# view, a button that
# sets a.Q from Python, and a cell that re-runs on every change of either widget and prints
# what Python sees (#probe), for the test to read.
import marimo

app = marimo.App()


@app.cell
def _():
    import json

    import marimo as mo

    import attnlab

    return attnlab, json, mo


@app.cell
def _(attnlab, mo):
    a = attnlab.Stepper(Q=[[1, 0], [0, 1]], K=[[1, 0], [1, 1], [0, 1]], V=[[1, 0], [0, 2], [1, 1]], causal=True, step="softmax")
    b = attnlab.Stepper(preset="two-heads", step="softmax")
    wa = mo.ui.anywidget(a)
    wb = mo.ui.anywidget(b)
    return a, b, wa, wb


@app.cell
def _(mo, wa, wb):
    mo.vstack([wa, wb])
    return


@app.cell
def _(attnlab, mo):
    # Every teaching view, each its own anywidget, after the two steppers (marimo.test.mjs's VIEWS).
    VIEWS = ["geometry", "softmax", "model", "scaling", "patterns", "tokens", "positions", "cost", "flash", "variants", "long-sequence", "train", "quiz"]
    mo.vstack([mo.ui.anywidget(attnlab.View(v, view_state={"maxN": 256, "headWidth": 32} if v == "cost" else None)) for v in VIEWS])
    return


@app.cell
def _(a, mo):
    NEW_Q = [[0.5, -1], [2, 0.25], [1, 1]]
    button = mo.ui.button(label="set Q from Python", on_click=lambda _: setattr(a, "Q", NEW_Q))
    button
    return (button,)


@app.cell
def _(a, b, button, json, mo, wa, wb):
    _ = (wa.value, wb.value, button.value)
    try:
        _probe = {"aQ": a.Q.tolist(), "a": a.values("softmax").tolist(), "bState": b.state, "b": b.values("softmax").tolist()}
    except RuntimeError as _error:
        _probe = {"waiting": str(_error)}
    mo.Html(f"<pre id='probe'>{json.dumps(_probe)}</pre>")
    return


if __name__ == "__main__":
    app.run()
