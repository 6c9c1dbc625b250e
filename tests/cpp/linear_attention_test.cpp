// linear_attention(): both forms against a float64 reference written here (llm.c style: the
// plain loops beside the kernel, shapes in comments, explicit tolerances), the causal parallel
// form equal to the recurrent one, the zero-normaliser rule, and every error.
#include "attnlab/linear_attention.hpp"

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
constexpr double tolerance = 1e-5;

double phi(double x, FeatureMap map) {
  return map == FeatureMap::relu ? std::max(x, 0.0) : (x > 0 ? x + 1 : std::exp(x));
}

struct Reference {
  BigMatrix kernel, weights, output;  // (n_q, n_k), (n_q, n_k), (n_q, d_v)
};

// The definition, quadratic and in float64: K_ij = φ(s·q_i)·φ(k_j) (0 for j > i when causal),
// W_ij = K_ij / Σ_j K_ij (a zero row stays zero), O = W·V.
Reference reference(const Matrix& q, const Matrix& k, const Matrix& v, FeatureMap map, bool causal,
                    double scale) {
  Reference r{BigMatrix(q.rows, k.rows), BigMatrix(q.rows, k.rows), BigMatrix(q.rows, v.cols)};
  for (std::size_t i = 0; i < q.rows; ++i) {
    double sum = 0;
    for (std::size_t j = 0; j < k.rows; ++j) {
      if (causal && j > i) continue;
      double dot = 0;
      for (std::size_t a = 0; a < q.cols; ++a) dot += phi(scale * q(i, a), map) * phi(k(j, a), map);
      r.kernel(i, j) = dot;
      sum += dot;
    }
    if (sum == 0) continue;
    for (std::size_t j = 0; j < k.rows; ++j) r.weights(i, j) = r.kernel(i, j) / sum;
    for (std::size_t c = 0; c < v.cols; ++c)
      for (std::size_t j = 0; j < k.rows; ++j) r.output(i, c) += r.weights(i, j) * v(j, c);
  }
  return r;
}

LinearAttentionOptions options(FeatureMap map, bool causal, AttentionForm form) {
  LinearAttentionOptions o;
  o.feature_map = map;
  o.causal = causal;
  o.form = form;
  return o;
}

ErrorCode error_of(const Matrix& q, const Matrix& k, const Matrix& v,
                   const LinearAttentionOptions& o = {}) {
  const auto r = attnlab::linear_attention(q, k, v, o);
  REQUIRE_FALSE(r.ok());
  INFO(r.error().message);
  return r.error().code;
}

}  // namespace

TEST_CASE("linear_attention: both maps, both forms, causal or not, within 1e-5 of float64",
          "[linear-attention]") {
  Worst output{tolerance}, weights{tolerance}, kernel{tolerance}, parallel{tolerance};
  std::uint32_t seed = 100;
  for (const FeatureMap map : {FeatureMap::elu, FeatureMap::relu})
    for (const bool causal : {false, true})
      for (const auto& [n_q, n_k, d_k, d_v] : std::vector<std::array<std::size_t, 4>>{
               {1, 1, 1, 1}, {5, 5, 3, 2}, {16, 16, 8, 8}, {7, 12, 4, 5}, {64, 64, 32, 16}}) {
        if (causal && n_q != n_k) continue;
        const auto qkv = random_qkv(n_q, n_k, d_k, d_v, seed += 3);
        const double scale = seed % 2 ? 1.0 : 0.5;
        const Reference ref = reference(qkv.q, qkv.k, qkv.v, map, causal, scale);
        LinearAttentionResult forms[2];
        for (const AttentionForm form : {AttentionForm::parallel, AttentionForm::recurrent}) {
          LinearAttentionOptions o = options(map, causal, form);
          o.scale = static_cast<float>(scale);
          const LinearAttentionResult r = ok(attnlab::linear_attention(qkv.q, qkv.k, qkv.v, o));
          INFO("map " << int(map) << " causal " << causal << " form " << int(form) << " n_q " << n_q
                      << " n_k " << n_k);
          REQUIRE(r.kernel.has_value());
          REQUIRE(r.weights.has_value());
          REQUIRE(r.output.rows == n_q);
          REQUIRE(r.output.cols == d_v);
          REQUIRE(r.kv_state.rows == d_k);
          REQUIRE(r.kv_state.cols == d_v);
          REQUIRE(r.key_sum.size() == d_k);
          REQUIRE(r.normalizer.size() == n_q);
          output.check(relative_error(r.output, ref.output));
          weights.check(relative_error(*r.weights, ref.weights));
          kernel.check(relative_error(*r.kernel, ref.kernel));
          forms[int(form)] = r;
        }
        // The parallel form equals the recurrent one, output and implied weights.
        parallel.check(relative_error(forms[1].output, forms[0].output));
        CHECK(*forms[0].weights == *forms[1].weights);
      }
  std::printf(
      "linear_attention vs float64 (relative to max(1, max|ref|)): output %.3g, weights %.3g, "
      "kernel %.3g; parallel vs recurrent output %.3g\n",
      output.value, weights.value, kernel.value, parallel.value);
}

