"""torch.nn.functional.scaled_dot_product_attention as PyTorch documents it (softmax(q kᵀ ·
scale + attn_mask) v; a row whose every logit is -inf gives NaN), for the stand-in torch."""
import numpy as np

import torch


def scaled_dot_product_attention(query, key, value, attn_mask=None, scale=None):
    q, k, v = np.asarray(query), np.asarray(key), np.asarray(value)
    factor = 1 / np.sqrt(q.shape[-1]) if scale is None else scale
    logits = (q @ k.T) * np.float32(factor) + (0 if attn_mask is None else np.asarray(attn_mask))
    return torch.softmax(logits, dim=-1) @ v
