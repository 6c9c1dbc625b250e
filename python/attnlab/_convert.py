"""Numbers in, numbers out: what a notebook user passes (NumPy arrays, PyTorch tensors, nested
lists) as the plain lists the element's state holds, and back as NumPy arrays.

PyTorch is not a dependency: a tensor is recognised by its .detach() and .cpu(), the way
it hands its values to NumPy, so any tensor-like with those methods works.
"""

from __future__ import annotations

import numbers

import numpy as np


def to_array(name: str, value, *, dims: int | None = None) -> np.ndarray:
    """value as a float64 array; a TypeError or ValueError naming `name` when it is not numbers."""
    if hasattr(value, "detach") and hasattr(value, "cpu"):  # a torch.Tensor (also on a GPU)
        value = value.detach().cpu().numpy()
    if isinstance(value, (str, bytes, dict, set)) or value is None:
        raise TypeError(f"{name} must be an array of numbers (NumPy, PyTorch or nested lists), got {type(value).__name__}")
    try:
        array = np.asarray(value)
    except ValueError as error:  # ragged nested lists
        raise ValueError(f"{name} must be rectangular: its rows have different lengths ({error})") from None
    if array.dtype == object:
        raise ValueError(f"{name} must be rectangular numbers: its rows have different lengths or hold something else")
    if array.dtype == bool or not (np.issubdtype(array.dtype, np.number)):
        raise TypeError(f"{name} must hold numbers, got values of type {array.dtype}")
    if np.iscomplexobj(array):
        raise TypeError(f"{name} must hold real numbers, got complex ones")
    array = array.astype(np.float64)
    if dims is not None and array.ndim != dims:
        raise ValueError(f"{name} must have {dims} dimensions, got {array.ndim} (shape {array.shape})")
    if array.size == 0:
        raise ValueError(f"{name} is empty (shape {array.shape})")
    bad = np.argwhere(~np.isfinite(array))
    if len(bad):
        where = tuple(int(i) for i in bad[0])
        raise ValueError(f"{name}{list(where)} is {array[where]}: every value must be a finite number")
    return array


def to_matrix(name: str, value) -> list[list[float]]:
    """A 2-D matrix as the element's state holds it: a list of rows of floats."""
    return to_array(name, value, dims=2).tolist()


def to_flags(name: str, value) -> list[bool]:
    array = np.asarray(value.detach().cpu().numpy() if hasattr(value, "detach") else value)
    if array.ndim != 1 or array.dtype != bool:
        raise TypeError(f"{name} must be a 1-D list of True/False, got {array.dtype} with shape {array.shape}")
    return array.tolist()


def to_mask(name: str, value) -> list[list[bool]]:
    array = np.asarray(value.detach().cpu().numpy() if hasattr(value, "detach") else value)
    if array.ndim != 2 or array.dtype != bool:
        raise TypeError(f"{name} must be a 2-D matrix of True/False, got {array.dtype} with shape {array.shape}")
    return array.tolist()


def to_whole(name: str, value, minimum: int = 0) -> int:
    if isinstance(value, bool) or not isinstance(value, numbers.Integral) or value < minimum:
        raise ValueError(f"{name} must be a whole number of at least {minimum}, got {value!r}")
    return int(value)


def to_number(name: str, value) -> float:
    if isinstance(value, bool) or not isinstance(value, numbers.Real) or not np.isfinite(value):
        raise TypeError(f"{name} must be a finite number, got {value!r}")
    return float(value)


def to_bool(name: str, value) -> bool:
    if not isinstance(value, (bool, np.bool_)):
        raise TypeError(f"{name} must be True or False, got {value!r}")
    return bool(value)
