// libFuzzer target for the long-sequence entry points: the fuzz input is decoded into Q, K, V
// and FlashOptions (and a window of rows and columns for sampled_weights). Properties:
//  - check_flash_attention refuses exactly what flash_attention and naive_attention refuse
//    (the same code); past the check, the kernels refuse only an overflow ('non-finite'), and
//    only where float64 partial sums pass FLT_MAX / 16;
//  - an output is finite, within its values' range, and within a float32 tolerance of a float64
//    reference, so flash and naive agree within the sum of their tolerances;
//  - sampled_weights gives check_flash_attention's error, 'invalid-argument' for a bad batch,
//    head or index, or weights that are finite, 0 where masked and near the reference.
// The layout (make_seeds.py writes seeds in it): flags, heads + 1, [batch], n_q, n_k (two
// bytes, summed, with flag 16 and not 32), d (509 + byte % 5 with flag 32), d_v, [skew],
// [scale], [head + 1, row count, rows…, column count, columns…], then Q, K and V as raw
// float32 bytes.
#include <algorithm>
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <limits>
#include <optional>
#include <vector>

#include "attnlab/flash.hpp"
#include "fuzz_reader.hpp"

namespace {

using attnlab::ErrorCode;
using attnlab::FlashOptions;
using attnlab::Matrix;

constexpr double unit = 0x1p-24;        // float32's unit roundoff
constexpr double subnormal = 0x1p-149;  // what one float32 operation may lose to underflow
constexpr double tiny = 1e-37;          // below float32's normal range
constexpr double overflow_limit = std::numeric_limits<float>::max() / 16.0;

namespace flag {
constexpr std::uint8_t causal = 1, scale = 2, two_threads = 4, batch = 8, long_keys = 16,
                       wide_head = 32, skew = 64, sampled = 128;
}

// A failed property names itself before libFuzzer saves the input.
[[noreturn]] void fail(const char* property, int line) {
  std::fprintf(stderr, "long_fuzzer.cpp:%d: %s does not hold\n", line, property);
  std::abort();
}
#define REQUIRE(property) ((property) ? void() : fail(#property, __LINE__))

// One (sequence, head) of a valid request, as the kernels split it.
struct Head {
  const Matrix *q, *k, *v;
  std::size_t q0, k0;  // the sequence's first rows in Q and in K, V
  std::size_t c0, v0;  // the head's first columns in Q, K and in V
  std::size_t n_k, d;
  double scale;
  bool causal;

