// The tiny transformer of training.hpp as the trainer (trainer.cpp) and its maths
// (training.cpp) share it: where each parameter sits, one sequence's activations, the forward
// pass and the loss. training.cpp defines them, for float (training) and float64 (the gradient
// checks).
#pragma once

#include <cstddef>
#include <vector>

#include "attnlab/training.hpp"

namespace attnlab::training {

// Where each parameter starts in the flat vector (the order of training.hpp).
struct Layout {
  std::size_t d, n, vocab, heads, d_head, layers;
  std::size_t p, first_layer, u, total;

  explicit Layout(const TrainingConfig& c)
      : d(c.d_model),
        n(c.context_length),
        vocab(c.vocab),
        heads(static_cast<std::size_t>(c.heads)),
        d_head(c.d_model / heads),
        layers(static_cast<std::size_t>(c.layers)),
        p(vocab * d),
        first_layer(p + n * d),
        u(first_layer + layers * 4 * d * d),
        total(u + d * vocab) {}
  // W_Q, W_K, W_V, W_O of layer l: which = 0, 1, 2, 3.
  std::size_t w(std::size_t l, std::size_t which) const {
    return first_layer + (l * 4 + which) * d * d;
  }
};

// Each layer's inputs and intermediates for one sequence, kept for the backward pass.
template <class T>
struct Activations {
  std::vector<T> x;        // residual streams x_0 … x_layers: (layers + 1)·(n, d)
  std::vector<T> q, k, v;  // per layer (n, d): heads side by side
  std::vector<T> z;        // per layer (n, d): the heads' outputs, concatenated
  std::vector<T> a;        // per layer and head (n, n): causal weights, 0 above the diagonal
  std::vector<T> logits;   // (n, vocab)
};

// One sequence's activations under parameters w.
template <class T>
void forward(const Layout& s, const std::vector<T>& w, const int* tokens, Activations<T>& act);

// −log softmax(row)[target] for a row of `vocab` logits; softmax(row) left in `probabilities`.
template <class T>
T cross_entropy(const T* row, std::size_t vocab, int target, T* probabilities);

// The positions of a batch that have a target.
std::size_t target_count(const Batch& batch);

}  // namespace attnlab::training
