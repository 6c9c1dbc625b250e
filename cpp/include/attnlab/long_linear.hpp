// Linear attention and retention as long-sequence kernels (issue 37, item 8): the small entries'
// rules (linear_attention.hpp's φ, retention.hpp's decay) over many heads and long sequences,
// without the n × n matrix: O(n·d·d_v) work and O(d·d_v) state per head. Causal by chunks of
// `chunk` tokens: inside a chunk the masked product (φ(Q_c)·φ(K_c)ᵀ ⊙ mask)·V_c, across chunks
// the state S = Σ φ(k_j) v_jᵀ (and normaliser z = Σ φ(k_j)) carried from one chunk to the next;
// non-causal linear attention forms φ(K)ᵀV once and reads it with every query. Heads, kvHeads,
// batch and threads as the flash kernel takes them (flash.hpp), on the same pool of workers
// (one (sequence, head) per item: a causal head is one chain of chunks).
#pragma once

#include <cstddef>
#include <optional>
#include <vector>

#include "attnlab/error.hpp"
#include "attnlab/linear_attention.hpp"
#include "attnlab/matrix.hpp"

namespace attnlab {

// How a long call is laid out and run, as in LongAttentionOptions.
struct LongLayout {
  int heads = 1;            // columns of Q split into equal slices, one per query head
  int kv_heads = 0;         // K/V heads: 0 = heads; else a divisor of heads
  std::size_t batch = 1;    // rows of Q, K and V split into equal sequences
  std::size_t threads = 0;  // worker threads; 0 = kernels::max_threads() (wasm caps it)
  // Tokens per chunk of the causal pass: 1 … limits::long_chunk; 0 = 64. Changes rounding only.
  std::size_t chunk = 0;
};

struct LongLinearOptions : LongLayout {
  FeatureMap feature_map = FeatureMap::elu;  // elu or relu ('favor' is the small entry's only)
  bool causal = false;                       // query i sees keys 0 … i (n_q = n_k)
  std::optional<float> scale;                // multiplies each query before φ; absent: 1
};

struct LongRetentionOptions : LongLayout {
  std::optional<float> decay;  // γ in (0, 1], required. Retention is causal: n_q = n_k.
};

struct LongLinearResult {
  Matrix output;  // (batch·n_q, heads·d_v)
  // Rows of Q where some head's normaliser φ(q_i)·z_i is 0: that head's columns are zeros
  // (linear attention only; see LinearAttentionResult::zero_normalizer_rows).
  std::vector<std::size_t> zero_normalizer_rows;
};

// q: (batch·n, heads·d), k: (batch·n_k, kv_heads·d), v: (batch·n_k, kv_heads·d_v), within the
// flash kernel's limits (limits::flash_tokens, flash_features, flash_values) and, in wasm,
// limits::long_linear_multiply_adds. Errors name the field: empty, too_large, shape_mismatch,
// non_finite (an input, or a state or output past float32), invalid_argument (heads, kvHeads,
// batch, chunk, scale, decay; featureMap 'favor').
Result<LongLinearResult> long_linear_attention(const Matrix& q, const Matrix& k, const Matrix& v,
                                               const LongLinearOptions& options = {});
Result<LongLinearResult> long_retention(const Matrix& q, const Matrix& k, const Matrix& v,
                                        const LongRetentionOptions& options);

}  // namespace attnlab