  std::size_t keys(std::size_t i) const { return causal ? std::min(i + 1, n_k) : n_k; }
};

// Query i's weights in float64 and their float32 tolerances. Each logit is within E (its dot
// product's rounding and scaling, underflow included), so each weight is within a factor
// e^(±2E), plus the rounding of the sum and the division; worked in logs.
struct RowReference {
  std::vector<double> weights, tolerance;
  double bound;  // the largest float64 partial sum: Σ|q·k|·max(1, scale), |q|·scale
};

RowReference row_reference(const Head& h, std::size_t i) {
  const std::size_t keys = h.keys(i);
  std::vector<double> logits(keys);
  double magnitude = 0, k_sum = 0, q_max = 0;
  for (std::size_t l = 0; l < h.d; ++l)
    q_max = std::max(q_max, std::fabs(double{(*h.q)(h.q0 + i, h.c0 + l)}));
  for (std::size_t j = 0; j < keys; ++j) {
    double dot = 0, abs = 0, k_abs = 0;
    for (std::size_t l = 0; l < h.d; ++l) {
      const double x = (*h.q)(h.q0 + i, h.c0 + l), y = (*h.k)(h.k0 + j, h.c0 + l);
      dot += x * y;
      abs += std::fabs(x * y);
      k_abs += std::fabs(y);
    }
    logits[j] = dot * h.scale;
    magnitude = std::max(magnitude, abs);
    k_sum = std::max(k_sum, k_abs);
  }
  const double error = 2 * (h.d + 5) * unit * magnitude * h.scale +
                       subnormal * (k_sum + h.d + 2) * std::max(1.0, h.scale) + tiny;
  const double max = *std::max_element(logits.begin(), logits.end());
  double sum = 0;
  for (double x : logits) sum += std::exp(x - max);
  RowReference r{{}, {}, std::max(magnitude * std::max(1.0, h.scale), q_max * h.scale)};
  for (double x : logits) {
    const double gap = max - x, log_weight = -gap - std::log(sum);
    const double extra = 2 * error + unit * gap + 2 * (keys + 10) * unit;
    r.weights.push_back(std::exp(log_weight));
    r.tolerance.push_back(std::min(1.0, std::exp(log_weight + extra) - std::exp(log_weight)) +
                          tiny);
  }
  return r;
}

// The (sequence, head) pairs of a request that check_flash_attention accepted.
std::vector<Head> heads_of(const Matrix& q, const Matrix& k, const Matrix& v,
                           const FlashOptions& o) {
  const auto heads = static_cast<std::size_t>(o.heads);
  const std::size_t d = q.cols / heads;
  const double scale = o.scale.value_or(1.0f / std::sqrt(static_cast<float>(d)));
  std::vector<Head> list;
  for (std::size_t b = 0; b < o.batch; ++b)
    for (std::size_t h = 0; h < heads; ++h)
      list.push_back(Head{&q, &k, &v, b * q.rows / o.batch, b * k.rows / o.batch, h * d,
                          h * (v.cols / heads), k.rows / o.batch, d, scale, o.causal});
  return list;
}

// flash_attention and naive_attention on a request the check accepted: each refuses only an
// overflow the float64 bound allows, or returns outputs that are finite, in their values'
// range and near the reference.
void check_kernels(const Matrix& q, const Matrix& k, const Matrix& v, const FlashOptions& o) {
  const auto flash = attnlab::flash_attention(q, k, v, o);
  const auto naive = attnlab::naive_attention(q, k, v, o);
  for (const auto* result : {&flash, &naive})
    if (*result)
      REQUIRE(result->value().output.rows == q.rows && result->value().output.cols == v.cols &&
              result->value().fully_masked_rows.empty());
  const std::size_t n_q = q.rows / o.batch, d_v = v.cols / static_cast<std::size_t>(o.heads);
  double bound = 0;
  for (const Head& h : heads_of(q, k, v, o))
    for (std::size_t i = 0; i < n_q; ++i) {
      const RowReference r = row_reference(h, i);
      bound = std::max(bound, r.bound);
      for (std::size_t c = 0; c < d_v; ++c) {
        // The flash kernel's accumulator holds Σ e^(s − m)·v before it divides: up to Σ|v|.
        double want = 0, tolerance = tiny, v_sum = 0, lo = INFINITY, hi = -INFINITY;
        for (std::size_t j = 0; j < r.weights.size(); ++j) {
          const double x = (*h.v)(h.k0 + j, h.v0 + c), w = r.weights[j], t = r.tolerance[j];
          want += w * x;
          tolerance += std::fabs(x) * (t + 2 * (r.weights.size() + 2) * unit * (w + t));
          v_sum += std::fabs(x);
          lo = std::min(lo, x);
          hi = std::max(hi, x);
        }
        bound = std::max(bound, v_sum);
        const double slack = 2 * (r.weights.size() + 2) * unit * std::max(-lo, hi) + tiny;
        for (const auto* result : {&flash, &naive}) {
          if (!*result) continue;
          const double got = result->value().output(h.q0 + i, h.v0 + c);
          REQUIRE(std::isfinite(got) && std::fabs(got - want) <= tolerance);
          REQUIRE(got >= lo - slack && got <= hi + slack);
        }
      }
    }
  for (const auto* result : {&flash, &naive})
    if (!*result) REQUIRE(result->error().code == ErrorCode::non_finite && bound > overflow_limit);
}

// sampled_weights: the check's error, an invalid batch, head or index, an overflow the bound
// allows, or weights that are finite, exactly 0 where masked and near the reference.
void check_sampled(const Matrix& q, const Matrix& k, const std::vector<std::size_t>& rows,
                   const std::vector<std::size_t>& cols, int head, const FlashOptions& o) {
  const auto sampled = attnlab::sampled_weights(q, k, rows, cols, head, o);
  if (!sampled) REQUIRE(!sampled.error().message.empty());
  if (const auto problem = attnlab::check_flash_attention(q, k, k, o)) {
    REQUIRE(!sampled && sampled.error().code == problem->code);
    return;
  }
  const auto outside = [](const std::vector<std::size_t>& list, std::size_t n) {
    return std::any_of(list.begin(), list.end(), [n](std::size_t i) { return i >= n; });
  };
  if (o.batch != 1 || head < 0 || head >= o.heads || outside(rows, q.rows) ||
      outside(cols, k.rows)) {
    REQUIRE(!sampled && sampled.error().code == ErrorCode::invalid_argument);
    return;
  }
  const Head h = heads_of(q, k, k, o)[static_cast<std::size_t>(head)];
  double bound = 0;
  for (std::size_t r = 0; r < rows.size(); ++r) {
    const RowReference ref = row_reference(h, rows[r]);
    bound = std::max(bound, ref.bound);
    for (std::size_t c = 0; sampled && c < cols.size(); ++c) {
      const float got = sampled.value()(r, c);
      const bool masked = cols[c] >= ref.weights.size();
      REQUIRE(masked ? got == 0.0f
                     : std::fabs(got - ref.weights[cols[c]]) <= ref.tolerance[cols[c]]);
    }
  }
  if (!sampled) REQUIRE(sampled.error().code == ErrorCode::non_finite && bound > overflow_limit);
}

std::vector<std::size_t> indices(attnlab::fuzz::Reader& in, std::size_t n) {
  std::vector<std::size_t> list(in.dimension(8));
  for (std::size_t& i : list) i = in.dimension(n + 1);  // now and then one past the end
  return list;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  attnlab::fuzz::Reader in(data, size);
  const std::uint8_t flags = in.byte();
  FlashOptions o;
  o.causal = flags & flag::causal;
  o.heads = static_cast<int>(in.byte() % 5) - 1;  // -1 … 3
  o.threads = flags & flag::two_threads ? 2 : 1;
  if (flags & flag::batch) o.batch = in.dimension(3);  // 0 … 3
  // Past 64 queries and 256 keys, the flash kernel's blocks and macro tiles repeat; heads
  // near the 512-wide limit stay short, so that every input runs in milliseconds.
  const bool wide = flags & flag::wide_head;
  const std::size_t n_q = in.dimension(wide ? 8 : 80);
  const std::size_t n_k =
      flags & flag::long_keys && !wide ? in.byte() + in.byte() : in.dimension(wide ? 8 : 80);
  const std::size_t d = wide ? 509 + in.dimension(4) : in.dimension(9);
  const std::size_t d_v = in.dimension(9);
  const std::uint8_t skew = flags & flag::skew ? in.byte() : 0;  // shapes that do not fit
  if (flags & flag::scale) o.scale = in.number();
  const std::size_t sequences = std::max<std::size_t>(o.batch, 1);
  const std::size_t heads = static_cast<std::size_t>(std::max(o.heads, 1));
  const std::size_t q_rows = sequences * n_q + (skew & 4 ? 1 : 0), k_rows = sequences * n_k;
  int head = 0;
  std::vector<std::size_t> rows, cols;
  if (flags & flag::sampled) {
    head = static_cast<int>(in.byte() % 5) - 1;
    rows = indices(in, q_rows);
    cols = indices(in, k_rows);
  }
  const Matrix q = in.matrix(q_rows, heads * d);
  const Matrix k = in.matrix(k_rows, heads * d + (skew & 1));
  const Matrix v = in.matrix(k_rows + (skew & 2 ? 1 : 0), heads * d_v);

  const auto problem = attnlab::check_flash_attention(q, k, v, o);
  if (problem) {
    REQUIRE(!problem->message.empty());
    for (const auto& result :
         {attnlab::flash_attention(q, k, v, o), attnlab::naive_attention(q, k, v, o)})
      REQUIRE(!result && result.error().code == problem->code);
  } else {
    check_kernels(q, k, v, o);
  }
  if (flags & flag::sampled) check_sampled(q, k, rows, cols, head, o);
  return 0;
}
