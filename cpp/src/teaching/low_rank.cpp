#include "attnlab/low_rank.hpp"

#include <algorithm>
#include <cmath>
#include <cstdint>

#include "attnlab/attention.hpp"
#include "attnlab/kernels.hpp"
#include "attnlab/limits.hpp"
#include "attnlab/random.hpp"
#include "base/validate.hpp"
#include "teaching/svd.hpp"

namespace attnlab {
namespace {

using validate::Problem;
using Matrix64 = BasicMatrix<double>;

Problem check_projection(const char* name, const Matrix& m, std::size_t rank, std::size_t n_k) {
  if (auto p = validate::well_formed(name, m)) return p;
  if (m.rows != rank || m.cols != n_k)
    return validate::formatted(ErrorCode::shape_mismatch,
                               "%s is %zu×%zu: Linformer's projections are rank × n_k = %zu×%zu",
                               name, m.rows, m.cols, rank, n_k);
  return validate::finite(name, m);
}

Problem check(const Matrix& q, const Matrix& k, const Matrix& v, const LowRankOptions& o) {
  if (auto p = validate::attention_shapes(q, k, v, limits::attention_tokens,
                                          limits::attention_features, "low-rank attention"))
    return p;
  const bool svd = o.method == LowRankMethod::svd;
  if (svd && std::max(q.rows, k.rows) > limits::low_rank_tokens)
    return validate::formatted(ErrorCode::too_large,
                               "Q (%zu rows) and K (%zu rows) are too large for the SVD: it allows "
                               "at most %zu rows each",
                               q.rows, k.rows, limits::low_rank_tokens);
  if (!o.rank)
    return Error{ErrorCode::invalid_argument,
                 "rank is missing: give k, the singular values kept (svd) or the projected keys "
                 "(linformer)"};
  if (auto p = validate::count_within("rank", *o.rank, 1, svd ? std::min(q.rows, k.rows) : k.rows,
                                      ErrorCode::invalid_argument))
    return p;
  if (!svd && o.causal)
    return Error{ErrorCode::invalid_argument,
                 "causal: Linformer's projections mix every key into each projected one, so it "
                 "has no causal form; use method 'svd' or causal: false"};
  if (o.scale)
    if (auto p = validate::positive_finite("scale", *o.scale)) return p;
  if (svd && (o.e || o.f))
    return Error{ErrorCode::invalid_argument,
                 std::string(o.e ? "E" : "F") +
                     ": E and F are Linformer's projections, which the svd method does not take; "
                     "use method 'linformer'"};
  if (!svd && o.e.has_value() != o.f.has_value())
    return Error{ErrorCode::invalid_argument, std::string(o.e ? "F" : "E") +
                                                  " is missing: give E and F together, or neither "
                                                  "(drawn from the seed)"};
  if (!svd && o.e) {
    if (auto p = check_projection("E", *o.e, *o.rank, k.rows)) return p;
    if (auto p = check_projection("F", *o.f, *o.rank, k.rows)) return p;
  }
  return validate::finite_qkv(q, k, v);
}

// ‖a − b‖_F, summed in float64.
double frobenius_distance(const Matrix& a, const Matrix& b) {
  double sum = 0;
  for (std::size_t i = 0; i < a.data.size(); ++i) {
    const double d = double(a.data[i]) - b.data[i];
    sum += d * d;
  }
  return std::sqrt(sum);
}

// A_k from the SVD of A (attention()'s weights): the weights, the output, the spectrum.
Problem svd_method(const AttentionResult& exact, const Matrix& v, std::size_t rank,
                   LowRankResult& r) {
  const Matrix& a = exact.weights();
  const Matrix64 a64 = a.cast<double>();
  const svd::Decomposition d = svd::jacobi(a64);
  r.singular_values.assign(d.values.begin(), d.values.end());
  double tail = 0;  // Σ_{i>k} σ_i², smallest first
  for (std::size_t i = d.values.size(); i > rank; --i) tail += d.values[i - 1] * d.values[i - 1];
  r.spectrum_error = static_cast<float>(std::sqrt(tail));
  r.weights = svd::truncate(d, rank).cast<float>();
  r.output = kernels::matmul(*r.weights, v);
  return validate::overflowed("the output A_k·V", r.output);
}

// softmax(Q·(E·K)ᵀ·scale)·(F·V) by attention() itself, and its implied weights over the keys.
Problem linformer(const Matrix& q, const Matrix& k, const Matrix& v, const LowRankOptions& o,
                  float scale, LowRankResult& r) {
  const std::size_t rank = r.rank;
  if (o.e) {
    r.e = o.e;
    r.f = o.f;
  } else {  // N(0, 1/k): E the first k rows of one draw, F the next k
    auto drawn = normal_matrix(2 * rank, k.rows, o.seed);
    if (!drawn) return drawn.error();
    Matrix& p = drawn.value();
    kernels::scale(p, static_cast<float>(1 / std::sqrt(double(rank))));
    const auto half = p.data.begin() + static_cast<std::ptrdiff_t>(rank * k.rows);
    r.e = Matrix(rank, k.rows, std::vector<float>(p.data.begin(), half));
    r.f = Matrix(rank, k.rows, std::vector<float>(half, p.data.end()));
  }
  const Matrix ek = kernels::matmul(*r.e, k);  // (rank, d_k)
  if (auto p = validate::overflowed("the projected keys E·K", ek)) return p;
  const Matrix fv = kernels::matmul(*r.f, v);  // (rank, d_v)
  if (auto p = validate::overflowed("the projected values F·V", fv)) return p;
  AttentionOptions options;
  options.scale = scale;
  auto projected = attention(q, ek, fv, options);
  if (!projected) return projected.error();
  r.projected_weights = std::move(projected.value().softmax.weights);
  r.output = std::move(projected.value().output);
  r.weights = kernels::matmul(*r.projected_weights, *r.f);  // (n_q, n_k): output = W·V
  return validate::overflowed("the implied weights softmax(…)·F", *r.weights);
}

}  // namespace

Result<LowRankResult> low_rank_attention(const Matrix& q, const Matrix& k, const Matrix& v,
                                         const LowRankOptions& options) {
  if (auto p = check(q, k, v, options)) return *p;
  AttentionOptions exact_options;  // attention()'s rules for A: causal, scale, softmax
  exact_options.causal = options.causal;
  exact_options.scale = options.scale;
  auto exact = attention(q, k, v, exact_options);
  if (!exact) return exact.error();
  LowRankResult r;
  r.rank = *options.rank;
  r.scale = exact.value().scale;
  const Problem problem = options.method == LowRankMethod::svd
                              ? svd_method(exact.value(), v, r.rank, r)
                              : linformer(q, k, v, options, r.scale, r);
  if (problem) return *problem;
  r.exact_output = std::move(exact.value().output);
  r.exact_weights = std::move(exact.value().softmax.weights);
  r.weights_error = static_cast<float>(frobenius_distance(*r.exact_weights, *r.weights));
  r.output_error = static_cast<float>(frobenius_distance(r.exact_output, r.output));
  if (std::uint64_t{q.rows} * k.rows > limits::trace_scores) {
    r.weights.reset();
    r.exact_weights.reset();
  }
  return r;
}

}  // namespace attnlab
