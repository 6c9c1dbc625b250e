// Linear attention (Katharopoulos et al. 2020, "Transformers are RNNs"): softmax's exp(q·k)
// replaced by a kernel φ(q)ᵀφ(k) with a positive feature map φ, so the sum over keys regroups:
//   o_i = φ(q_i)ᵀ(Σ_j φ(k_j) v_jᵀ) / φ(q_i)ᵀ(Σ_j φ(k_j))
// and the n × n matrix is never needed: O(n·d_k·d_v) instead of O(n²·d). Both ways are here,
// so a learner sees that they agree: the parallel form builds the kernel matrix and normalises
// its rows (masked below the diagonal when causal), the recurrent form carries a state
// S_t = Σ_{j≤t} φ(k_j) v_jᵀ (d_k × d_v) and a normaliser z_t = Σ_{j≤t} φ(k_j) token by token.
#pragma once

#include <cstddef>
#include <cstdint>
#include <optional>
#include <vector>

#include "attnlab/error.hpp"
#include "attnlab/matrix.hpp"

namespace attnlab {

// φ, applied to every entry of a row: elu(x) + 1 (x + 1 for x > 0, eˣ otherwise: positive, the
// paper's choice), relu(x) = max(x, 0) (can be all zeros), or Performer's random features
// (FAVOR+, not computed yet: refused with invalid_argument).
enum class FeatureMap : std::uint8_t { elu, relu, favor };

// How an efficient attention is computed: the parallel form (an n × n matrix, as exact
// attention) or the recurrent form (a fixed-size state updated one token at a time).
enum class AttentionForm : std::uint8_t { parallel, recurrent };

struct LinearAttentionOptions {
  FeatureMap feature_map = FeatureMap::elu;
  // Query i sees keys 0 … i only (n_q = n_k).
  bool causal = false;
  AttentionForm form = AttentionForm::parallel;
  // Multiplies each query before φ: φ(scale·q_i). Absent: 1, as in the paper and its code
  // (fast-transformers), which apply φ to q and k as they are: the normaliser already keeps
  // the weights summing to 1, where softmax needed 1/√d_k to keep exp from saturating. Under
  // relu it changes the kernel only (relu(s·x) = s·relu(x) cancels in the weights). Finite, > 0.
  std::optional<float> scale;
};

struct LinearAttentionResult {
  float scale = 1.0f;  // options.scale or its default 1
  Matrix feature_q;    // φ(scale·Q): (n_q, d_k)
  Matrix feature_k;    // φ(K): (n_k, d_k)
  // φ(K)ᵀV = Σ_j φ(k_j) v_jᵀ over every key, the regrouping that removes the n × n matrix:
  // (d_k, d_v), the recurrent form's state after its last token.
  Matrix kv_state;
  std::vector<float> key_sum;  // Σ_j φ(k_j): (d_k), the normaliser's state after the last key
  // φ(q_i)ᵀz_i, z_i the sum of φ(k_j) over the keys query i sees: (n_q)
  std::vector<float> normalizer;
  // The implied weights, present when n_q·n_k ≤ limits::trace_scores: the kernel
  // φ(q_i)ᵀφ(k_j) (0 where causal hides the key), and each row of it over its normaliser.
  std::optional<Matrix> kernel;   // (n_q, n_k)
  std::optional<Matrix> weights;  // (n_q, n_k), rows summing to 1 (0 in a zero-normaliser row)
  Matrix output;                  // (n_q, d_v)
  // Queries whose normaliser is 0 (relu features of q orthogonal to every visible key's, or
  // elu's eˣ underflowing): no weight to share out, so their weights and output are zeros.
  std::vector<std::size_t> zero_normalizer_rows;
};

// q: (n_q, d_k), k: (n_k, d_k), v: (n_k, d_v), each within limits::attention_tokens ×
// attention_features; causal needs n_q = n_k. Errors name the input: empty, too_large,
// shape_mismatch, non_finite (an input, or a feature, kernel, state, normaliser or output
// past float32), invalid_argument (scale; favor, not yet).
Result<LinearAttentionResult> linear_attention(const Matrix& q, const Matrix& k, const Matrix& v,
                                               const LinearAttentionOptions& options = {});

}  // namespace attnlab
