// The long linear-attention and retention kernels (long_linear.hpp) against a float64 recurrence
// written here, head by head, and against the small entries (linear_attention(), retention()),
// themselves checked against float64 in linear_attention_test.cpp and retention_test.cpp.
#include "attnlab/long_linear.hpp"

#include <catch2/catch.hpp>
#include <cmath>

#include "attnlab/limits.hpp"
#include "attnlab/retention.hpp"
#include "test_support.hpp"

namespace attnlab::test {
namespace {

using BigMatrix = BasicMatrix<double>;

// The recurrent form in double, one (sequence, head) at a time: S_t = γ·S_{t−1} + φ(k_t)v_tᵀ,
// z_t = z_{t−1} + φ(k_t); linear attention reads φ(q_t)ᵀS / φ(q_t)ᵀz (non-causal: after the last
// key), retention q_tᵀS. φ written out here: elu(x) + 1 or max(x, 0), in double.
struct Case {
  bool retention = false;
  FeatureMap map = FeatureMap::elu;
  bool causal = true;
  double scale = 1.0, decay = 1.0;
  int heads = 1, kv_heads = 0;
  std::size_t batch = 1;
};

double phi(double x, const Case& c) {
  if (c.retention) return x;
  return c.map == FeatureMap::relu ? std::max(x, 0.0) : x > 0 ? x + 1 : std::exp(x);
}

BigMatrix reference(const Matrix& q, const Matrix& k, const Matrix& v, const Case& c) {
  const auto heads = static_cast<std::size_t>(c.heads);
  const std::size_t kv = c.kv_heads ? static_cast<std::size_t>(c.kv_heads) : heads;
  const std::size_t d = q.cols / heads, d_v = v.cols / kv;
  const std::size_t n_q = q.rows / c.batch, n_k = k.rows / c.batch;
  BigMatrix out(q.rows, heads * d_v);
  for (std::size_t s = 0; s < c.batch; ++s)
    for (std::size_t h = 0; h < heads; ++h) {
      const std::size_t g = h / (heads / kv);
      BigMatrix state(d, d_v);
      std::vector<double> z(d, 0.0);
      const auto read = [&](std::size_t i) {
        std::vector<double> fq(d);
        double den = 0;
        for (std::size_t a = 0; a < d; ++a) {
          fq[a] = phi(c.scale * q(s * n_q + i, h * d + a), c);
          den += fq[a] * z[a];
        }
        for (std::size_t col = 0; col < d_v; ++col) {
          double num = 0;
          for (std::size_t a = 0; a < d; ++a) num += fq[a] * state(a, col);
          out(s * n_q + i, h * d_v + col) = c.retention ? num : den == 0 ? 0 : num / den;
        }
      };
      for (std::size_t t = 0; t < n_k; ++t) {
        for (std::size_t a = 0; a < d; ++a) {
          const double f = phi(k(s * n_k + t, g * d + a), c);
          z[a] += f;
          for (std::size_t col = 0; col < d_v; ++col)
            state(a, col) =
                state(a, col) * (c.retention ? c.decay : 1.0) + f * v(s * n_k + t, g * d_v + col);
        }
        if (c.causal) read(t);
      }
      if (!c.causal)
        for (std::size_t i = 0; i < n_q; ++i) read(i);
    }
  return out;
}

Result<LongLinearResult> run(const Matrix& q, const Matrix& k, const Matrix& v, const Case& c,
                             std::size_t chunk, std::size_t threads) {
  if (c.retention) {
    LongRetentionOptions o;
    o.decay = static_cast<float>(c.decay);
    o.heads = c.heads, o.kv_heads = c.kv_heads, o.batch = c.batch;
    o.chunk = chunk, o.threads = threads;
    return long_retention(q, k, v, o);
  }
  LongLinearOptions o;
  o.feature_map = c.map, o.causal = c.causal, o.scale = static_cast<float>(c.scale);
  o.heads = c.heads, o.kv_heads = c.kv_heads, o.batch = c.batch;
  o.chunk = chunk, o.threads = threads;
  return long_linear_attention(q, k, v, o);
}

// Columns [first, first + count) of m.
Matrix columns(const Matrix& m, std::size_t first, std::size_t count) {
  Matrix out(m.rows, count);
  for (std::size_t r = 0; r < m.rows; ++r)
    for (std::size_t c = 0; c < count; ++c) out(r, c) = m(r, first + c);
  return out;
}

TEST_CASE("long linear attention and retention within 1e-5 of float64", "[long-linear]") {
  double worst = 0;
  int runs = 0;
  std::uint32_t seed = 100;
  for (std::size_t n : {1u, 5u, 64u, 100u, 131u})
    for (std::size_t chunk : {1u, 7u, 64u})
      for (int family = 0; family < 4; ++family) {  // elu, relu, retention γ < 1, γ = 1
        Case c;
        c.retention = family >= 2;
        c.map = family == 1 ? FeatureMap::relu : FeatureMap::elu;
        c.decay = family == 2 ? 0.9 : 1.0;
        c.causal = c.retention || seed % 2 == 0;
        c.scale = !c.retention && seed % 3 == 0 ? 0.5 : 1.0;  // retention takes no scale
        c.heads = seed % 4 == 0 ? 1 : 4;
        c.kv_heads = c.heads == 4 && seed % 3 == 1 ? 2 : 0;
        c.batch = n > 1 && seed % 5 == 0 ? 2 : 1;
        const std::size_t rows = n * c.batch, kv = c.kv_heads ? 2 : c.heads;
        // Non-causal: n_k differs from n_q.
        const std::size_t key_rows = c.causal ? rows : (n + 3) * c.batch;
        const float spread = c.retention ? 0.3f : 1.0f;  // retention's sums grow with n
        const Matrix q = random_matrix(rows, 8 * c.heads, seed, spread);
        const Matrix k = random_matrix(key_rows, 8 * kv, seed + 1, spread);
        const Matrix v = random_matrix(key_rows, 5 * kv, seed + 2);
        ++seed;
        const BigMatrix ref = reference(q, k, v, c);
        for (std::size_t threads : {1u, 2u}) {
          const LongLinearResult r = ok(run(q, k, v, c, chunk, threads));
          const double e = relative_error(r.output, ref);
          INFO("n " << n << " chunk " << chunk << " family " << family << " causal " << c.causal
                    << " heads " << c.heads << " kvHeads " << c.kv_heads << " batch " << c.batch
                    << " threads " << threads);
          CHECK(e < 1e-5);
          if (c.map == FeatureMap::elu) CHECK(r.zero_normalizer_rows.empty());  // elu > 0
          worst = std::max(worst, e);
          ++runs;
        }
      }
  CHECK(runs == 5 * 3 * 4 * 2);
  WARN("long linear kernels: worst relative error against float64 " << worst);
}

TEST_CASE("long kernels equal the small entries head by head", "[long-linear]") {
  const Matrix q = random_matrix(200, 32, 7), k = random_matrix(200, 32, 8),
               v = random_matrix(200, 16, 9);
  LongLinearOptions o;
  o.heads = 2, o.causal = true, o.threads = 2;
  const Matrix long_out = ok(long_linear_attention(q, k, v, o)).output;
  LongRetentionOptions ro;
  ro.heads = 2, ro.decay = 0.95f, ro.threads = 2;
  const Matrix long_ret = ok(long_retention(q, k, v, ro)).output;
  for (std::size_t h = 0; h < 2; ++h) {
    LinearAttentionOptions small;
    small.causal = true;
    const Matrix qh = columns(q, 16 * h, 16), kh = columns(k, 16 * h, 16),
                 vh = columns(v, 8 * h, 8);
    CHECK(relative_error(columns(long_out, 8 * h, 8),
                         ok(linear_attention(qh, kh, vh, small)).output) < 1e-5);
    RetentionOptions rs;
    rs.decay = 0.95f;
    CHECK(relative_error(columns(long_ret, 8 * h, 8), ok(retention(qh, kh, vh, rs)).output) < 1e-5);
  }
}

TEST_CASE("long kernels: the same bits on 1 and 2 threads at n = 4,096", "[long-linear]") {
  const Matrix q = random_matrix(4096, 64, 1), k = random_matrix(4096, 64, 2),
               v = random_matrix(4096, 64, 3);
  for (bool causal : {false, true}) {
    LongLinearOptions o;
    o.heads = 4, o.causal = causal, o.threads = 1;
    const Matrix one = ok(long_linear_attention(q, k, v, o)).output;
    o.threads = 2;
    CHECK(max_abs_diff(one, ok(long_linear_attention(q, k, v, o)).output) == 0.0);
  }
}

TEST_CASE("long linear attention: a zero normaliser gives zeros, listed", "[long-linear]") {
  Matrix q = random_matrix(10, 4, 1);
  for (float& x : q.data) x = -std::abs(x);  // relu(q) = 0: no weight anywhere
  q(3, 0) = 1.0f;
  const Matrix k = random_matrix(10, 4, 2), v = random_matrix(10, 3, 3);
  for (bool causal : {false, true}) {
    LongLinearOptions o;
    o.feature_map = FeatureMap::relu, o.causal = causal, o.chunk = 4;
    const LongLinearResult r = ok(long_linear_attention(q, k, v, o));
    // Row 3 sees a key with a positive first feature unless causal hides every one of them.
    CHECK(r.zero_normalizer_rows.size() >= 9);
    for (std::size_t i : r.zero_normalizer_rows)
      for (std::size_t c = 0; c < 3; ++c) CHECK(r.output(i, c) == 0.0f);
    CHECK(all_finite(r.output));
  }
}

TEST_CASE("long linear kernels reject bad input with its code", "[long-linear]") {
  const Matrix q = random_matrix(8, 4, 1), k = random_matrix(8, 4, 2), v = random_matrix(8, 4, 3);
  // The code of a call that must fail (a call that succeeds fails the check).
  const auto code = [](auto result) {
    REQUIRE_FALSE(result);
    return result.error().code;
  };
  LongLinearOptions o;
  o.feature_map = FeatureMap::favor;
  CHECK(code(long_linear_attention(q, k, v, o)) == ErrorCode::invalid_argument);
  o = {};
  o.chunk = limits::long_chunk + 1;
  CHECK(code(long_linear_attention(q, k, v, o)) == ErrorCode::too_large);
  o = {};
  o.scale = -1.0f;
  CHECK(code(long_linear_attention(q, k, v, o)) == ErrorCode::invalid_argument);
  o = {};
  o.heads = 3;
  CHECK(code(long_linear_attention(q, k, v, o)) == ErrorCode::invalid_argument);
  o = {};
  o.causal = true;
  CHECK(code(long_linear_attention(q, random_matrix(9, 4, 2), random_matrix(9, 4, 3), o)) ==
        ErrorCode::shape_mismatch);
  Matrix bad = q;
  bad(2, 1) = std::nanf("");
  CHECK(code(long_linear_attention(bad, k, v, {})) == ErrorCode::non_finite);
  LongRetentionOptions r;
  CHECK(code(long_retention(q, k, v, r)) == ErrorCode::invalid_argument);  // decay missing
  r.decay = 1.5f;
  CHECK(code(long_retention(q, k, v, r)) == ErrorCode::invalid_argument);
  r.decay = 1.0f;
  Matrix huge = q;
  for (float& x : huge.data) x = 1e30f;
  CHECK(code(long_retention(huge, huge, huge, r)) == ErrorCode::non_finite);
  CHECK(code(long_retention(Matrix(0, 4), Matrix(0, 4), Matrix(0, 4), r)) == ErrorCode::empty);
}

}  // namespace
}  // namespace attnlab::test
