// libFuzzer target for the long-sequence entry points: the fuzz input is decoded into Q, K, V
// and LongAttentionOptions (and a window of rows and columns for sampled_weights). Properties:
//  - check_flash_attention refuses exactly what flash_attention and naive_attention refuse
//    (the same code); past the check, the kernels refuse only an overflow ('non-finite'), and
//    only where float64 partial sums pass FLT_MAX / 16;
//  - an output is finite, within its values' range, and within a float32 tolerance of a float64
//    reference, so flash and naive agree within the sum of their tolerances;
//  - sampled_weights gives check_flash_attention's error, 'invalid-argument' for a bad batch,
//    head or index, or weights that are finite, 0 where masked and near the reference;
//  - the options a model sets (key_band.hpp's alignment and window, K/V heads, key padding,
//    softcap, a bias with −∞ cells, ALiBi) change the reference as the frameworks define them,
//    and a row they leave no key is zeros, listed as fully masked.
// The layout (make_seeds.py writes seeds in it): flags, heads + 1 + 5·more, [batch], n_q, n_k
// (two bytes, summed, with flag 16 and not 32), d (509 + byte % 5 with flag 32), d_v, [skew],
// [scale], [head + 1, row count, rows…, column count, columns…], [with more & 1: the options'
// flags, [window left, right (255: unbounded)], [KV heads + 1], [softcap]], then Q, K and V as
// raw float32 bytes, [a key padding byte per key], [the bias, (n_q, n_k), raw float32].
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
using attnlab::LongAttentionOptions;
using attnlab::Matrix;

constexpr double unit = 0x1p-24;        // float32's unit roundoff
constexpr double subnormal = 0x1p-149;  // what one float32 operation may lose to underflow
constexpr double tiny = 1e-37;          // below float32's normal range
constexpr double overflow_limit = std::numeric_limits<float>::max() / 16.0;

namespace flag {
constexpr std::uint8_t causal = 1, scale = 2, two_threads = 4, batch = 8, long_keys = 16,
                       wide_head = 32, skew = 64, sampled = 128;
}
// The options' flags; cell_skew gives the padding one flag too many and the bias one column.
namespace option {
constexpr std::uint8_t bottom_right = 1, window = 2, kv_heads = 4, padding = 8, softcap = 16,
                       alibi = 32, bias = 64, cell_skew = 128;
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
  std::size_t q0, k0;       // the sequence's first rows in Q and in K, V
  std::size_t c0, kc0, v0;  // the head's first columns in Q, in K (its K/V head's) and in V
  std::size_t n_q, n_k, d;
  double scale;
  const LongAttentionOptions* o;
  double slope;  // ALiBi's m_h, 0 without

  // Query i's key position: i, or i + n_k − n_q bottom-right.
  double position(std::size_t i) const {
    return double(i) + (o->causal_alignment == attnlab::CausalAlignment::bottom_right
                            ? double(n_k) - double(n_q)
                            : 0.0);
  }
  double bias(std::size_t i, std::size_t j) const { return o->bias ? (*o->bias)(i, j) : 0.0; }
  // Whether query i may attend to key j: the causal rule and the window at its position, not
  // padding, not −∞ in the bias.
  bool allows(std::size_t i, std::size_t j) const {
    const double p = position(i), key = double(j);
    const auto side = [](std::size_t w) {
      return w == attnlab::Window::unbounded ? 1e300 : double(w);
    };
    return !(o->causal && key > p) && key >= p - side(o->window.left) &&
           key <= p + side(o->window.right) && (o->key_padding.empty() || !o->key_padding[j]) &&
           bias(i, j) != -INFINITY;
  }
};

// Query i's weights in float64 and their float32 tolerances. Each logit is within E (its dot
// product's rounding and scaling, underflow included), so each weight is within a factor
// e^(±2E), plus the rounding of the sum and the division; worked in logs.
struct RowReference {
  std::vector<double> weights, tolerance;
  double bound;  // the largest float64 partial sum: Σ|q·k|·max(1, scale), |q|·scale
};