TEST_CASE("linear_attention: the state φ(K)ᵀV, the key sum and the normaliser in float64",
          "[linear-attention]") {
  const auto qkv = random_qkv(9, 9, 4, 3, 7);  // Q (9, 4), K (9, 4), V (9, 3)
  for (const AttentionForm form : {AttentionForm::parallel, AttentionForm::recurrent}) {
    const auto r =
        ok(attnlab::linear_attention(qkv.q, qkv.k, qkv.v, options(FeatureMap::elu, true, form)));
    CHECK(r.scale == 1.0f);  // the default: φ of the queries as they are
    BigMatrix state(4, 3);   // Σ_j φ(k_j) v_jᵀ: (d_k, d_v)
    std::vector<double> key_sum(4, 0.0);
    for (std::size_t j = 0; j < 9; ++j)
      for (std::size_t a = 0; a < 4; ++a) {
        key_sum[a] += phi(qkv.k(j, a), FeatureMap::elu);
        for (std::size_t c = 0; c < 3; ++c)
          state(a, c) += phi(qkv.k(j, a), FeatureMap::elu) * qkv.v(j, c);
      }
    CHECK(relative_error(r.kv_state, state) <= tolerance);
    for (std::size_t a = 0; a < 4; ++a)
      CHECK(std::abs(r.key_sum[a] - key_sum[a]) <= tolerance * std::max(1.0, key_sum[a]));
    // Causal: query i's normaliser sums its kernel row over keys 0 … i.
    const Reference ref = reference(qkv.q, qkv.k, qkv.v, FeatureMap::elu, true, 1.0);
    for (std::size_t i = 0; i < 9; ++i) {
      double sum = 0;
      for (std::size_t j = 0; j <= i; ++j) sum += ref.kernel(i, j);
      CHECK(std::abs(r.normalizer[i] - sum) <= tolerance * std::max(1.0, sum));
      CHECK(std::abs(attnlab::test::row_sum(*r.weights, i) - 1.0) <= tolerance);
    }
  }
}

TEST_CASE("linear_attention: a zero normaliser gives a zero row, listed, never NaN",
          "[linear-attention]") {
  // relu: query 1 is all ≤ 0, so φ(q_1) = 0; query 2's features miss key 0's, and causal hides
  // the others. Q (3, 2), K (3, 2), V (3, 2).
  const Matrix q = Matrix::from_rows({{1, 1}, {-1, -2}, {0, 3}});
  const Matrix k = Matrix::from_rows({{2, 0}, {1, 1}, {1, 0}});
  const Matrix v = Matrix::from_rows({{1, 2}, {3, 4}, {5, 6}});
  for (const AttentionForm form : {AttentionForm::parallel, AttentionForm::recurrent}) {
    const auto r = ok(attnlab::linear_attention(q, k, v, options(FeatureMap::relu, false, form)));
    CHECK(r.zero_normalizer_rows == std::vector<std::size_t>{1});
    CHECK(r.normalizer[1] == 0.0f);
    CHECK(attnlab::test::all_finite(r.output));
    CHECK(attnlab::test::all_finite(*r.weights));
    CHECK((r.output(1, 0) == 0.0f && r.output(1, 1) == 0.0f));
    CHECK(attnlab::test::row_sum(*r.weights, 1) == 0.0);
    // Query 2 sees key 1 only through its second feature: o_2 = v_1 (weights 0, 1, 0).
    CHECK(r.output(2, 0) == Approx(3.0f));
    CHECK(r.output(2, 1) == Approx(4.0f));
  }
  const Matrix only_first = Matrix::from_rows({{2, 0}, {0, 1}, {0, 1}});
  const Matrix second_only = Matrix::from_rows({{0, 1}, {1, 0}, {0, 1}});
  for (const AttentionForm form : {AttentionForm::parallel, AttentionForm::recurrent}) {
    // Causal: query 0 = (0, 1) meets key 0 = (2, 0) alone, so its normaliser is 0.
    const auto r = ok(attnlab::linear_attention(second_only, only_first, v,
                                                options(FeatureMap::relu, true, form)));
    CHECK(r.zero_normalizer_rows == std::vector<std::size_t>{0});
    CHECK(attnlab::test::all_finite(r.output));
  }
  // elu + 1 is positive: no zero rows on ordinary inputs.
  const auto elu = ok(attnlab::linear_attention(q, k, v));
  CHECK(elu.zero_normalizer_rows.empty());
}

