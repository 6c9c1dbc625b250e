// The frameworks' documented semantics, checked against float64 written here from them:
// ONNX Attention (opset 23): an attn_mask of shape (q_seq, total_seq) broadcasts over the
// heads, and with past_key the total sequence is past + new; GQA: query head h reads K/V head
// h / (q_heads / kv_heads), consecutive query heads sharing one. PyTorch SDPA: a float mask is
// added to the scaled scores, −∞ blocking. attnlab's one departure: a row with every key blocked
// is zeros (PyTorch gives NaN there), listed in fully_masked_rows.
#include <algorithm>
#include <catch2/catch.hpp>
#include <cmath>
#include <limits>
#include <vector>

#include "attnlab/trace.hpp"
#include "test_support.hpp"

using namespace attnlab;
using namespace attnlab::test;

namespace {

// ONNX's Attention in float64 for q_heads query heads over kv_heads K/V heads, one sequence:
// K and V are [past; new], the mask (n_q, total) is added to every head's scaled scores.
Matrix onnx_attention(const Matrix& q, const Matrix& k, const Matrix& v, int q_heads, int kv_heads,
                      const Matrix& mask) {
  const std::size_t d = q.cols / q_heads, d_v = v.cols / kv_heads;
  Matrix out(q.rows, d_v * q_heads);
  for (int h = 0; h < q_heads; ++h) {
    const std::size_t g = h / (q_heads / kv_heads);  // ONNX: consecutive heads share a K/V head
    for (std::size_t i = 0; i < q.rows; ++i) {
      std::vector<double> s(k.rows);
      double top = -std::numeric_limits<double>::infinity();
      for (std::size_t j = 0; j < k.rows; ++j) {
        double dot = 0;
        for (std::size_t c = 0; c < d; ++c)
          dot += double(q(i, h * d + c)) * double(k(j, g * d + c));
        s[j] = dot / std::sqrt(double(d)) + double(mask(i, j));
        top = std::max(top, s[j]);
      }
      if (top == -std::numeric_limits<double>::infinity()) continue;  // attnlab: zeros
      double sum = 0;
      for (double& x : s) sum += (x = std::exp(x - top));
      for (std::size_t c = 0; c < d_v; ++c) {
        double acc = 0;
        for (std::size_t j = 0; j < k.rows; ++j) acc += s[j] / sum * double(v(j, g * d_v + c));
        out(i, h * d_v + c) = float(acc);
      }
    }
  }
  return out;
}

Matrix rows_of(const Matrix& m, std::size_t first, std::size_t count) {
  return Matrix(count, m.cols,
                std::vector<float>(m.data.begin() + first * m.cols,
                                   m.data.begin() + (first + count) * m.cols));
}

}  // namespace

TEST_CASE("ONNX Attention with past_key, GQA and a broadcast float mask", "[frameworks]") {
  // 4 query heads over 2 K/V heads, 6 cached tokens and 3 new ones; the mask (3, 9) for every
  // head, with −∞ cells and query 1's row blocked whole.
  const Matrix q = random_matrix(3, 4 * 4, 81), k = random_matrix(9, 2 * 4, 82),
               v = random_matrix(9, 2 * 3, 83);
  Matrix mask = random_matrix(3, 9, 84, 0.5f);
  mask(0, 2) = mask(2, 8) = -INFINITY;
  for (std::size_t j = 0; j < 9; ++j) mask(1, j) = -INFINITY;
  TraceInput input;
  input.source = DirectQKV{q, rows_of(k, 6, 3), rows_of(v, 6, 3)};
  input.heads = 4;
  input.kv_heads = 2;
  input.options.past_key = rows_of(k, 0, 6);
  input.options.past_value = rows_of(v, 0, 6);
  input.options.bias = mask;
  const Trace t = attnlab::trace(input).value();
  CHECK(max_abs_diff(t.output, onnx_attention(q, k, v, 4, 2, mask)) <= 1e-5);
  CHECK(t.fully_masked_rows == std::vector<std::vector<std::size_t>>(4, {1}));

  SECTION("the broadcast mask equals the same mask given once per head") {
    Matrix stacked(4 * 3, 9);
    for (std::size_t h = 0; h < 4; ++h)
      std::copy(mask.data.begin(), mask.data.end(), stacked.row(h * 3));
    input.options.bias = stacked;
    CHECK(max_abs_diff(attnlab::trace(input).value().output, t.output) == 0.0);
  }
  SECTION("is_causal with a cache is offset-causal: the same as a −∞ upper triangle shifted by 6") {
    input.options.bias.reset();
    input.options.causal = true;
    Matrix shifted(3, 9);
    for (std::size_t i = 0; i < 3; ++i)
      for (std::size_t j = 0; j < 9; ++j) shifted(i, j) = j > i + 6 ? -INFINITY : 0.0f;
    CHECK(max_abs_diff(attnlab::trace(input).value().output,
                       onnx_attention(q, k, v, 4, 2, shifted)) <= 1e-5);
  }
}
