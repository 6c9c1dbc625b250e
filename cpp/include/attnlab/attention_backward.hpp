// The backward passes of attention: the gradients of a loss with respect to Q, K and V, given
// the loss's gradient with respect to the output (dO). attention_backward() is direct: it
// recomputes attention() and forms the (n_q, n_k) weights. flash_attention_backward() is the
// tiled FlashAttention-2 backward of flash_attention(): O(n·d) memory.
#pragma once

#include "attnlab/attention.hpp"
#include "attnlab/error.hpp"
#include "attnlab/flash.hpp"
#include "attnlab/matrix.hpp"

namespace attnlab {

struct AttentionGradients {
  Matrix dq;  // ∂L/∂Q: (n_q, d_k)
  Matrix dk;  // ∂L/∂K: (n_k, d_k)
  Matrix dv;  // ∂L/∂V: (n_k, d_v)
};

// q: (n_q, d_k), k: (n_k, d_k), v: (n_k, d_v), d_out = ∂L/∂O: (n_q, d_v). The inputs, options
// and limits are attention()'s; d_out must match the output's shape and be finite. A fully
// masked row (output defined as zero) gets zero gradient; masked cells pass none. With a past
// cache, dK and dV are the whole sequence's, (n_past + n_k) rows: the cache's rows first.
Result<AttentionGradients> attention_backward(const Matrix& q, const Matrix& k, const Matrix& v,
                                              const Matrix& d_out,
                                              const AttentionOptions& options = {});

// q: (batch·n_q, heads·d), k: (batch·n_k, heads·d), v: (batch·n_k, heads·d_v), d_out: the
// output's shape. flash_attention()'s inputs, options and limits. It keeps each row's
// logsumexp L and D = rowsum(dO ⊙ O) and, key tile by key tile (tiling.hpp's Br x Bc),
// recomputes P = exp(S − L) to add into dV, dK and dQ: it never forms the (n_q, n_k) matrix.
// Scalar, one thread; options.threads applies to the forward only.
Result<AttentionGradients> flash_attention_backward(const Matrix& q, const Matrix& k,
                                                    const Matrix& v, const Matrix& d_out,
                                                    const LongAttentionOptions& options = {});

}  // namespace attnlab