TEST_CASE("linear_attention: scale multiplies the queries before φ", "[linear-attention]") {
  const auto qkv = random_qkv(6, 6, 4, 2, 31);
  LinearAttentionOptions o;
  o.scale = 0.5f;
  const auto half = ok(attnlab::linear_attention(qkv.q, qkv.k, qkv.v, o));
  Matrix q = qkv.q;
  for (float& x : q.data) x *= 0.5f;
  const auto scaled = ok(attnlab::linear_attention(q, qkv.k, qkv.v));
  CHECK(half.scale == 0.5f);
  CHECK(attnlab::test::max_abs_diff(half.output, scaled.output) <= 1e-6);
  // Under relu the scale cancels in the weights: relu(s·x) = s·relu(x).
  o.feature_map = FeatureMap::relu;
  const auto relu_half = ok(attnlab::linear_attention(qkv.q, qkv.k, qkv.v, o));
  const auto relu = ok(attnlab::linear_attention(
      qkv.q, qkv.k, qkv.v, options(FeatureMap::relu, false, AttentionForm::parallel)));
  CHECK(attnlab::test::max_abs_diff(relu_half.output, relu.output) <= 1e-6);
}

TEST_CASE("linear_attention rejects every bad input with its code", "[linear-attention]") {
  const auto qkv = random_qkv(4, 4, 3, 2, 5);
  const Matrix& q = qkv.q;
  const Matrix& k = qkv.k;
  const Matrix& v = qkv.v;
  CHECK(error_of(Matrix(), k, v) == ErrorCode::empty);
  CHECK(error_of(q, Matrix(4, 2), v) == ErrorCode::shape_mismatch);  // widths of Q and K
  CHECK(error_of(q, k, Matrix(3, 2)) == ErrorCode::shape_mismatch);  // rows of K and V
  CHECK(error_of(q, k, Matrix(4, 2, std::vector<float>(3))) == ErrorCode::shape_mismatch);
  LinearAttentionOptions causal;
  causal.causal = true;
  CHECK(error_of(Matrix(3, 3), k, v, causal) == ErrorCode::shape_mismatch);  // n_q ≠ n_k
  CHECK(error_of(Matrix(attnlab::limits::attention_tokens + 1, 3), k, v) == ErrorCode::too_large);
  CHECK(error_of(q, Matrix(4, attnlab::limits::attention_features + 1), Matrix(4, 2)) ==
        ErrorCode::too_large);
  for (const float bad : {NAN, INFINITY}) {
    Matrix broken = v;
    broken(2, 1) = bad;
    CHECK(error_of(q, k, broken) == ErrorCode::non_finite);
  }
  for (const float bad : {0.0f, -1.0f, NAN, INFINITY}) {
    LinearAttentionOptions o;
    o.scale = bad;
    CHECK(error_of(q, k, v, o) == ErrorCode::invalid_argument);
  }
}

TEST_CASE("linear_attention: overflow past float32 is a non-finite error, never Infinity",
          "[linear-attention]") {
  const Matrix q = Matrix::from_rows({{1e20f, 1e20f}});
  const Matrix k = Matrix::from_rows({{1e20f, 1e20f}});
  const Matrix v = Matrix::from_rows({{1.0f}});
  for (const AttentionForm form : {AttentionForm::parallel, AttentionForm::recurrent}) {
    const auto r = attnlab::linear_attention(q, k, v, options(FeatureMap::elu, false, form));
    REQUIRE_FALSE(r.ok());
    CHECK(r.error().code == ErrorCode::non_finite);
    CHECK(r.error().message.find("too large for float32") != std::string::npos);
  }
  // The state overflows where the kernel does not: large values times large features.
  const Matrix big_v = Matrix::from_rows({{3e38f}, {3e38f}});
  const Matrix ones = Matrix::from_rows({{1.0f}, {1.0f}});
  for (const AttentionForm form : {AttentionForm::parallel, AttentionForm::recurrent}) {
    const auto r =
        attnlab::linear_attention(ones, ones, big_v, options(FeatureMap::elu, false, form));
    REQUIRE_FALSE(r.ok());
    CHECK(r.error().code == ErrorCode::non_finite);
  }
}

}  // namespace attnlab::test
