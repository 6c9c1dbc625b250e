// Small helpers shared by the test files: seeded random matrices, error measures and
// readable printing of matrices in Catch2 failure messages. A test file written inside
// namespace attnlab::test sees these and the core's names without a list of using-declarations.
#pragma once

#include <algorithm>
#include <catch2/catch.hpp>
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <limits>
#include <random>
#include <sstream>
#include <string>

#include "attnlab/matrix.hpp"
#include "attnlab/trace.hpp"

namespace attnlab::test {

// A result's value; the test fails with the error's code and message when there is none.
template <class T>
T ok(Result<T> result) {
  if (!result) FAIL(to_string(result.error().code) << ": " << result.error().message);
  return std::move(result).value();
}

// rows x cols entries drawn from N(0, stddev²) by std::mt19937 seeded with `seed`.
inline Matrix random_matrix(std::size_t rows, std::size_t cols, std::uint32_t seed,
                            float stddev = 1.0f) {
  std::mt19937 engine(seed);
  std::normal_distribution<float> normal(0.0f, stddev);
  Matrix m(rows, cols);
  for (float& x : m.data) x = normal(engine);
  return m;
}

// Q (n_q, d_k), K (n_k, d_k), V (n_k, d_v), random from seeds seed, seed + 1, seed + 2.
inline DirectQKV random_qkv(std::size_t n_q, std::size_t n_k, std::size_t d_k, std::size_t d_v,
                            std::uint32_t seed) {
  return DirectQKV{random_matrix(n_q, d_k, seed), random_matrix(n_k, d_k, seed + 1),
                   random_matrix(n_k, d_v, seed + 2)};
}

// Tokens with projections, all random: X (n, d_model), W_Q and W_K (d_model, qk_width),
// W_V (d_model, v_width); the weights at half the spread so scores stay moderate.
inline TraceInput random_tokens(std::size_t n, std::size_t d_model, std::size_t qk_width,
                                std::size_t v_width, std::uint32_t seed) {
  TraceInput input;
  input.source =
      Projections{random_matrix(n, d_model, seed), random_matrix(d_model, qk_width, seed + 1, 0.5f),
                  random_matrix(d_model, qk_width, seed + 2, 0.5f),
                  random_matrix(d_model, v_width, seed + 3, 0.5f)};
  return input;
}

// max |a - b| over all entries; +inf when the shapes differ or an entry is NaN on one side
// only, so a tolerance check on the result always fails in those cases.
template <class A, class B>
double max_abs_diff(const BasicMatrix<A>& a, const BasicMatrix<B>& b) {
  constexpr double infinity = std::numeric_limits<double>::infinity();
  if (a.rows != b.rows || a.cols != b.cols || a.data.size() != b.data.size()) return infinity;
  double worst = 0.0;
  for (std::size_t i = 0; i < a.data.size(); ++i) {
    const double x = static_cast<double>(a.data[i]);
    const double y = static_cast<double>(b.data[i]);
    if (x == y) continue;  // also equal infinities
    const double diff = std::abs(x - y);
    if (std::isnan(diff)) return infinity;
    worst = std::max(worst, diff);
  }
  return worst;
}

// The largest |entry|.
template <class T>
double max_abs(const BasicMatrix<T>& m) {
  double out = 0;
  for (const T& x : m.data) out = std::max(out, std::abs(double(x)));
  return out;
}

// A float32 result against its float64 reference, relative to the reference's size:
// max |a − b| / max(1, max |b|).
template <class A, class B>
double relative_error(const BasicMatrix<A>& a, const BasicMatrix<B>& b) {
  return max_abs_diff(a, b) / std::max(1.0, max_abs(b));
}

// The worst of the errors a test meets, for its summary line; each is also checked against the
// tolerance where it is met (the INFO in scope names the case).
struct Worst {
  double tolerance;
  double value = 0;
  void check(double error) {
    CHECK(error <= tolerance);
    value = std::max(value, error);
  }
};

template <class T>
bool all_finite(const BasicMatrix<T>& m) {
  for (const T& x : m.data)
    if (!std::isfinite(x)) return false;
  return true;
}

template <class T>
double row_sum(const BasicMatrix<T>& m, std::size_t r) {
  double sum = 0.0;
  for (std::size_t c = 0; c < m.cols; ++c) sum += static_cast<double>(m(r, c));
  return sum;
}

}  // namespace attnlab::test

// Prints "2x3 [[a, b, c], [d, e, f]]" (up to 8x8 entries) when an assertion on a matrix fails.
namespace Catch {
template <class T>
struct StringMaker<attnlab::BasicMatrix<T>> {
  static std::string convert(const attnlab::BasicMatrix<T>& m) {
    constexpr std::size_t shown = 8;
    std::ostringstream out;
    out << attnlab::shape_string(m) << " [";
    for (std::size_t r = 0; r < std::min(m.rows, shown); ++r) {
      out << (r ? ", [" : "[");
      for (std::size_t c = 0; c < std::min(m.cols, shown); ++c) out << (c ? ", " : "") << +m(r, c);
      out << (m.cols > shown ? ", ...]" : "]");
    }
    out << (m.rows > shown ? ", ...]" : "]");
    return out.str();
  }
};
}  // namespace Catch
