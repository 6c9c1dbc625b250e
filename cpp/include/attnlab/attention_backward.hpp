// The backward pass of attention(): the gradients of a loss with respect to Q, K and V, given
// the loss's gradient with respect to the output (dO), through the scale, the temperature and
// the masks. Direct: it recomputes the forward and forms the (n_q, n_k) weights.
#pragma once

#include "attnlab/attention.hpp"
#include "attnlab/error.hpp"
#include "attnlab/matrix.hpp"

namespace attnlab {

struct AttentionGradients {
  Matrix dq;  // ∂L/∂Q: (n_q, d_k)
  Matrix dk;  // ∂L/∂K: (n_k, d_k)
  Matrix dv;  // ∂L/∂V: (n_k, d_v)
};

// q: (n_q, d_k), k: (n_k, d_k), v: (n_k, d_v), d_out = ∂L/∂O: (n_q, d_v). The inputs, options
// and limits are attention()'s; d_out must match the output's shape and be finite. A fully
// masked row (output defined as zero) gets zero gradient; masked cells pass none.
Result<AttentionGradients> attention_backward(const Matrix& q, const Matrix& k, const Matrix& v,
                                              const Matrix& d_out,
                                              const AttentionOptions& options = {});

}  // namespace attnlab
