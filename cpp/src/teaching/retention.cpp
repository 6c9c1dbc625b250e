#include "attnlab/retention.hpp"

#include <cmath>
#include <cstdint>
#include <vector>

#include "attnlab/kernels.hpp"
#include "attnlab/limits.hpp"
#include "base/validate.hpp"
#include "kernels/simd_kernels.hpp"

namespace attnlab {

std::optional<Error> check_decay(std::optional<float> decay) {
  if (!decay) return Error{ErrorCode::invalid_argument, "decay is missing: give γ in (0, 1]"};
  // γ = 0 would keep nothing of the past (and 0⁰ on the diagonal); γ > 1 grows it without bound.
  if (!(std::isfinite(*decay) && *decay > 0.0f && *decay <= 1.0f))
    return Error{ErrorCode::invalid_argument,
                 "decay must be a number in (0, 1] (γ, how much of "
                 "the state each token keeps), got " +
                     validate::number_text(*decay)};
  return std::nullopt;
}

namespace {

using validate::Problem;

Problem check(const Matrix& q, const Matrix& k, const Matrix& v, const RetentionOptions& o) {
  if (auto p = validate::attention_shapes(q, k, v, limits::attention_tokens,
                                          limits::attention_features, "retention"))
    return p;
  if (auto p = validate::same_extent("Q", q, true, "K", k, true,
                                     "retention runs over one sequence, query t beside key t, so "
                                     "Q and K need the same number of rows"))
    return p;
  if (auto e = check_decay(o.decay)) return e;
  return validate::finite_qkv(q, k, v);
}

// Q·Kᵀ ⊙ D: (n, n), D_ij = γ^(i−j) for j ≤ i, 0 above.
Result<Matrix> decayed_scores(const Matrix& q, const Matrix& k, float decay) {
  Matrix w = kernels::matmul_transposed(q, k);
  if (auto p = validate::overflowed("the scores Q·Kᵀ", w)) return *p;
  const std::vector<double> powers = decay_powers(decay, w.rows);  // powers[m] = γ^m
  for (std::size_t i = 0; i < w.rows; ++i)
    for (std::size_t j = 0; j < w.cols; ++j)
      w(i, j) = j > i ? 0.0f : static_cast<float>(w(i, j) * powers[i - j]);
  return w;
}

// S_t = γ·S_{t−1} + k_tᵀv_t, o_t = q_t·S_t, one token at a time; returns S_n, writes the output.
Matrix recurrent(const Matrix& q, const Matrix& k, const Matrix& v, float decay, Matrix& output) {
  const simd::Kernels& simd = simd::active();
  const std::size_t d = k.cols, d_v = v.cols;
  Matrix state(d, d_v);  // S: (d_k, d_v)
  output = Matrix(q.rows, d_v);
  for (std::size_t t = 0; t < q.rows; ++t) {
    if (decay != 1.0f) simd.scale(state.data.data(), state.data.size(), decay);
    for (std::size_t a = 0; a < d; ++a) simd.axpy(k(t, a), v.row(t), state.row(a), d_v);
    for (std::size_t a = 0; a < d; ++a) simd.axpy(q(t, a), state.row(a), output.row(t), d_v);
  }
  return state;
}

}  // namespace

Result<RetentionResult> retention(const Matrix& q, const Matrix& k, const Matrix& v,
                                  const RetentionOptions& options) {
  if (auto p = check(q, k, v, options)) return *p;
  RetentionResult r;
  r.decay = *options.decay;
  const bool shown = std::uint64_t{q.rows} * k.rows <= limits::trace_scores;
  if (shown || options.form == AttentionForm::parallel) {
    auto w = decayed_scores(q, k, r.decay);
    if (!w) return w.error();
    r.weights = std::move(w.value());
  }
  Matrix recurrent_output;
  // The state is the recurrent form's; the parallel form shows it too (its output is the
  // matrix product, not the recurrence's).
  r.state = recurrent(q, k, v, r.decay, recurrent_output);
  if (auto p = validate::overflowed("the state S", r.state)) return *p;
  r.output = options.form == AttentionForm::parallel ? kernels::matmul(*r.weights, v)
                                                     : std::move(recurrent_output);
  // A sum of up to n finite products of finite values can still pass float32.
  if (auto p = validate::overflowed("the output", r.output)) return *p;
  if (!shown) r.weights.reset();
  return r;
}

}  // namespace attnlab