// Weights of keys the row may not attend to are 0, with tolerance 0; a row with no key has
// none (weights empty).
RowReference row_reference(const Head& h, std::size_t i) {
  std::vector<double> logits(h.n_k, -INFINITY);
  double magnitude = 0, k_sum = 0, q_max = 0, added = 0;  // added: the largest |logit| and bias
  for (std::size_t l = 0; l < h.d; ++l)
    q_max = std::max(q_max, std::fabs(double{(*h.q)(h.q0 + i, h.c0 + l)}));
  const LongAttentionOptions& o = *h.o;
  double every = 0;  // over every key: a kernel may compute (and overflow on) any score
  for (std::size_t j = 0; j < h.n_k; ++j) {
    double dot = 0, abs = 0, k_abs = 0;
    for (std::size_t l = 0; l < h.d; ++l) {
      const double x = (*h.q)(h.q0 + i, h.c0 + l), y = (*h.k)(h.k0 + j, h.kc0 + l);
      dot += x * y;
      abs += std::fabs(x * y);
      k_abs += std::fabs(y);
    }
    every = std::max(every, abs);
    if (!h.allows(i, j)) continue;
    double s = dot * h.scale;
    if (o.softcap) s = double(*o.softcap) * std::tanh(s / double(*o.softcap));
    const double alibi = h.slope * std::fabs(h.position(i) - double(j));
    logits[j] = s - alibi + h.bias(i, j);
    added = std::max({added, std::fabs(s) + alibi + std::fabs(h.bias(i, j)), std::fabs(logits[j])});
    magnitude = std::max(magnitude, abs);
    k_sum = std::max(k_sum, k_abs);
  }
  // softcap's tanh contracts the scores' error; it, ALiBi's product and the sums round once
  // more each, at most a few units of what they add.
  const double error = 2 * (h.d + 5) * unit * magnitude * h.scale +
                       subnormal * (k_sum + h.d + 2) * std::max(1.0, h.scale) +
                       (o.has_cell_rules() ? 8 * unit * (added + o.softcap.value_or(0.0f)) : 0) +
                       tiny;
  RowReference r{{}, {}, std::max(every * std::max(1.0, h.scale), q_max * h.scale) + added};
  const double max = *std::max_element(logits.begin(), logits.end());
  if (max == -INFINITY) return r;
  double sum = 0;
  std::size_t keys = 0;
  for (double x : logits) {
    sum += std::exp(x - max);
    keys += x != -INFINITY;
  }
  for (double x : logits) {
    const double gap = max - x, log_weight = -gap - std::log(sum);
    const double extra = 2 * error + unit * gap + 2 * (keys + 10) * unit;
    r.weights.push_back(std::exp(log_weight));
    r.tolerance.push_back(
        x == -INFINITY ? 0.0
                       : std::min(1.0, std::exp(log_weight + extra) - std::exp(log_weight)) + tiny);
  }
  return r;
}

// The (sequence, head) pairs of a request that check_flash_attention accepted.
std::vector<Head> heads_of(const Matrix& q, const Matrix& k, const Matrix& v,
                           const LongAttentionOptions& o) {
  const auto heads = static_cast<std::size_t>(o.heads);
  const std::size_t group = o.kv_heads > 0 ? heads / static_cast<std::size_t>(o.kv_heads) : 1;
  const std::size_t d = q.cols / heads, d_v = v.cols / (heads / group);
  const double scale = o.scale.value_or(1.0f / std::sqrt(static_cast<float>(d)));
  std::vector<Head> list;
  for (std::size_t b = 0; b < o.batch; ++b)
    for (std::size_t h = 0; h < heads; ++h)
      list.push_back(Head{&q, &k, &v, b * q.rows / o.batch, b * k.rows / o.batch, h * d,
                          h / group * d, h / group * d_v, q.rows / o.batch, k.rows / o.batch, d,
                          scale, &o,
                          o.alibi ? std::exp2(-8.0 * double(h + 1) / double(heads)) : 0.0});
  return list;
}

