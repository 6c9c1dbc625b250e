"""attnlab in notebooks: scaled dot-product attention step by step, as an anywidget whose
front end is the <attn-lab> element and its C++/WebAssembly core, shipped inside the wheel.

    import attnlab
    attnlab.Stepper(Q=Q, K=K, V=V, causal=True)
"""

from ._attention import show_attention
from ._nbconvert import export_html
from ._static import save_html, static_outputs, to_html
from ._widgets import Stepper, View

__version__ = "0.1.0"
__all__ = ["Stepper", "View", "show_attention", "save_html", "export_html", "static_outputs", "to_html", "__version__"]
