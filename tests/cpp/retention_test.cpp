// retention(): both forms against a float64 reference written here, parallel = recurrent,
// the decay's extremes, and every error.
#include "attnlab/retention.hpp"

#include <algorithm>
#include <array>
#include <catch2/catch.hpp>
#include <cmath>
#include <cstdio>
#include <vector>

#include "attnlab/limits.hpp"
#include "test_support.hpp"

namespace attnlab::test {
namespace {

using BigMatrix = BasicMatrix<double>;

// Float32 against float64, relative to the reference's size: 1e-5 · max(1, max |reference|).
// Retention does not normalise, so its outputs grow with n and d: the bound scales with them.
constexpr double tolerance = 1e-5;

struct Reference {
  BigMatrix weights, output, state;  // (n, n), (n, d_v), (d_k, d_v)
};

// The definition in float64: W_ij = (q_i·k_j)·γ^(i−j) for j ≤ i, O = W·V, and S_n =
// Σ_j γ^(n−1−j) k_jᵀv_j.
Reference reference(const Matrix& q, const Matrix& k, const Matrix& v, double decay) {
  const std::size_t n = q.rows;
  Reference r{BigMatrix(n, n), BigMatrix(n, v.cols), BigMatrix(k.cols, v.cols)};
  for (std::size_t i = 0; i < n; ++i)
    for (std::size_t j = 0; j <= i; ++j) {
      double dot = 0;
      for (std::size_t a = 0; a < q.cols; ++a) dot += double{q(i, a)} * k(j, a);
      r.weights(i, j) = dot * std::pow(decay, double(i - j));
      for (std::size_t c = 0; c < v.cols; ++c) r.output(i, c) += r.weights(i, j) * v(j, c);
    }
  for (std::size_t j = 0; j < n; ++j)
    for (std::size_t a = 0; a < k.cols; ++a)
      for (std::size_t c = 0; c < v.cols; ++c)
        r.state(a, c) += std::pow(decay, double(n - 1 - j)) * k(j, a) * v(j, c);
  return r;
}

RetentionOptions options(float decay, AttentionForm form) {
  RetentionOptions o;
  o.decay = decay;
  o.form = form;
  return o;
}

ErrorCode error_of(const Matrix& q, const Matrix& k, const Matrix& v, RetentionOptions o) {
  const auto r = attnlab::retention(q, k, v, o);
  REQUIRE_FALSE(r.ok());
  INFO(r.error().message);
  return r.error().code;
}

}  // namespace

TEST_CASE("retention: both forms within 1e-5 of float64, and equal to each other", "[retention]") {
  Worst output{tolerance}, weights{tolerance}, state{tolerance}, parallel{tolerance};
  std::uint32_t seed = 200;
  for (const float decay : {1.0f, 0.96875f, 0.9f, 0.5f, 1e-3f})
    for (const auto& [n, d_k, d_v] : std::vector<std::array<std::size_t, 3>>{
             {1, 1, 1}, {4, 3, 2}, {16, 8, 8}, {33, 5, 7}, {128, 32, 16}}) {
      const auto qkv = random_qkv(n, n, d_k, d_v, seed += 3);
      const Reference ref = reference(qkv.q, qkv.k, qkv.v, decay);
      RetentionResult forms[2];
      for (const AttentionForm form : {AttentionForm::parallel, AttentionForm::recurrent}) {
        INFO("decay " << decay << " n " << n << " form " << int(form));
        const auto r = ok(attnlab::retention(qkv.q, qkv.k, qkv.v, options(decay, form)));
        REQUIRE(r.weights.has_value());
        CHECK(r.decay == decay);
        output.check(relative_error(r.output, ref.output));
        weights.check(relative_error(*r.weights, ref.weights));
        state.check(relative_error(r.state, ref.state));
        forms[int(form)] = r;
      }
      parallel.check(relative_error(forms[1].output, forms[0].output));
      // Above the diagonal nothing: the future is never retained.
      for (std::size_t i = 0; i < n; ++i)
        for (std::size_t j = i + 1; j < n; ++j) CHECK((*forms[0].weights)(i, j) == 0.0f);
    }
  std::printf(
      "retention vs float64 (relative to max(1, max|ref|)): output %.3g, weights %.3g, state "
      "%.3g; parallel vs recurrent output %.3g\n",
      output.value, weights.value, state.value, parallel.value);
}

TEST_CASE("retention: the state keeps its size however long the sequence", "[retention]") {
  for (const std::size_t n : {2u, 64u, 512u}) {
    const auto qkv = random_qkv(n, n, 8, 4, 9);
    const auto r =
        ok(attnlab::retention(qkv.q, qkv.k, qkv.v, options(0.9f, AttentionForm::recurrent)));
    CHECK(r.state.rows == 8);
    CHECK(r.state.cols == 4);
    CHECK(r.output.rows == n);
  }
  // A decay that underflows γ^(i−j) to 0 far back leaves zeros, not NaN.
  const auto qkv = random_qkv(300, 300, 4, 4, 3);
  const auto r =
      ok(attnlab::retention(qkv.q, qkv.k, qkv.v, options(1e-3f, AttentionForm::parallel)));
  CHECK((*r.weights)(299, 0) == 0.0f);
  CHECK(attnlab::test::all_finite(r.output));
}

TEST_CASE("retention rejects every bad input with its code", "[retention]") {
  const auto qkv = random_qkv(4, 4, 3, 2, 5);
  const Matrix& q = qkv.q;
  const Matrix& k = qkv.k;
  const Matrix& v = qkv.v;
  const RetentionOptions fine = options(0.9f, AttentionForm::parallel);
  CHECK(error_of(Matrix(), k, v, fine) == ErrorCode::empty);
  CHECK(error_of(q, Matrix(4, 2), v, fine) == ErrorCode::shape_mismatch);
  CHECK(error_of(q, k, Matrix(3, 2), fine) == ErrorCode::shape_mismatch);
  CHECK(error_of(Matrix(3, 3), k, v, fine) == ErrorCode::shape_mismatch);  // one sequence
  CHECK(error_of(q, k, Matrix(4, 2, std::vector<float>(3)), fine) == ErrorCode::shape_mismatch);
  const std::size_t big = attnlab::limits::attention_tokens + 1;
  CHECK(error_of(Matrix(big, 3), Matrix(big, 3), Matrix(big, 2), fine) == ErrorCode::too_large);
  Matrix broken = q;
  broken(0, 0) = NAN;
  CHECK(error_of(broken, k, v, fine) == ErrorCode::non_finite);
  CHECK(error_of(q, k, v, RetentionOptions{}) == ErrorCode::invalid_argument);  // no decay
  for (const float bad : {0.0f, -0.5f, 1.0001f, 2.0f, NAN, INFINITY}) {
    const auto r = attnlab::retention(q, k, v, options(bad, AttentionForm::recurrent));
    REQUIRE_FALSE(r.ok());
    CHECK(r.error().code == ErrorCode::invalid_argument);
    CHECK(r.error().message.find("decay") != std::string::npos);
  }
}

TEST_CASE("retention: overflow past float32 is a non-finite error, never Infinity", "[retention]") {
  const Matrix big = Matrix::from_rows({{2e19f, 2e19f}, {2e19f, 2e19f}});
  const Matrix v = Matrix::from_rows({{1.0f}, {1.0f}});
  const Matrix ones = Matrix::from_rows({{1.0f, 1.0f}, {1.0f, 1.0f}});
  const Matrix huge_v = Matrix::from_rows({{3e38f}, {3e38f}});
  for (const AttentionForm form : {AttentionForm::parallel, AttentionForm::recurrent}) {
    const auto scores = attnlab::retention(big, big, v, options(1.0f, form));
    REQUIRE_FALSE(scores.ok());
    CHECK(scores.error().code == ErrorCode::non_finite);
    const auto sums = attnlab::retention(ones, ones, huge_v, options(1.0f, form));
    REQUIRE_FALSE(sums.ok());
    CHECK(sums.error().code == ErrorCode::non_finite);
    CHECK(sums.error().message.find("too large for float32") != std::string::npos);
  }
}

}  // namespace attnlab::test
