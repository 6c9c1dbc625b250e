"""A stand-in for the few parts of PyTorch that attnlab's PyTorch export uses, on NumPy, so
that CI (which has Debian's python3-numpy, not torch) runs the export's literals and math.
Where torch differs from NumPy the stand-in does what torch does: `dim`/`keepdim`, softmax of
a row of -inf is NaN. A tensor refuses NumPy's own methods (astype, sum, max, ...), so an
export that would only work in NumPy fails here too. The export is also run once against
real PyTorch by hand (web/element/README.md, "Exports").
"""
import numpy as np

float32, float64, int32, int64 = np.float32, np.float64, np.int32, np.int64
bool = np.bool_  # noqa: A001 (torch.bool)

NUMPY_ONLY = {"astype", "sum", "max", "min", "mean", "any", "all", "clip", "copy", "item", "dot"}


class Tensor(np.ndarray):
    def __getattribute__(self, name):
        if name in NUMPY_ONLY:
            raise AttributeError(f"the torch stand-in's tensor has no NumPy method {name}")
        return super().__getattribute__(name)

    def to(self, dtype):
        return _t(np.asarray(self).astype(dtype))


def _t(a):
    return np.asarray(a).view(Tensor)


def _a(x):
    return np.asarray(x)


def tensor(data, dtype):
    return _t(np.array(data, dtype=dtype))


def arange(n, dtype=int64):
    return _t(np.arange(n, dtype=dtype))


def sin(x):
    return _t(np.sin(_a(x)))


def cos(x):
    return _t(np.cos(_a(x)))


def exp(x):
    return _t(np.exp(_a(x)))


def tanh(x):
    return _t(np.tanh(_a(x)))


def where(condition, x, y):
    return _t(np.where(_a(condition), _a(x), _a(y)))


def clamp(x, min=None, max=None):  # noqa: A002 (torch's keyword names)
    return _t(np.clip(_a(x), min, max))


def tril(x):
    return _t(np.tril(_a(x)))


def outer(a, b):
    return _t(np.outer(_a(a), _a(b)))


def ones_like(x):
    return _t(np.ones_like(_a(x)))


def full_like(x, value):
    return _t(np.full_like(_a(x), value))


def zeros_like(x):
    return _t(np.zeros_like(_a(x)))


def softmax(x, dim):
    a = _a(x)
    with np.errstate(invalid="ignore"):  # a row of -inf: NaN, as torch gives
        e = np.exp(a - a.max(axis=dim, keepdims=True))
        return _t(e / e.sum(axis=dim, keepdims=True))


def nan_to_num(x, nan=0.0):
    return _t(np.nan_to_num(_a(x), nan=nan))


def sum(x, dim, keepdim=False):  # noqa: A001 (torch.sum)
    return _t(_a(x).sum(axis=dim, keepdims=keepdim))


def cat(tensors, dim):
    return _t(np.concatenate([_a(t) for t in tensors], axis=dim))


def stack(tensors, dim):
    return _t(np.stack([_a(t) for t in tensors], axis=dim))


def set_printoptions(**options):
    np.set_printoptions(precision=options.get("precision", 4), suppress=True)


def zeros(*shape):
    return _t(np.zeros(shape, dtype=float32))


def allclose(a, b, atol=1e-8, rtol=1e-5):
    return np.allclose(_a(a), _a(b), atol=atol, rtol=rtol)


from . import nn  # noqa: E402 (torch.nn.functional, after the functions it uses)
