#include "attnlab/linear_attention.hpp"

#include <cmath>
#include <string>

#include "attnlab/favor.hpp"
#include "attnlab/kernels.hpp"
#include "attnlab/limits.hpp"
#include "base/validate.hpp"
#include "kernels/simd_kernels.hpp"

namespace attnlab {
namespace {

using validate::Problem;

// FAVOR+'s m when the request leaves it out.
constexpr std::size_t default_features = 256;

Problem check(const Matrix& q, const Matrix& k, const Matrix& v, const LinearAttentionOptions& o) {
  if (auto p = validate::attention_shapes(q, k, v, limits::attention_tokens,
                                          limits::attention_features, "linear attention"))
    return p;
  if (o.causal)  // the recurrent form reads query t after key t: one sequence
    if (auto p = validate::same_extent("Q", q, true, "K", k, true,
                                       "causal linear attention reads query t after key t, so Q "
                                       "and K need the same number of rows"))
      return p;
  if (o.feature_map != FeatureMap::favor && (o.features || o.seed))
    return Error{ErrorCode::invalid_argument,
                 std::string(o.features ? "features" : "seed") +
                     " is for featureMap 'favor' (Performer's random features) only"};
  if (o.feature_map == FeatureMap::favor) {
    const std::size_t m = o.features.value_or(default_features);
    if (auto p = validate::count_within("features", m, 1, limits::favor_features)) return p;
    // W's orthogonalisation (scalar float64: counted 4 times), the features of Q and K, and
    // the kernel they form.
    const std::uint64_t work =
        std::uint64_t{m} *
        (std::uint64_t{q.cols} * (4 * q.cols + q.rows + k.rows) + std::uint64_t{q.rows} * k.rows);
    if (work > limits::favor_multiply_adds)
      return validate::formatted(
          ErrorCode::too_large,
          "features: %zu random features of Q (%zu×%zu) and K (%zu rows) take %llu "
          "multiply-adds, more than the %llu allowed: use fewer features or tokens",
          m, q.rows, q.cols, k.rows, static_cast<unsigned long long>(work),
          static_cast<unsigned long long>(limits::favor_multiply_adds));
  }
  if (o.scale)
    if (auto p = validate::positive_finite("scale", *o.scale)) return p;
  return validate::finite_qkv(q, k, v);
}

// φ(factor·x) entry by entry: (rows, cols) as x.
Matrix features(const Matrix& x, float factor, FeatureMap map) {
  Matrix out(x.rows, x.cols);
  for (std::size_t i = 0; i < x.data.size(); ++i)
    out.data[i] = feature_value(factor * x.data[i], map);
  return out;
}

// A list checked as a 1 × n matrix, so its overflow reads as every other step's.
Problem overflowed(std::string_view what, const std::vector<float>& values) {
  return validate::overflowed(what, Matrix(1, values.size(), values));
}

// The parallel form: the kernel matrix, masked, each row over its sum. Writes r.normalizer,
// r.weights, r.output and the zero rows; `kernel` (n_q, n_k) is r's, or a local one.
Problem parallel(const Matrix& kernel, const Matrix& v, LinearAttentionResult& r) {
  const simd::Kernels& simd = simd::active();
  Matrix weights(kernel.rows, kernel.cols);
  r.normalizer.assign(kernel.rows, 0.0f);
  for (std::size_t i = 0; i < kernel.rows; ++i) {
    const float sum = simd.sum(kernel.row(i), kernel.cols);
    r.normalizer[i] = sum;
    if (sum == 0.0f) {  // nothing to share out: the row stays zeros (and is listed)
      r.zero_normalizer_rows.push_back(i);
      continue;
    }
    for (std::size_t j = 0; j < kernel.cols; ++j) weights(i, j) = kernel(i, j) / sum;
  }
  if (auto p = overflowed("the normalizer φ(Q)·Σφ(K)", r.normalizer)) return p;
  r.output = kernels::matmul(weights, v);  // (n_q, d_v)
  r.weights = std::move(weights);
  return std::nullopt;
}

// The recurrent form: S_t = S_{t−1} + φ(k_t) v_tᵀ and z_t = z_{t−1} + φ(k_t), one key at a time;
// causal query t reads (S_t, z_t) right after key t, otherwise every query reads the last ones.
void recurrent(const Matrix& fq, const Matrix& fk, const Matrix& v, bool causal,
               LinearAttentionResult& r) {
  const simd::Kernels& simd = simd::active();
  const std::size_t d = fk.cols, d_v = v.cols;
  Matrix state(d, d_v);              // S: (d_k, d_v)
  std::vector<float> key_sum(d, 0);  // z: (d_k)
  r.output = Matrix(fq.rows, d_v);   // (n_q, d_v)
  r.normalizer.assign(fq.rows, 0.0f);
  const auto read = [&](std::size_t i) {  // o_i = φ(q_i)ᵀS / φ(q_i)ᵀz
    const float den = simd.dot(fq.row(i), key_sum.data(), d);
    r.normalizer[i] = den;
    if (den == 0.0f) {
      r.zero_normalizer_rows.push_back(i);
      return;
    }
    float* out = r.output.row(i);
    for (std::size_t a = 0; a < d; ++a) simd.axpy(fq(i, a), state.row(a), out, d_v);
    simd.scale(out, d_v, 1.0f / den);
  };
  for (std::size_t t = 0; t < fk.rows; ++t) {
    for (std::size_t a = 0; a < d; ++a) {  // the rank-one update φ(k_t) v_tᵀ, row by row
      simd.axpy(fk(t, a), v.row(t), state.row(a), d_v);
      key_sum[a] += fk(t, a);
    }
    if (causal) read(t);
  }
  if (!causal)
    for (std::size_t i = 0; i < fq.rows; ++i) read(i);
  r.kv_state = std::move(state);
  r.key_sum = std::move(key_sum);
}

}  // namespace

Result<LinearAttentionResult> linear_attention(const Matrix& q, const Matrix& k, const Matrix& v,
                                               const LinearAttentionOptions& options) {
  if (auto p = check(q, k, v, options)) return *p;
  LinearAttentionResult r;
  if (options.feature_map == FeatureMap::favor) {  // φ(√s·x) = exp(W√s·x − s‖x‖²/2)/√m
    r.scale = options.scale.value_or(1.0f / std::sqrt(static_cast<float>(q.cols)));
    r.query_factor = r.key_factor = std::sqrt(r.scale);
    auto w = favor_projection(options.features.value_or(default_features), q.cols,
                              options.seed.value_or(1));
    if (!w) return w.error();
    r.feature_q = favor_features(q, w.value(), r.query_factor);  // (n_q, m)
    if (auto p = validate::overflowed("the features φ(√scale·Q)", r.feature_q)) return *p;
    r.feature_k = favor_features(k, w.value(), r.key_factor);  // (n_k, m)
    if (auto p = validate::overflowed("the features φ(√scale·K)", r.feature_k)) return *p;
    r.random_features = std::move(w.value());
  } else {
    r.scale = r.query_factor = options.scale.value_or(1.0f);
    r.feature_q = features(q, r.query_factor, options.feature_map);  // (n_q, d_k)
    if (auto p = validate::overflowed("the features φ(scale·Q)", r.feature_q)) return *p;
    r.feature_k = features(k, r.key_factor, options.feature_map);  // (n_k, d_k)
    if (auto p = validate::overflowed("the features φ(K)", r.feature_k)) return *p;
  }

  // The kernel, for the parallel form and for display; the recurrent form never needs it.
  const bool shown = std::uint64_t{q.rows} * k.rows <= limits::trace_scores;
  Matrix kernel;
  if (shown || options.form == AttentionForm::parallel) {
    kernel = kernels::matmul_transposed(r.feature_q, r.feature_k);  // (n_q, n_k)
    if (auto p = validate::overflowed("the kernel φ(Q)·φ(K)ᵀ", kernel)) return *p;
    if (options.causal)
      for (std::size_t i = 0; i < kernel.rows; ++i)
        for (std::size_t j = i + 1; j < kernel.cols; ++j) kernel(i, j) = 0.0f;
  }

  if (options.form == AttentionForm::parallel) {
    if (auto p = parallel(kernel, v, r)) return *p;
    // The state and its normaliser as the recurrent form ends with them, for display.
    LinearAttentionResult states;
    recurrent(Matrix(0, r.feature_q.cols), r.feature_k, v, false, states);
    r.kv_state = std::move(states.kv_state);
    r.key_sum = std::move(states.key_sum);
  } else {
    recurrent(r.feature_q, r.feature_k, v, options.causal, r);
    if (auto p = overflowed("the normalizer φ(Q)·Σφ(K)", r.normalizer)) return *p;
    if (shown) {  // the implied weights, from the kernel as the parallel form forms them
      LinearAttentionResult implied;
      if (auto p = parallel(kernel, Matrix(kernel.cols, 1), implied)) return *p;
      r.weights = std::move(implied.weights);
    }
  }
  if (auto p = validate::overflowed("the state φ(K)ᵀV", r.kv_state)) return *p;
  if (auto p = overflowed("the key sum Σφ(K)", r.key_sum)) return *p;
  if (auto p = validate::overflowed("the output", r.output)) return *p;
  if (shown)
    r.kernel = std::move(kernel);
  else
    r.weights.reset();
  return r;
}

}  // namespace attnlab
