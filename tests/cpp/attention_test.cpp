// attention(): hand-worked examples, a float64 reference on random inputs, and properties.
#include "attnlab/attention.hpp"

#include <algorithm>
#include <catch2/catch.hpp>
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <limits>
#include <random>
#include <vector>

#include "reference_attention.hpp"
#include "test_support.hpp"

namespace attnlab::test {
namespace {

constexpr float minus_infinity = -std::numeric_limits<float>::infinity();

// The tiny worked example: Q (2x2), K (3x2), V (3x2).
const Matrix tiny_q = Matrix::from_rows({{1, 0}, {0, 1}});
const Matrix tiny_k = Matrix::from_rows({{1, 0}, {1, 1}, {0, 1}});
const Matrix tiny_v = Matrix::from_rows({{1, 0}, {0, 2}, {1, 1}});
// The scaled score of a dot product of 1 is a = 1/sqrt(2); e = e^a.
const double a = 1.0 / std::sqrt(2.0);
const double e = std::exp(a);

AttentionResult run(const Matrix& q, const Matrix& k, const Matrix& v,
                    const AttentionOptions& options = {}) {
  auto result = attnlab::attention(q, k, v, options);
  if (!result) FAIL(attnlab::to_string(result.error().code) << ": " << result.error().message);
  return std::move(result).value();
}

Matrix rows(std::vector<std::vector<double>> nested) {
  Matrix m(nested.size(), nested.front().size());
  for (std::size_t r = 0; r < m.rows; ++r)
    for (std::size_t c = 0; c < m.cols; ++c) m(r, c) = static_cast<float>(nested[r].at(c));
  return m;
}

double entropy(const Matrix& weights, std::size_t r) {
  double h = 0.0;
  for (std::size_t c = 0; c < weights.cols; ++c)
    if (weights(r, c) > 0.0f) h -= weights(r, c) * std::log(double(weights(r, c)));
  return h;
}

// 1 where a Bernoulli(keep) draw succeeds; row 0 always keeps key 0 so it has a visible key.
BoolMatrix random_mask(std::size_t n_q, std::size_t n_k, std::uint32_t seed, double keep) {
  std::mt19937 engine(seed);
  std::bernoulli_distribution draw(keep);
  BoolMatrix mask(n_q, n_k);
  for (auto& m : mask.data) m = draw(engine) ? 1 : 0;
  mask(0, 0) = 1;
  return mask;
}

}  // namespace

TEST_CASE("the tiny example matches the hand-worked values", "[attention]") {
  const AttentionResult r = run(tiny_q, tiny_k, tiny_v);

  CHECK(r.scores == rows({{1, 1, 0}, {0, 1, 1}}));
  CHECK(r.scale == Approx(a));
  CHECK(r.temperature == 1.0f);
  CHECK(r.factor == Approx(a));
  CHECK(max_abs_diff(r.scaled, rows({{a, a, 0}, {0, a, a}})) <= 1e-6);
  CHECK(r.logits == r.scaled);
  // Row 0: [e^a, e^a, 1] / (2e^a + 1) ≈ [0.401112, 0.401112, 0.197776]; row 1 mirrored.
  const Matrix weights = rows({{e / (2 * e + 1), e / (2 * e + 1), 1 / (2 * e + 1)},
                               {1 / (2 * e + 1), e / (2 * e + 1), e / (2 * e + 1)}});
  CHECK(max_abs_diff(r.weights(), weights) <= 1e-6);
  CHECK(r.weights()(0, 0) == Approx(0.401112).margin(1e-6));
  CHECK(r.weights()(0, 2) == Approx(0.197776).margin(1e-6));
  // Output = weights · V: row 0 ≈ [0.598888, 1.0], row 1 ≈ [0.598888, 1.203336].
  const Matrix output =
      rows({{(e + 1) / (2 * e + 1), 1.0}, {(e + 1) / (2 * e + 1), 3 * e / (2 * e + 1)}});
  CHECK(max_abs_diff(r.output, output) <= 1e-6);
  CHECK(r.output(0, 0) == Approx(0.598888).margin(1e-6));
  CHECK(r.output(1, 1) == Approx(1.203336).margin(1e-6));
  CHECK(r.fully_masked_rows.empty());
}

TEST_CASE("causal masking on the tiny example matches the hand-worked values", "[attention]") {
  AttentionOptions options;
  options.causal = true;
  const AttentionResult r = run(tiny_q, tiny_k, tiny_v, options);

  // Query 0 sees key 0 only; query 1 sees keys 0 and 1 with logits [0, a].
  CHECK(r.scaled == run(tiny_q, tiny_k, tiny_v).scaled);
  CHECK(r.logits(0, 1) == minus_infinity);
  CHECK(r.logits(0, 2) == minus_infinity);
  CHECK(r.logits(1, 2) == minus_infinity);
  CHECK(r.logits(1, 1) == Approx(a));
  const Matrix weights = rows({{1, 0, 0}, {1 / (1 + e), e / (1 + e), 0}});
  CHECK(max_abs_diff(r.weights(), weights) <= 1e-6);
  const Matrix output = rows({{1, 0}, {1 / (1 + e), 2 * e / (1 + e)}});
  CHECK(max_abs_diff(r.output, output) <= 1e-6);
  CHECK(r.fully_masked_rows.empty());
}

TEST_CASE("key padding on the tiny example matches the hand-worked values", "[attention]") {
  AttentionOptions options;
  options.key_padding = {false, false, true};
  const AttentionResult r = run(tiny_q, tiny_k, tiny_v, options);

  // Key 2 is padding: row 0 has logits [a, a], row 1 has [0, a].
  CHECK(r.logits(0, 2) == minus_infinity);
  CHECK(r.logits(1, 2) == minus_infinity);
  const Matrix weights = rows({{0.5, 0.5, 0}, {1 / (1 + e), e / (1 + e), 0}});
  CHECK(max_abs_diff(r.weights(), weights) <= 1e-6);
  const Matrix output = rows({{0.5, 1.0}, {1 / (1 + e), 2 * e / (1 + e)}});
  CHECK(max_abs_diff(r.output, output) <= 1e-6);
}

TEST_CASE("a boolean mask on the tiny example matches the hand-worked values", "[attention]") {
  AttentionOptions options;
  options.mask = BoolMatrix::from_rows({{1, 0, 1}, {0, 1, 0}});
  const AttentionResult r = run(tiny_q, tiny_k, tiny_v, options);

  // Row 0 sees keys 0 and 2 (logits [a, 0]); row 1 sees key 1 only.
  CHECK(r.logits(0, 1) == minus_infinity);
  CHECK(r.logits(1, 0) == minus_infinity);
  CHECK(r.logits(1, 2) == minus_infinity);
  const Matrix weights = rows({{e / (e + 1), 0, 1 / (e + 1)}, {0, 1, 0}});
  CHECK(max_abs_diff(r.weights(), weights) <= 1e-6);
  const Matrix output = rows({{1.0, 1 / (e + 1)}, {0, 2}});
  CHECK(max_abs_diff(r.output, output) <= 1e-6);
}

TEST_CASE("attention matches the float64 reference on random inputs", "[attention]") {
  const std::size_t n = GENERATE(1, 5, 64, 512);
  const std::size_t d = GENERATE(1, 2, 3, 7, 16, 64);
  CAPTURE(n, d);
  const auto seed = static_cast<std::uint32_t>(1000 * n + d);
  const Matrix q = random_matrix(n, d, seed);
  const Matrix k = random_matrix(n, d, seed + 1);
  const Matrix v = random_matrix(n, d, seed + 2);

  const AttentionResult r = run(q, k, v);
  const auto want = reference_attention(q, k, v);
  CHECK(max_abs_diff(r.weights(), want.weights) <= 1e-5);
  CHECK(max_abs_diff(r.output, want.output) <= 1e-5);
}

TEST_CASE("attention with options matches the float64 reference", "[attention]") {
  const std::size_t n_q = 48, n_k = 40, d_k = 16, d_v = 12;
  const auto [q, k, v] = attnlab::test::random_qkv(n_q, n_k, d_k, d_v, 71);

  AttentionOptions options;
  SECTION("causal") { options.causal = true; }
  SECTION("key padding") {
    options.key_padding.assign(n_k, false);
    for (std::size_t j = 3; j < n_k; j += 4) options.key_padding[j] = true;
  }
  SECTION("boolean mask") { options.mask = random_mask(n_q, n_k, 74, 0.3); }
  SECTION("explicit scale") { options.scale = 0.05f; }
  SECTION("temperature") { options.temperature = GENERATE(0.25f, 3.0f); }
  SECTION("everything at once") {
    options.causal = true;
    options.key_padding.assign(n_k, false);
    options.key_padding[0] = true;  // with causal, query 0 sees no key at all
    options.mask = random_mask(n_q, n_k, 75, 0.7);
    options.scale = 0.4f;
    options.temperature = 1.5f;
  }

  const AttentionResult r = run(q, k, v, options);
  const auto want = reference_attention(q, k, v, options);
  CHECK(max_abs_diff(r.weights(), want.weights) <= 1e-5);
  CHECK(max_abs_diff(r.output, want.output) <= 1e-5);
  CHECK(r.fully_masked_rows == want.fully_masked_rows);
}

TEST_CASE("each weight row is a probability distribution", "[attention]") {
  const bool causal = GENERATE(false, true);
  CAPTURE(causal);
  AttentionOptions options;
  options.causal = causal;
  const AttentionResult r =
      run(random_matrix(33, 8, 81), random_matrix(33, 8, 82), random_matrix(33, 5, 83), options);

  for (std::size_t i = 0; i < r.weights().rows; ++i) {
    CAPTURE(i);
    CHECK(*std::min_element(r.weights().row(i), r.weights().row(i) + r.weights().cols) >= 0.0f);
    CHECK(row_sum(r.weights(), i) == Approx(1.0).margin(1e-6));
  }
}

TEST_CASE("each output coordinate lies within the range of V's column", "[attention]") {
  const Matrix v = random_matrix(20, 6, 93, 3.0f);
  const AttentionResult r = run(random_matrix(17, 4, 91), random_matrix(20, 4, 92), v);

  for (std::size_t c = 0; c < v.cols; ++c) {
    float lo = v(0, c), hi = v(0, c);
    for (std::size_t j = 0; j < v.rows; ++j) lo = std::min(lo, v(j, c)), hi = std::max(hi, v(j, c));
    for (std::size_t i = 0; i < r.output.rows; ++i) {
      CAPTURE(i, c);
      CHECK(r.output(i, c) >= lo - 1e-5f);
      CHECK(r.output(i, c) <= hi + 1e-5f);
    }
  }
}

TEST_CASE("shifting one query's scores by a constant leaves its weights unchanged", "[attention]") {
  const std::size_t n_q = 6, n_k = 9, d = 5, shifted_row = 2;
  const float shift = GENERATE(-3.0f, 2.5f, 7.0f);
  CAPTURE(shift);
  const Matrix q = random_matrix(n_q, d, 101);
  const Matrix k = random_matrix(n_k, d, 102);
  const Matrix v = random_matrix(n_k, 3, 103);
  // Q' = [Q | c·e_i] and K' = [K | 1]: row i of Q'·K'ᵀ is row i of Q·Kᵀ plus c.
  Matrix q_shifted(n_q, d + 1), k_shifted(n_k, d + 1, 1.0f);
  for (std::size_t i = 0; i < n_q; ++i)
    for (std::size_t c = 0; c < d; ++c) q_shifted(i, c) = q(i, c);
  for (std::size_t j = 0; j < n_k; ++j)
    for (std::size_t c = 0; c < d; ++c) k_shifted(j, c) = k(j, c);
  q_shifted(shifted_row, d) = shift;

  AttentionOptions options;
  options.scale = 1.0f;  // the same scale for both widths
  const AttentionResult plain = run(q, k, v, options);
  const AttentionResult shifted = run(q_shifted, k_shifted, v, options);

  for (std::size_t j = 0; j < n_k; ++j)
    CHECK(shifted.scores(shifted_row, j) - plain.scores(shifted_row, j) == Approx(shift));
  CHECK(max_abs_diff(shifted.weights(), plain.weights()) <= 1e-6);
  CHECK(max_abs_diff(shifted.output, plain.output) <= 1e-5);
}

TEST_CASE("with causal masking the first output row is V's first row", "[attention]") {
  const Matrix v = random_matrix(12, 7, 113);
  AttentionOptions options;
  options.causal = true;
  const AttentionResult r = run(random_matrix(12, 4, 111), random_matrix(12, 4, 112), v, options);

  CHECK(r.weights()(0, 0) == 1.0f);
  for (std::size_t c = 0; c < v.cols; ++c) CHECK(r.output(0, c) == Approx(v(0, c)).margin(1e-6));
}

TEST_CASE("logits up to 1e30 after scaling stay finite", "[attention]") {
  const Matrix q = random_matrix(8, 4, 121);
  const Matrix k = random_matrix(10, 4, 122);
  const Matrix v = random_matrix(10, 3, 123);
  AttentionOptions options;
  options.scale = 1e30f;
  const AttentionResult r = run(q, k, v, options);

  float largest = 0.0f;
  for (float x : r.scaled.data) largest = std::max(largest, std::abs(x));
  CHECK(largest > 1e29f);
  CHECK(attnlab::test::all_finite(r.weights()));
  CHECK(attnlab::test::all_finite(r.output));
  for (std::size_t i = 0; i < r.weights().rows; ++i) {
    CAPTURE(i);
    CHECK(row_sum(r.weights(), i) == Approx(1.0).margin(1e-6));
    // Such logits make the softmax a hard max: all weight on the best key.
    const auto best = std::max_element(r.scores.row(i), r.scores.row(i) + r.scores.cols);
    CHECK(r.weights()(i, static_cast<std::size_t>(best - r.scores.row(i))) == Approx(1.0));
  }
}

TEST_CASE("a larger temperature gives weights of higher entropy", "[attention]") {
  const Matrix q = random_matrix(6, 4, 131);
  const Matrix k = random_matrix(9, 4, 132);
  const Matrix v = random_matrix(9, 2, 133);
  const std::vector<float> temperatures{0.25f, 0.5f, 1.0f, 2.0f, 8.0f};
  std::vector<AttentionResult> results;
  for (float t : temperatures) {
    AttentionOptions options;
    options.temperature = t;
    results.push_back(run(q, k, v, options));
  }
  CHECK(results[2].factor == Approx(0.5f));  // 1/sqrt(4) at temperature 1
  for (std::size_t t = 0; t < temperatures.size(); ++t) {
    CAPTURE(temperatures[t]);
    CHECK(results[t].scale == 0.5f);  // the scale excludes the temperature
    CHECK(results[t].temperature == temperatures[t]);
    CHECK(results[t].factor == Approx(0.5 / temperatures[t]).epsilon(1e-6));
    // The factor is what the scores were multiplied by.
    for (std::size_t i = 0; i < results[t].scores.data.size(); ++i)
      CHECK(results[t].scaled.data[i] ==
            Approx(results[t].scores.data[i] * 0.5 / temperatures[t]).epsilon(1e-5).margin(1e-6));
  }
  for (std::size_t t = 1; t < temperatures.size(); ++t) {
    for (std::size_t i = 0; i < q.rows; ++i) {
      CAPTURE(temperatures[t], i);
      CHECK(entropy(results[t].weights(), i) > entropy(results[t - 1].weights(), i));
    }
  }
  // The limit of a large temperature is the uniform distribution, entropy log(n_k).
  for (std::size_t i = 0; i < q.rows; ++i)
    CHECK(entropy(results.back().weights(), i) < std::log(9.0));
}

TEST_CASE("fully masked rows get zero weights and outputs and are listed", "[attention]") {
  const Matrix q = random_matrix(4, 3, 141);
  const Matrix k = random_matrix(5, 3, 142);
  const Matrix v = random_matrix(5, 2, 143, 5.0f);
  AttentionOptions options;
  std::vector<std::size_t> masked;
  SECTION("a mask row of zeros") {
    BoolMatrix mask(4, 5, 1);
    for (std::size_t j = 0; j < 5; ++j) mask(1, j) = 0, mask(3, j) = 0;
    options.mask = mask;
    masked = {1, 3};
  }
  SECTION("causal with the first key as padding") {
    options.causal = true;
    options.key_padding = {true, false, false, false, false};
    masked = {0};
  }
  SECTION("every key is padding") {
    options.key_padding.assign(5, true);
    masked = {0, 1, 2, 3};
  }

  const AttentionResult r = run(q, k, v, options);
  CHECK(r.fully_masked_rows == masked);
  for (std::size_t i = 0; i < q.rows; ++i) {
    CAPTURE(i);
    const bool is_masked = std::find(masked.begin(), masked.end(), i) != masked.end();
    if (is_masked) {
      CHECK(row_sum(r.weights(), i) == 0.0);
      CHECK(r.output(i, 0) == 0.0f);
      CHECK(r.output(i, 1) == 0.0f);
      CHECK(r.softmax.row_max[i] == minus_infinity);
      CHECK(r.softmax.row_sum[i] == 0.0f);
    } else {
      CHECK(row_sum(r.weights(), i) == Approx(1.0));
    }
  }
}

TEST_CASE("cross-attention allows n_q != n_k and d_v != d_k", "[attention]") {
  const std::size_t n_q = 3, n_k = 7, d_k = 4, d_v = 9;
  const auto [q, k, v] = attnlab::test::random_qkv(n_q, n_k, d_k, d_v, 151);
  AttentionOptions options;
  options.causal = GENERATE(false, true);  // top-left aligned: query i sees keys 0..i
  CAPTURE(options.causal);
  const AttentionResult r = run(q, k, v, options);

  for (const Matrix* m : {&r.scores, &r.scaled, &r.logits, &r.weights(), &r.softmax.exponentials}) {
    CHECK(m->rows == n_q);
    CHECK(m->cols == n_k);
  }
  CHECK(r.output.rows == n_q);
  CHECK(r.output.cols == d_v);
  const auto want = reference_attention(q, k, v, options);
  CHECK(max_abs_diff(r.weights(), want.weights) <= 1e-5);
  CHECK(max_abs_diff(r.output, want.output) <= 1e-5);
  if (options.causal) CHECK(r.logits(0, 1) == minus_infinity);
}

TEST_CASE("an explicit scale is reported as given, the temperature apart", "[attention]") {
  AttentionOptions options;
  options.scale = 0.4f;
  options.temperature = 2.5f;
  const AttentionResult r = run(tiny_q, tiny_k, tiny_v, options);
  CHECK(r.scale == 0.4f);
  CHECK(r.temperature == 2.5f);
  CHECK(r.factor == Approx(0.16).epsilon(1e-6));
  // scores [[1, 1, 0], [0, 1, 1]] times 0.4 / 2.5
  CHECK(max_abs_diff(r.scaled, rows({{0.16f, 0.16f, 0}, {0, 0.16f, 0.16f}})) <= 1e-6);
}

}  // namespace attnlab::test