// flash_attention and naive_attention on a request the check accepted: each refuses only an
// overflow the float64 bound allows, or returns outputs that are finite, in their values'
// range and near the reference.
void check_kernels(const Matrix& q, const Matrix& k, const Matrix& v,
                   const LongAttentionOptions& o) {
  const auto flash = attnlab::flash_attention(q, k, v, o);
  const auto naive = attnlab::naive_attention(q, k, v, o);
  const std::vector<Head> list = heads_of(q, k, v, o);
  const auto heads = static_cast<std::size_t>(o.heads);
  const std::size_t group = o.kv_heads > 0 ? heads / static_cast<std::size_t>(o.kv_heads) : 1;
  const std::size_t n_q = q.rows / o.batch, d_v = v.cols / (heads / group);
  const std::size_t out_cols = d_v * heads;
  for (const auto* result : {&flash, &naive})
    if (*result)
      REQUIRE(result->value().output.rows == q.rows && result->value().output.cols == out_cols);
  double bound = 0;
  for (std::size_t t = 0; t < list.size(); ++t)
    for (std::size_t i = 0; i < n_q; ++i) {
      const Head& h = list[t];
      const std::size_t out0 = t % heads * d_v;  // the head's output columns
      const RowReference r = row_reference(h, i);
      bound = std::max(bound, r.bound);
      for (const auto* result : {&flash, &naive}) {  // no key: zeros, listed as fully masked
        if (!*result) continue;
        const auto& masked = result->value().fully_masked_rows;
        REQUIRE(r.weights.empty() == std::binary_search(masked.begin(), masked.end(), h.q0 + i));
      }
      for (std::size_t c = 0; c < d_v; ++c) {
        // The flash kernel's accumulator holds Σ e^(s − m)·v before it divides: up to Σ|v|.
        double want = 0, tolerance = tiny, v_sum = 0, lo = INFINITY, hi = -INFINITY;
        for (std::size_t j = 0; j < r.weights.size(); ++j) {
          if (r.tolerance[j] == 0.0) continue;  // a key the row may not attend to
          const double x = (*h.v)(h.k0 + j, h.v0 + c), w = r.weights[j], t = r.tolerance[j];
          want += w * x;
          tolerance += std::fabs(x) * (t + 2 * (r.weights.size() + 2) * unit * (w + t));
          v_sum += std::fabs(x);
          lo = std::min(lo, x);
          hi = std::max(hi, x);
        }
        bound = std::max(bound, v_sum);
        if (r.weights.empty()) lo = hi = 0.0;  // a fully masked row: zeros
        const double slack = 2 * (r.weights.size() + 2) * unit * std::max(-lo, hi) + tiny;
        for (const auto* result : {&flash, &naive}) {
          if (!*result) continue;
          const double got = result->value().output(h.q0 + i, out0 + c);
          REQUIRE(std::isfinite(got) && std::fabs(got - want) <= tolerance);
          REQUIRE(got >= lo - slack && got <= hi + slack);
        }
      }
    }
  for (const auto* result : {&flash, &naive})
    if (!*result) REQUIRE(result->error().code == ErrorCode::non_finite && bound > overflow_limit);
}

// sampled_weights: the check's error, an invalid batch, head or index, an overflow the bound
// allows, or weights that are finite, exactly 0 where masked and near the reference (every
// score rule included: sampled_weights takes them as the kernels do).
void check_sampled(const Matrix& q, const Matrix& k, const std::vector<std::size_t>& rows,
                   const std::vector<std::size_t>& cols, int head, const LongAttentionOptions& o) {
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
      const bool masked = ref.weights.empty() || ref.tolerance[cols[c]] == 0.0;
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
  LongAttentionOptions o;
  o.causal = flags & flag::causal;
  const std::uint8_t heads_byte = in.byte();
  o.heads = static_cast<int>(heads_byte % 5) - 1;  // -1 … 3
  const bool more = heads_byte / 5 & 1;            // the options' bytes follow
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
  const std::uint8_t options = more ? in.byte() : 0;
  if (options & option::bottom_right) o.causal_alignment = attnlab::CausalAlignment::bottom_right;
  if (options & option::window) {
    const auto side = [](std::uint8_t b) { return b == 255 ? attnlab::Window::unbounded : b % 40; };
    const std::uint8_t left = in.byte();
    o.window = attnlab::Window(side(left), side(in.byte()));
  }
  if (options & option::kv_heads) o.kv_heads = static_cast<int>(in.byte() % 5) - 1;  // -1 … 3
  if (options & option::softcap) o.softcap = in.number();
  o.alibi = options & option::alibi;
  // K and V: one slice per K/V head when they divide the heads (else as many as the heads, for
  // the check to refuse the K/V heads).
  const std::size_t kv = o.kv_heads > 0 && heads % static_cast<std::size_t>(o.kv_heads) == 0
                             ? static_cast<std::size_t>(o.kv_heads)
                             : heads;
  const Matrix q = in.matrix(q_rows, heads * d);
  const Matrix k = in.matrix(k_rows, kv * d + (skew & 1));
  const Matrix v = in.matrix(k_rows + (skew & 2 ? 1 : 0), kv * d_v);
  const std::size_t cell_skew = options & option::cell_skew ? 1 : 0;
  if (options & option::padding)
    for (std::size_t j = 0; j < n_k + cell_skew; ++j) o.key_padding.push_back(in.byte() & 1);
  if (options & option::bias) o.bias = in.matrix(n_q, n_k + cell_skew);

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
