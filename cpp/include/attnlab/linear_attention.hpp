// Linear attention (Katharopoulos et al. 2020, "Transformers are RNNs"): softmax's exp(q·k)
// replaced by a kernel φ(q)ᵀφ(k) with a positive feature map φ, so the sum over keys regroups:
//   o_i = φ(q_i)ᵀ(Σ_j φ(k_j) v_jᵀ) / φ(q_i)ᵀ(Σ_j φ(k_j))
// and the n × n matrix is never needed: O(n·d_k·d_v) instead of O(n²·d). Both ways are here,
// so a learner sees that they agree: the parallel form builds the kernel matrix and normalises
// its rows (masked below the diagonal when causal), the recurrent form carries a state
// S_t = Σ_{j≤t} φ(k_j) v_jᵀ (d_k × d_v) and a normaliser z_t = Σ_{j≤t} φ(k_j) token by token.
#pragma once

#include <cmath>
#include <cstddef>
#include <cstdint>
#include <optional>
#include <vector>

#include "attnlab/error.hpp"
#include "attnlab/matrix.hpp"

namespace attnlab {

// φ: elu(x) + 1 (x + 1 for x > 0, eˣ otherwise: positive, the paper's choice) or relu(x) =
// max(x, 0) (can be all zeros), entry by entry; or Performer's positive orthogonal random
// features (FAVOR+, favor.hpp), m of them per row, whose kernel estimates exp(qᵀk·scale).
enum class FeatureMap : std::uint8_t { elu, relu, favor };

// φ of one entry under elu or relu: the rule the small and the long kernels share.
inline float feature_value(float x, FeatureMap map) {
  return map == FeatureMap::relu ? (x > 0 ? x : 0.0f) : (x > 0 ? x + 1 : std::exp(x));
}

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
  // Under favor it multiplies q·k, as softmax's does: φ(√scale·q)ᵀφ(√scale·k) estimates
  // exp(qᵀk·scale); absent: 1/√d_k, softmax's default, so the weights estimate attention()'s.
  std::optional<float> scale;
  // favor only (refused with the other maps): m, the random features (1 …
  // limits::favor_features; default 256), and the seed W is drawn from (default 1).
  std::optional<std::size_t> features;
  std::optional<std::uint64_t> seed;
};

struct LinearAttentionResult {
  float scale = 1.0f;  // options.scale or its default (1; favor: 1/√d_k)
  // What multiplies Q and K before φ: scale and 1 (elu, relu), √scale and √scale (favor).
  float query_factor = 1.0f;
  float key_factor = 1.0f;
  // The features, d = d_k columns (favor: d = m): φ(scale·Q) and φ(K); favor φ(√scale·Q) and
  // φ(√scale·K).
  Matrix feature_q;  // (n_q, d)
  Matrix feature_k;  // (n_k, d)
  // favor: W, the m random rows w_l (favor_projection): (m, d_k); absent for elu and relu.
  std::optional<Matrix> random_features;
  // φ(K)ᵀV = Σ_j φ(k_j) v_jᵀ over every key, the regrouping that removes the n × n matrix:
  // (d, d_v), the recurrent form's state after its last token.
  Matrix kv_state;
  std::vector<float> key_sum;  // Σ_j φ(k_j): (d), the normaliser's state after the last key
  // φ(q_i)ᵀz_i, z_i the sum of φ(k_j) over the keys query i sees: (n_q)
  std::vector<float> normalizer;
  // The implied weights, present when n_q·n_k ≤ limits::trace_scores: the kernel
  // φ(q_i)ᵀφ(k_j) (0 where causal hides the key; favor: the estimate of exp(q_i·k_j·scale)),
  // and each row of it over its normaliser.
  std::optional<Matrix> kernel;   // (n_q, n_k)
  std::optional<Matrix> weights;  // (n_q, n_k), rows summing to 1 (0 in a zero-normaliser row)
  Matrix output;                  // (n_q, d_v)
  // Queries whose normaliser is 0 (relu features of q orthogonal to every visible key's, or
  // elu's eˣ or favor's features underflowing, as they do once ‖√scale·q‖ is large): no weight
  // to share out, so their weights and output are zeros.
  std::vector<std::size_t> zero_normalizer_rows;
};

// q: (n_q, d_k), k: (n_k, d_k), v: (n_k, d_v), each within limits::attention_tokens ×
// attention_features; causal needs n_q = n_k. Errors name the input: empty, too_large,
// shape_mismatch, non_finite (an input, or a feature, kernel, state, normaliser or output
// past float32), invalid_argument (scale; features or seed without favor), too_large (favor:
// features above limits::favor_features, or its work above limits::favor_multiply_adds).
Result<LinearAttentionResult> linear_attention(const Matrix& q, const Matrix& k, const Matrix& v,
                                               const LinearAttentionOptions& options = {});

}  // namespace attnlab
