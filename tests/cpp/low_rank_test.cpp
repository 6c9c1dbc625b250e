// low_rank_attention(): the SVD's singular values and A_k against an independent float64
// reference (the eigenvalues of [[0, A], [Aᵀ, 0]] by the two-sided Jacobi eigenvalue method,
// written here), Eckart–Young, rank = n giving A back, Linformer against its definition in
// float64, and every error.
#include "attnlab/low_rank.hpp"

#include <algorithm>
#include <array>
#include <catch2/catch.hpp>
#include <cmath>
#include <cstdio>
#include <numeric>
#include <vector>

#include "attnlab/limits.hpp"
#include "test_support.hpp"

namespace attnlab::test {
namespace {

using BigMatrix = BasicMatrix<double>;

constexpr double tolerance = 1e-5;

BigMatrix product(const BigMatrix& a, const auto& b) {
  BigMatrix out(a.rows, b.cols);
  for (std::size_t i = 0; i < a.rows; ++i)
    for (std::size_t l = 0; l < a.cols; ++l)
      for (std::size_t j = 0; j < b.cols; ++j) out(i, j) += a(i, l) * double(b(l, j));
  return out;
}

// softmax(scale·Q·Kᵀ) in float64, keys after the query hidden when causal (top-left).
BigMatrix softmax_weights(const Matrix& q, const auto& k, double scale, bool causal) {
  BigMatrix w(q.rows, k.rows);
  for (std::size_t i = 0; i < q.rows; ++i) {
    const std::size_t seen = causal ? std::min(i + 1, k.rows) : k.rows;
    double top = -INFINITY, sum = 0;
    for (std::size_t j = 0; j < seen; ++j) {
      double dot = 0;
      for (std::size_t a = 0; a < q.cols; ++a) dot += double(q(i, a)) * double(k(j, a));
      w(i, j) = dot * scale;
      top = std::max(top, w(i, j));
    }
    for (std::size_t j = 0; j < seen; ++j) sum += w(i, j) = std::exp(w(i, j) - top);
    for (std::size_t j = 0; j < seen; ++j) w(i, j) /= sum;
  }
  return w;
}

// The singular values and vectors of A from the symmetric (n_q + n_k) matrix [[0, A], [Aᵀ, 0]],
// whose eigenvalues are ±σ_i (and zeros), eigenvectors (u_i; ±v_i)/√2: the classical cyclic
// Jacobi eigenvalue method, two-sided rotations of the whole matrix, in double.
struct Spectrum {
  std::vector<double> sigma;      // descending, min(n_q, n_k)
  std::vector<BigMatrix> rank_1;  // σ_i u_i v_iᵀ, in the same order
};

Spectrum reference_svd(const BigMatrix& a) {
  const std::size_t m = a.rows, n = a.cols, size = m + n;
  BigMatrix s(size, size), vec(size, size);
  for (std::size_t i = 0; i < m; ++i)
    for (std::size_t j = 0; j < n; ++j) s(i, m + j) = s(m + j, i) = a(i, j);
  for (std::size_t i = 0; i < size; ++i) vec(i, i) = 1;
  for (int sweep = 0; sweep < 100; ++sweep) {
    double off = 0;
    for (std::size_t p = 0; p < size; ++p)
      for (std::size_t q = p + 1; q < size; ++q) off += s(p, q) * s(p, q);
    if (off < 1e-300) break;
    for (std::size_t p = 0; p < size; ++p)
      for (std::size_t q = p + 1; q < size; ++q) {
        if (s(p, q) == 0) continue;
        const double theta = (s(q, q) - s(p, p)) / (2 * s(p, q));
        const double t = (theta >= 0 ? 1.0 : -1.0) / (std::abs(theta) + std::hypot(theta, 1.0));
        const double c = 1 / std::hypot(t, 1.0), sn = t * c;
        for (std::size_t r = 0; r < size; ++r) {  // columns p and q
          const double x = s(r, p), y = s(r, q);
          s(r, p) = c * x - sn * y;
          s(r, q) = sn * x + c * y;
        }
        for (std::size_t r = 0; r < size; ++r) {  // rows p and q
          const double x = s(p, r), y = s(q, r);
          s(p, r) = c * x - sn * y;
          s(q, r) = sn * x + c * y;
        }
        for (std::size_t r = 0; r < size; ++r) {
          const double x = vec(r, p), y = vec(r, q);
          vec(r, p) = c * x - sn * y;
          vec(r, q) = sn * x + c * y;
        }
      }
  }
  std::vector<std::size_t> order(size);
  std::iota(order.begin(), order.end(), std::size_t{0});
  std::sort(order.begin(), order.end(),
            [&](std::size_t p, std::size_t q) { return s(p, p) > s(q, q); });
  Spectrum out;
  for (std::size_t i = 0; i < std::min(m, n); ++i) {
    const std::size_t e = order[i];
    out.sigma.push_back(std::max(0.0, s(e, e)));
    BigMatrix term(m, n);  // σ·(√2·u)(√2·v)ᵀ
    for (std::size_t r = 0; r < m; ++r)
      for (std::size_t c = 0; c < n; ++c)
        term(r, c) = 2 * out.sigma.back() * vec(r, e) * vec(m + c, e);
    out.rank_1.push_back(std::move(term));
  }
  return out;
}

LowRankOptions svd_options(std::size_t rank, bool causal = false) {
  LowRankOptions o;
  o.rank = rank;
  o.causal = causal;
  return o;
}

ErrorCode error_of(const Matrix& q, const Matrix& k, const Matrix& v, const LowRankOptions& o) {
  const auto r = attnlab::low_rank_attention(q, k, v, o);
  REQUIRE_FALSE(r.ok());
  INFO(r.error().message);
  CHECK_FALSE(r.error().message.empty());
  return r.error().code;
}

}  // namespace

TEST_CASE("low_rank svd: singular values, A_k and its output within 1e-5 of float64",
          "[low-rank]") {
  double worst_sigma = 0, worst_weights = 0, worst_output = 0, worst_identity = 0, worst_a = 0;
  std::uint32_t seed = 700;
  for (const bool causal : {false, true})
    for (const auto& [n_q, n_k, d] : std::vector<std::array<std::size_t, 3>>{
             {1, 1, 1}, {2, 5, 3}, {6, 6, 4}, {9, 4, 8}, {16, 16, 8}, {24, 31, 16}, {40, 40, 32}}) {
      const auto qkv = random_qkv(n_q, n_k, d, 5, seed += 3);
      const double scale = 1 / std::sqrt(double(d));
      const BigMatrix a_ref = softmax_weights(qkv.q, qkv.k, scale, causal);
      // The reference SVD is of the core's A, so the two decompose the same float32 matrix.
      const auto full =
          ok(attnlab::low_rank_attention(qkv.q, qkv.k, qkv.v, svd_options(1, causal)));
      REQUIRE(full.exact_weights.has_value());
      CHECK_FALSE(full.e.has_value());
      worst_a = std::max(worst_a, relative_error(*full.exact_weights, a_ref));
      CHECK(relative_error(*full.exact_weights, a_ref) <= tolerance);
      const Spectrum ref = reference_svd(full.exact_weights->cast<double>());
      REQUIRE(full.singular_values.size() == ref.sigma.size());
      for (std::size_t i = 0; i < ref.sigma.size(); ++i) {
        INFO("n_q " << n_q << " n_k " << n_k << " causal " << causal << " σ_" << i + 1);
        // Relative to σ_i itself; σ below 1e-9·σ_1 is float32 A's rounding either way.
        const double e = std::abs(full.singular_values[i] - ref.sigma[i]) /
                         std::max(ref.sigma[i], 1e-9 * ref.sigma[0]);
        CHECK(e <= tolerance);
        worst_sigma = std::max(worst_sigma, e);
        if (i) CHECK(full.singular_values[i] <= full.singular_values[i - 1]);
      }
      for (std::size_t rank = 1; rank <= ref.sigma.size(); rank += std::max<std::size_t>(1, rank)) {
        INFO("n_q " << n_q << " n_k " << n_k << " causal " << causal << " rank " << rank);
        const auto r =
            ok(attnlab::low_rank_attention(qkv.q, qkv.k, qkv.v, svd_options(rank, causal)));
        BigMatrix a_k(n_q, n_k);
        double tail = 0;
        for (std::size_t i = 0; i < ref.sigma.size(); ++i)
          if (i < rank)
            for (std::size_t c = 0; c < a_k.data.size(); ++c) a_k.data[c] += ref.rank_1[i].data[c];
          else
            tail += ref.sigma[i] * ref.sigma[i];
        REQUIRE(r.weights.has_value());
        const double e_w = relative_error(*r.weights, a_k);
        const double e_o = relative_error(r.output, product(a_k, qkv.v));
        CHECK(e_w <= tolerance);
        CHECK(e_o <= tolerance);
        worst_weights = std::max(worst_weights, e_w);
        worst_output = std::max(worst_output, e_o);
        // Eckart–Young: the measured error, the spectrum's and the reference's agree.
        REQUIRE(r.spectrum_error.has_value());
        const double identity = std::max(std::abs(double(r.weights_error) - *r.spectrum_error),
                                         std::abs(double(r.weights_error) - std::sqrt(tail)));
        CHECK(identity <= tolerance);
        worst_identity = std::max(worst_identity, identity);
        CHECK(relative_error(r.exact_output, product(a_ref, qkv.v)) <= tolerance);
      }
    }
  std::printf(
      "low-rank svd vs float64: A %.3g, σ (relative) %.3g, A_k %.3g, A_k·V %.3g; "
      "|measured − spectrum| Frobenius error %.3g\n",
      worst_a, worst_sigma, worst_weights, worst_output, worst_identity);
}

TEST_CASE("low_rank svd: rank = min(n_q, n_k) gives A back, whatever its shape", "[low-rank]") {
  for (const auto& [n_q, n_k] : std::vector<std::array<std::size_t, 2>>{
           {12, 12},
           {7, 19},
           {19, 7},
           {attnlab::limits::low_rank_tokens, 64},
           {attnlab::limits::low_rank_tokens, attnlab::limits::low_rank_tokens}}) {
    for (const bool causal : {false, true}) {
      INFO("n_q " << n_q << " n_k " << n_k << " causal " << causal);
      // d = 64 and N(0, 1) entries: sharp rows, singular values down to rounding noise.
      const auto qkv = random_qkv(n_q, n_k, n_q > 64 ? 64 : 8, 3, 31);
      const auto r = ok(attnlab::low_rank_attention(qkv.q, qkv.k, qkv.v,
                                                    svd_options(std::min(n_q, n_k), causal)));
      CHECK(attnlab::test::max_abs_diff(*r.weights, *r.exact_weights) <= tolerance);
      CHECK(attnlab::test::max_abs_diff(r.output, r.exact_output) <= tolerance);
      CHECK(r.weights_error <= tolerance);
      CHECK(*r.spectrum_error == 0.0f);
      // Σσ_i² = ‖A‖_F²: the whole spectrum holds all of A.
      double squares = 0, frobenius = 0;
      for (const float s : r.singular_values) squares += double(s) * s;
      for (const float x : r.exact_weights->data) frobenius += double(x) * x;
      CHECK(std::abs(squares - frobenius) <= tolerance * frobenius);
    }
  }
}

TEST_CASE("low_rank svd: rank-deficient and saturated A stay finite", "[low-rank]") {
  // Identical queries: every row of A the same, rank 1; a huge scale: one-hot rows.
  auto qkv = random_qkv(10, 10, 4, 3, 5);
  for (std::size_t i = 1; i < 10; ++i)
    for (std::size_t a = 0; a < 4; ++a) qkv.q(i, a) = qkv.q(0, a);
  auto r = ok(attnlab::low_rank_attention(qkv.q, qkv.k, qkv.v, svd_options(1)));
  CHECK(attnlab::test::max_abs_diff(*r.weights, *r.exact_weights) <= tolerance);
  CHECK(r.singular_values[1] <= 1e-6f);
  LowRankOptions sharp = svd_options(3, true);
  sharp.scale = 1e4f;
  r = ok(attnlab::low_rank_attention(qkv.q, qkv.k, qkv.v, sharp));
  CHECK(attnlab::test::all_finite(*r.weights));
  CHECK(attnlab::test::all_finite(r.output));
  CHECK(std::isfinite(r.weights_error));
  CHECK(std::abs(r.weights_error - *r.spectrum_error) <= tolerance);
}

TEST_CASE("low_rank linformer: softmax(Q·(E·K)ᵀ·scale)·(F·V) within 1e-5 of float64",
          "[low-rank]") {
  double worst = 0;
  std::uint32_t seed = 900;
  for (const auto& [n_q, n_k, d, rank] : std::vector<std::array<std::size_t, 4>>{
           {1, 1, 1, 1}, {5, 8, 4, 2}, {16, 16, 8, 4}, {33, 20, 16, 20}, {64, 128, 32, 16}}) {
    INFO("n_q " << n_q << " n_k " << n_k << " rank " << rank);
    const auto qkv = random_qkv(n_q, n_k, d, 6, seed += 3);
    LowRankOptions o;
    o.method = LowRankMethod::linformer;
    o.rank = rank;
    o.seed = seed;
    const auto r = ok(attnlab::low_rank_attention(qkv.q, qkv.k, qkv.v, o));
    REQUIRE(r.e->rows == rank);
    REQUIRE(r.e->cols == n_k);
    REQUIRE(r.f->rows == rank);
    CHECK(r.singular_values.empty());
    CHECK_FALSE(r.spectrum_error.has_value());
    REQUIRE(r.projected_weights.has_value());
    const BigMatrix ek = product(r.e->cast<double>(), qkv.k);
    const BigMatrix fv = product(r.f->cast<double>(), qkv.v);
    const BigMatrix p = softmax_weights(qkv.q, ek, 1 / std::sqrt(double(d)), false);
    const BigMatrix w = product(p, *r.f);
    const double errors[] = {
        relative_error(*r.projected_weights, p), relative_error(r.output, product(p, fv)),
        relative_error(*r.weights, w), relative_error(r.output, product(w, qkv.v))};
    for (const double e : errors) {
      CHECK(e <= tolerance);
      worst = std::max(worst, e);
    }
    // The error it reports is the one between its weights and A, and its output and A·V.
    BigMatrix a = softmax_weights(qkv.q, qkv.k, 1 / std::sqrt(double(d)), false);
    double sum = 0;
    for (std::size_t c = 0; c < a.data.size(); ++c) sum += std::pow(w.data[c] - a.data[c], 2);
    CHECK(std::abs(r.weights_error - std::sqrt(sum)) <= tolerance * std::max(1.0, std::sqrt(sum)));
  }
  std::printf("low-rank linformer vs float64 (relative to max(1, max|ref|)): %.3g\n", worst);
}

TEST_CASE("low_rank linformer: seeded projections, and E = F = I gives exact attention",
          "[low-rank]") {
  const auto qkv = random_qkv(12, 12, 8, 4, 44);
  LowRankOptions o;
  o.method = LowRankMethod::linformer;
  o.rank = 12;
  o.seed = 3;
  const auto a = ok(attnlab::low_rank_attention(qkv.q, qkv.k, qkv.v, o));
  const auto b = ok(attnlab::low_rank_attention(qkv.q, qkv.k, qkv.v, o));
  CHECK(a.e == b.e);
  CHECK(a.output == b.output);
  o.seed = 4;
  const auto c = ok(attnlab::low_rank_attention(qkv.q, qkv.k, qkv.v, o));
  CHECK_FALSE(a.e == c.e);
  CHECK_FALSE(a.e == a.f);
  double squares = 0;  // N(0, 1/k): the mean square near 1/k
  for (const float x : a.e->data) squares += double(x) * x;
  CHECK(squares / double(a.e->data.size()) == Approx(1.0 / 12).epsilon(0.25));
  Matrix identity(12, 12);
  for (std::size_t i = 0; i < 12; ++i) identity(i, i) = 1;
  o.e = o.f = identity;
  const auto exact = ok(attnlab::low_rank_attention(qkv.q, qkv.k, qkv.v, o));
  CHECK(attnlab::test::max_abs_diff(exact.output, exact.exact_output) <= tolerance);
  CHECK(exact.weights_error <= tolerance);
  CHECK(exact.output_error <= tolerance);
}

TEST_CASE("low_rank_attention rejects every bad input with its code", "[low-rank]") {
  const auto qkv = random_qkv(6, 6, 3, 2, 5);
  const Matrix& q = qkv.q;
  const Matrix& k = qkv.k;
  const Matrix& v = qkv.v;
  CHECK(error_of(q, k, v, svd_options(0)) == ErrorCode::invalid_argument);
  CHECK(error_of(q, k, v, LowRankOptions{}) == ErrorCode::invalid_argument);  // rank missing
  CHECK(error_of(q, k, v, svd_options(7)) == ErrorCode::invalid_argument);
  CHECK(error_of(Matrix(3, 3, 1.0f), k, v, svd_options(4)) == ErrorCode::invalid_argument);
  LowRankOptions o = svd_options(2);
  o.scale = 0.0f;
  CHECK(error_of(q, k, v, o) == ErrorCode::invalid_argument);
  o.scale = NAN;
  CHECK(error_of(q, k, v, o) == ErrorCode::invalid_argument);
  LowRankOptions projected = svd_options(2);
  projected.e = projected.f = Matrix(2, 6, 0.5f);  // Linformer's projections
  CHECK(error_of(q, k, v, projected) == ErrorCode::invalid_argument);
  Matrix bad = q;
  bad(1, 1) = NAN;
  CHECK(error_of(bad, k, v, svd_options(2)) == ErrorCode::non_finite);
  CHECK(error_of(q, Matrix(6, 4), v, svd_options(2)) == ErrorCode::shape_mismatch);
  CHECK(error_of(Matrix(), k, v, svd_options(1)) == ErrorCode::empty);
  const std::size_t past = attnlab::limits::low_rank_tokens + 1;
  const auto big = random_qkv(past, 8, 2, 2, 1);
  CHECK(error_of(big.q, big.k, big.v, svd_options(2)) == ErrorCode::too_large);

  LowRankOptions lin;
  lin.method = LowRankMethod::linformer;
  lin.rank = 6;
  CHECK(ok(attnlab::low_rank_attention(big.q, big.k, big.v, lin)).output.rows == past);
  lin.rank = 7;  // more projected keys than keys
  CHECK(error_of(q, k, v, lin) == ErrorCode::invalid_argument);
  lin.rank = 2;
  lin.causal = true;
  CHECK(error_of(q, k, v, lin) == ErrorCode::invalid_argument);
  lin.causal = false;
  lin.e = Matrix(2, 6, 0.5f);
  CHECK(error_of(q, k, v, lin) == ErrorCode::invalid_argument);  // E without F
  lin.f = Matrix(2, 5, 0.5f);
  CHECK(error_of(q, k, v, lin) == ErrorCode::shape_mismatch);
  lin.f = Matrix(3, 6, 0.5f);
  CHECK(error_of(q, k, v, lin) == ErrorCode::shape_mismatch);
  lin.f = Matrix(2, 6, 0.5f);
  lin.f->data[3] = INFINITY;
  CHECK(error_of(q, k, v, lin) == ErrorCode::non_finite);
  lin.f->data[3] = 1e38f;  // F·V past float32
  Matrix large_v = v;
  for (float& x : large_v.data) x = 1e38f;
  CHECK(error_of(q, k, large_v, lin) == ErrorCode::non_finite);
}

}  // namespace attnlab::test
