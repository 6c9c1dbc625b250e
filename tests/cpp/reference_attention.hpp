// A float64 reference for attention, multi-head attention and the trace, written
// independently of src/kernels/attention.cpp and src/teaching/trace.cpp: it reuses only the scalar
// kernels of attnlab::reference (instantiated with double) and does its own masking, head slicing,
// positional encoding and output projection.
#pragma once

#include <cmath>
#include <cstddef>
#include <limits>
#include <optional>
#include <variant>
#include <vector>

#include "attnlab/attention.hpp"
#include "attnlab/matrix.hpp"
#include "attnlab/reference.hpp"
#include "attnlab/trace.hpp"

namespace attnlab::test {

using MatrixD = BasicMatrix<double>;

struct ReferenceAttention {
  MatrixD weights;  // (n_q, n_k)
  MatrixD output;   // (n_q, d_v)
  std::vector<std::size_t> fully_masked_rows;
};

// Whether query i of n_q may attend to key j of n_k: not a key after the query's position
// (causal; the position is i, i + n_k − n_q bottom-right, or i + p at key p), not outside its
// window, not a padding key, and allowed by the boolean mask. Global tokens are not modelled here.
inline bool reference_allows(const AttentionOptions& options, std::size_t n_q, std::size_t n_k,
                             std::size_t i, std::size_t j) {
  double position = double(i);
  if (options.causal_alignment == CausalAlignment::bottom_right)
    position += double(n_k) - double(n_q);
  else if (options.causal_alignment &&
           options.causal_alignment->kind == CausalAlignment::Kind::at_key)
    position += double(options.causal_alignment->first_key);
  const auto side = [](std::size_t keys) {
    return keys == Window::unbounded ? std::numeric_limits<double>::infinity() : double(keys);
  };
  const bool later_key = options.causal && double(j) > position;
  const bool outside_window = double(j) < position - side(options.window.left) ||
                              double(j) > position + side(options.window.right);
  const bool padding_key = !options.key_padding.empty() && options.key_padding.at(j);
  const bool masked_out = options.mask && options.mask->data.at(i * options.mask->cols + j) == 0;
  return !later_key && !outside_window && !padding_key && !masked_out;
}

// softmax(cap(Q·Kᵀ · scale / temperature) + bias, masked to -inf) · V in float64.
inline ReferenceAttention reference_attention(const MatrixD& q, const MatrixD& k, const MatrixD& v,
                                              const AttentionOptions& options = {}) {
  MatrixD logits = reference::matmul_transposed(q, k);  // (n_q, n_k)
  const double base =
      options.scale ? static_cast<double>(*options.scale) : 1.0 / std::sqrt(double(q.cols));
  reference::scale(logits, base / static_cast<double>(options.temperature));
  // Soft-capping c·tanh(x / c), then the additive bias (−∞ blocks, as the mask does).
  for (std::size_t i = 0; i < logits.rows; ++i)
    for (std::size_t j = 0; j < logits.cols; ++j) {
      double& x = logits(i, j);
      if (options.softcap) x = double(*options.softcap) * std::tanh(x / double(*options.softcap));
      if (options.bias) x += double((*options.bias)(i, j));
      if (!reference_allows(options, logits.rows, logits.cols, i, j))
        x = -std::numeric_limits<double>::infinity();
    }
  const reference::Softmax<double> softmax = reference::softmax_rows(logits);
  ReferenceAttention r{softmax.weights, reference::matmul(softmax.weights, v), {}};
  for (std::size_t i = 0; i < logits.rows; ++i)
    if (softmax.row_sum[i] == 0.0) r.fully_masked_rows.push_back(i);
  return r;
}

inline ReferenceAttention reference_attention(const Matrix& q, const Matrix& k, const Matrix& v,
                                              const AttentionOptions& options = {}) {
  return reference_attention(q.cast<double>(), k.cast<double>(), v.cast<double>(), options);
}

// Columns [first, first + count) of m, bounds-checked.
inline MatrixD reference_columns(const MatrixD& m, std::size_t first, std::size_t count) {
  MatrixD out(m.rows, count);
  for (std::size_t r = 0; r < m.rows; ++r)
    for (std::size_t c = 0; c < count; ++c) out(r, c) = m.data.at(r * m.cols + first + c);
  return out;
}

// Head h attends with columns [h·d_k, (h+1)·d_k) of Q and K and [h·d_v, (h+1)·d_v) of V;
// the head outputs are concatenated side by side, then multiplied by W_O when given.
inline MatrixD reference_multi_head(const MatrixD& q, const MatrixD& k, const MatrixD& v, int heads,
                                    const AttentionOptions& options,
                                    const std::optional<Matrix>& w_o = std::nullopt) {
  const auto h_count = static_cast<std::size_t>(heads);
  const std::size_t d_k = q.cols / h_count;
  const std::size_t d_v = v.cols / h_count;
  MatrixD concat(q.rows, v.cols);
  for (std::size_t h = 0; h < h_count; ++h) {
    const ReferenceAttention head =
        reference_attention(reference_columns(q, h * d_k, d_k), reference_columns(k, h * d_k, d_k),
                            reference_columns(v, h * d_v, d_v), options);
    for (std::size_t i = 0; i < q.rows; ++i)
      for (std::size_t c = 0; c < d_v; ++c) concat(i, h * d_v + c) = head.output(i, c);
  }
  return w_o ? reference::matmul(concat, w_o->cast<double>()) : concat;
}

// pe(p, 2i) = sin(p / 10000^(2i/width)), pe(p, 2i+1) = cos(same angle), in float64.
inline MatrixD reference_sinusoidal(std::size_t tokens, std::size_t width) {
  MatrixD pe(tokens, width);
  for (std::size_t p = 0; p < tokens; ++p)
    for (std::size_t i = 0; 2 * i < width; ++i) {
      const double angle = double(p) / std::pow(10000.0, double(2 * i) / double(width));
      pe(p, 2 * i) = std::sin(angle);
      if (2 * i + 1 < width) pe(p, 2 * i + 1) = std::cos(angle);
    }
  return pe;
}

struct ReferenceQkv {
  MatrixD q, k, v;
};

// Q, K and V as the trace's heads receive them (projected, positions added), in float64.
inline ReferenceQkv reference_qkv(const TraceInput& input) {
  MatrixD q, k, v;
  if (const auto* p = std::get_if<Projections>(&input.source)) {
    MatrixD x = p->x.cast<double>();
    if (input.positional == PositionalEncoding::sinusoidal) {
      const MatrixD pe = reference_sinusoidal(x.rows, x.cols);
      for (std::size_t i = 0; i < x.data.size(); ++i) x.data[i] += pe.data[i];
    }
    q = reference::matmul(x, p->w_q.cast<double>());
    k = reference::matmul(x, p->w_k.cast<double>());
    v = reference::matmul(x, p->w_v.cast<double>());
  } else {
    const auto& d = std::get<DirectQKV>(input.source);
    q = d.q.cast<double>();
    k = d.k.cast<double>();
    v = d.v.cast<double>();
  }
  return {q, k, v};
}

// The float64 twin of attnlab::trace(input).output.
inline MatrixD reference_trace_output(const TraceInput& input) {
  const ReferenceQkv r = reference_qkv(input);
  return reference_multi_head(r.q, r.k, r.v, input.heads, input.options, input.w_o);
}

}  // namespace attnlab::test
