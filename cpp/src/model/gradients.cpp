// The training loss of one sequence and its gradient: a plain forward that keeps what the
// backward needs, and the backward written out by hand, layer by layer in reverse. Every
// product is in axpy form (out[i][·] += a[i][t] · b[t][·], t ascending), which compilers
// vectorise along the output row without reordering any sum: the same bits on every x86-64
// instruction set. The file is compiled without fused multiply-adds (cpp/CMakeLists.txt).
#include <algorithm>
#include <cmath>

#include "attnlab/model_training.hpp"
#include "model/ops.hpp"

namespace attnlab::model_training {
namespace {

using Index = std::size_t;

// out (m, n) (+)= a (m, k) · b (k, n), a's entry (i, t) at a[i·row + t·col] (so aᵀ costs
// nothing); each out[i][j] sums over t ascending.
template <class T>
void product(T* out, const T* a, Index row, Index col, const T* b, Index m, Index k, Index n,
             bool accumulate) {
  if (!accumulate) std::fill(out, out + m * n, T(0));
  for (Index i = 0; i < m; ++i)
    for (Index t = 0; t < k; ++t) {
      const T s = a[i * row + t * col];
      T* o = out + i * n;
      const T* b_row = b + t * n;
      for (Index j = 0; j < n; ++j) o[j] += s * b_row[j];
    }
}

// The training's float product, register-blocked: a tile of rows × 2 vectors of out stays
// in registers while t runs. Each out[i][j] still adds its terms t ascending, from its old value,
// so the bits are the plain loop's above whatever the vector width; only the loads and stores
// are fewer. Each instruction set gets vectors of its own register width: one type wider than
// the registers makes GCC keep the tile on the stack (AVX2 ran 60× slower that way).
// (Spelled out: GCC drops vector_size from an alias template that depends on a parameter.)
using Lanes4 = float __attribute__((vector_size(16)));
using Lanes8 = float __attribute__((vector_size(32)));
using Lanes16 = float __attribute__((vector_size(64)));
constexpr Index tile_lanes = 2;

template <class L, Index tile_rows>
[[gnu::always_inline]] inline void product_tiles(float* out, const float* a, Index row, Index col,
                                                 const float* b, Index m, Index k, Index n) {
  constexpr Index Width = sizeof(L) / sizeof(float);
  constexpr Index tile_cols = Width * tile_lanes;
  const Index m_tiled = m - m % tile_rows, n_tiled = n - n % tile_cols;
  for (Index i = 0; i < m_tiled; i += tile_rows)
    for (Index j = 0; j < n_tiled; j += tile_cols) {
      L acc[tile_rows][tile_lanes];
      for (Index r = 0; r < tile_rows; ++r)
        for (Index c = 0; c < tile_lanes; ++c)
          __builtin_memcpy(&acc[r][c], out + (i + r) * n + j + Width * c, sizeof(L));
      for (Index t = 0; t < k; ++t) {
        L b_part[tile_lanes];
        for (Index c = 0; c < tile_lanes; ++c)
          __builtin_memcpy(&b_part[c], b + t * n + j + Width * c, sizeof(L));
        for (Index r = 0; r < tile_rows; ++r) {
          const float s = a[(i + r) * row + t * col];
          for (Index c = 0; c < tile_lanes; ++c) acc[r][c] += s * b_part[c];
        }
      }
      for (Index r = 0; r < tile_rows; ++r)
        for (Index c = 0; c < tile_lanes; ++c)
          __builtin_memcpy(out + (i + r) * n + j + Width * c, &acc[r][c], sizeof(L));
    }
  // The edges the tiles leave: the last columns of the tiled rows, then the last rows.
  for (Index i = 0; i < m; ++i)
    for (Index t = 0; t < k; ++t) {
      const float s = a[i * row + t * col];
      for (Index j = i < m_tiled ? n_tiled : 0; j < n; ++j) out[i * n + j] += s * b[t * n + j];
    }
}

using ProductTiles = void (*)(float*, const float*, Index, Index, const float*, Index, Index,
                              Index);
void tiles_baseline(float* out, const float* a, Index row, Index col, const float* b, Index m,
                    Index k, Index n) {
  product_tiles<Lanes4, 4>(out, a, row, col, b, m, k, n);
}
#if defined(__x86_64__) && !defined(__EMSCRIPTEN__)
[[gnu::target("avx2")]] void tiles_avx2(float* out, const float* a, Index row, Index col,
                                        const float* b, Index m, Index k, Index n) {
  product_tiles<Lanes8, 6>(out, a, row, col, b, m, k, n);
}
[[gnu::target("avx512f")]] void tiles_avx512(float* out, const float* a, Index row, Index col,
                                             const float* b, Index m, Index k, Index n) {
  product_tiles<Lanes16, 4>(out, a, row, col, b, m, k, n);
}
// The product for the machine the program runs on (the check's state is set up first, as a
// static initialiser may run before libgcc's).
ProductTiles tiles_for_this_machine() {
  __builtin_cpu_init();
  return __builtin_cpu_supports("avx512f") ? tiles_avx512
         : __builtin_cpu_supports("avx2")  ? tiles_avx2
                                           : tiles_baseline;
}
#else
ProductTiles tiles_for_this_machine() { return tiles_baseline; }
#endif

template <>
void product(float* out, const float* a, Index row, Index col, const float* b, Index m, Index k,
             Index n, bool accumulate) {
  if (!accumulate) std::fill(out, out + m * n, 0.0f);
  static const ProductTiles tiles = tiles_for_this_machine();
  tiles(out, a, row, col, b, m, k, n);
}
template <class T>
void product(T* out, const T* a, const T* b, Index m, Index k, Index n, bool accumulate) {
  product(out, a, k, 1, b, m, k, n, accumulate);
}

// out (k, n) += a (m, k)ᵀ · b (m, n)
template <class T>
void product_at(T* out, const T* a, const T* b, Index m, Index k, Index n) {
  product(out, a, 1, k, b, k, m, n, true);
}

// out (m, n) (+)= a (m, k) · b (n, k)ᵀ, through bᵀ formed once.
template <class T>
void product_bt(T* out, const T* a, const T* b, Index m, Index k, Index n, bool accumulate) {
  std::vector<T> bt(k * n);
  constexpr Index block = 16;  // 16 × 16 blocks, so the strided writes stay in a few cache lines
  for (Index r0 = 0; r0 < n; r0 += block)
    for (Index c0 = 0; c0 < k; c0 += block)
      for (Index r = r0; r < std::min(n, r0 + block); ++r)
        for (Index c = c0; c < std::min(k, c0 + block); ++c) bt[c * n + r] = b[r * k + c];
  product(out, a, bt.data(), m, k, n, accumulate);
}

// Columns [first, first + width) of a (rows, cols) into out (rows, width), or back (add).
template <class T>
void take_columns(const T* a, Index rows, Index cols, Index first, Index width, T* out) {
  for (Index i = 0; i < rows; ++i) std::copy_n(a + i * cols + first, width, out + i * width);
}
template <class T>
void put_columns(const T* part, Index rows, Index cols, Index first, Index width, T* a) {
  for (Index i = 0; i < rows; ++i) std::copy_n(part + i * width, width, a + i * cols + first);
}

template <class T>
struct Norm {
  std::vector<T> y, x_hat, inverse_std;
  void run(const T* x, Index n, Index d, const T* gain, const T* bias) {
    y.resize(n * d);
    x_hat.resize(n * d);
    inverse_std.resize(n);
    for (Index i = 0; i < n; ++i)
      model_ops::layer_norm_row(x + i * d, gain, bias, d, &y[i * d], &x_hat[i * d],
                                &inverse_std[i]);
  }
  // dx (n, d) = ∂L/∂x given dy; adds the gain's and bias's gradients.
  std::vector<T> back(const std::vector<T>& dy, Index n, Index d, const T* gain, T* d_gain,
                      T* d_bias) const {
    std::vector<T> dx(n * d), dh(d);
    for (Index i = 0; i < n; ++i) {
      const T* g = &dy[i * d];
      const T* h = &x_hat[i * d];
      T mean_dh = 0, mean_dh_h = 0;
      for (Index j = 0; j < d; ++j) {
        d_gain[j] += g[j] * h[j];
        d_bias[j] += g[j];
        dh[j] = g[j] * gain[j];
        mean_dh += dh[j];
        mean_dh_h += dh[j] * h[j];
      }
      mean_dh /= static_cast<T>(d);
      mean_dh_h /= static_cast<T>(d);
      for (Index j = 0; j < d; ++j)
        dx[i * d + j] = inverse_std[i] * (dh[j] - mean_dh - h[j] * mean_dh_h);
    }
    return dx;
  }
};

template <class T>
struct BlockCache {
  std::vector<T> x_in, q, k, v, weights, concat, hidden_in, hidden_tanh, hidden;
  Norm<T> norm1, norm2;
};

template <class T>
void add_bias(std::vector<T>& y, const T* bias, Index n, Index width) {
  for (Index i = 0; i < n; ++i)
    for (Index j = 0; j < width; ++j) y[i * width + j] += bias[j];
}

template <class T>
void add_column_sums(const std::vector<T>& dy, Index n, Index width, T* out) {
  for (Index i = 0; i < n; ++i)
    for (Index j = 0; j < width; ++j) out[j] += dy[i * width + j];
}

// Forward of one block: x (n, d) in, x out; the cache keeps what the backward reads.
template <class T>
void block_forward(const ModelConfig& c, const ModelLayout::Layer& l, const T* p, Index n,
                   std::vector<T>& x, BlockCache<T>& s) {
  const Index d = c.d_model, dh = c.d_head(), dm = c.d_mlp();
  const auto heads = static_cast<Index>(c.heads);
  const T scale = T(1) / std::sqrt(static_cast<T>(dh));
  s.x_in = x;
  s.norm1.run(x.data(), n, d, p + l.ln1_gain, p + l.ln1_bias);
  for (auto [out, w] : {std::pair{&s.q, l.w_q}, {&s.k, l.w_k}, {&s.v, l.w_v}}) {
    out->resize(n * d);
    product(out->data(), s.norm1.y.data(), p + w, n, d, d, false);
  }
  s.weights.assign(heads * n * n, T(0));
  s.concat.resize(n * d);
  std::vector<T> qh(n * dh), kh(n * dh), vh(n * dh), oh(n * dh);
  for (Index h = 0; h < heads; ++h) {
    take_columns(s.q.data(), n, d, h * dh, dh, qh.data());
    take_columns(s.k.data(), n, d, h * dh, dh, kh.data());
    take_columns(s.v.data(), n, d, h * dh, dh, vh.data());
    T* a = &s.weights[h * n * n];
    product_bt(a, qh.data(), kh.data(), n, dh, n, false);
    for (Index i = 0; i < n; ++i) {
      T* row = a + i * n;
      T top = row[0] * scale;
      for (Index j = 0; j <= i; ++j) top = std::max(top, row[j] * scale);
      T total = 0;
      for (Index j = 0; j <= i; ++j) total += row[j] = std::exp(row[j] * scale - top);
      for (Index j = 0; j < n; ++j) row[j] = j <= i ? row[j] / total : T(0);
    }
    product(oh.data(), a, vh.data(), n, n, dh, false);
    put_columns(oh.data(), n, d, h * dh, dh, s.concat.data());
  }
  product(x.data(), s.concat.data(), p + l.w_o, n, d, d, true);
  s.norm2.run(x.data(), n, d, p + l.ln2_gain, p + l.ln2_bias);
  s.hidden_in.resize(n * dm);
  product(s.hidden_in.data(), s.norm2.y.data(), p + l.w_fc, n, d, dm, false);
  add_bias(s.hidden_in, p + l.b_fc, n, dm);
  s.hidden.resize(n * dm);
  s.hidden_tanh.resize(n * dm);
  for (Index i = 0; i < n * dm; ++i) {
    s.hidden_tanh[i] = model_ops::gelu_tanh(s.hidden_in[i]);
    s.hidden[i] = model_ops::gelu_from_tanh(s.hidden_in[i], s.hidden_tanh[i]);
  }
  product(x.data(), s.hidden.data(), p + l.w_proj, n, dm, d, true);
  add_bias(x, p + l.b_proj, n, d);
}

// Backward of one block: dx (n, d) = ∂L/∂(block output) in, ∂L/∂(block input) out.
template <class T>
void block_backward(const ModelConfig& c, const ModelLayout::Layer& l, const T* p, Index n,
                    const BlockCache<T>& s, std::vector<T>& dx, T* g) {
  const Index d = c.d_model, dh = c.d_head(), dm = c.d_mlp();
  const auto heads = static_cast<Index>(c.heads);
  const T scale = T(1) / std::sqrt(static_cast<T>(dh));
  // The MLP: out = mid + GELU(norm2·W_fc + b_fc)·W_proj + b_proj.
  add_column_sums(dx, n, d, g + l.b_proj);
  product_at(g + l.w_proj, s.hidden.data(), dx.data(), n, dm, d);
  std::vector<T> d_hidden(n * dm);
  product_bt(d_hidden.data(), dx.data(), p + l.w_proj, n, d, dm, false);
  for (Index i = 0; i < n * dm; ++i)
    d_hidden[i] *= model_ops::gelu_derivative_from_tanh(s.hidden_in[i], s.hidden_tanh[i]);
  add_column_sums(d_hidden, n, dm, g + l.b_fc);
  product_at(g + l.w_fc, s.norm2.y.data(), d_hidden.data(), n, d, dm);
  std::vector<T> d_norm2(n * d);
  product_bt(d_norm2.data(), d_hidden.data(), p + l.w_fc, n, dm, d, false);
  const std::vector<T> d_mid_norm =
      s.norm2.back(d_norm2, n, d, p + l.ln2_gain, g + l.ln2_gain, g + l.ln2_bias);
  for (Index i = 0; i < n * d; ++i) dx[i] += d_mid_norm[i];
  // The attention: mid = in + concat·W_O.
  product_at(g + l.w_o, s.concat.data(), dx.data(), n, d, d);
  std::vector<T> d_concat(n * d), dq(n * d), dk(n * d), dv(n * d);
  product_bt(d_concat.data(), dx.data(), p + l.w_o, n, d, d, false);
  std::vector<T> qh(n * dh), kh(n * dh), vh(n * dh), d_oh(n * dh), d_part(n * dh), da(n * n);
  for (Index h = 0; h < heads; ++h) {
    take_columns(s.q.data(), n, d, h * dh, dh, qh.data());
    take_columns(s.k.data(), n, d, h * dh, dh, kh.data());
    take_columns(s.v.data(), n, d, h * dh, dh, vh.data());
    take_columns(d_concat.data(), n, d, h * dh, dh, d_oh.data());
    const T* a = &s.weights[h * n * n];
    product_bt(da.data(), d_oh.data(), vh.data(), n, dh, n, false);  // ∂A = ∂O·Vᵀ
    std::fill(d_part.begin(), d_part.end(), T(0));
    product_at(d_part.data(), a, d_oh.data(), n, n, dh);  // ∂V = Aᵀ·∂O
    put_columns(d_part.data(), n, d, h * dh, dh, dv.data());
    for (Index i = 0; i < n; ++i) {  // ∂S = scale · A ⊙ (∂A − rowsum(∂A ⊙ A))
      T dot = 0;
      for (Index j = 0; j <= i; ++j) dot += da[i * n + j] * a[i * n + j];
      for (Index j = 0; j < n; ++j)
        da[i * n + j] = j <= i ? scale * a[i * n + j] * (da[i * n + j] - dot) : T(0);
    }
    product(d_part.data(), da.data(), kh.data(), n, n, dh, false);  // ∂Q = ∂S·K
    put_columns(d_part.data(), n, d, h * dh, dh, dq.data());
    std::fill(d_part.begin(), d_part.end(), T(0));
    product_at(d_part.data(), da.data(), qh.data(), n, n, dh);  // ∂K = ∂Sᵀ·Q
    put_columns(d_part.data(), n, d, h * dh, dh, dk.data());
  }
  std::vector<T> d_norm1(n * d, T(0));
  for (auto [grad, w] : {std::pair{&dq, l.w_q}, {&dk, l.w_k}, {&dv, l.w_v}}) {
    product_at(g + w, s.norm1.y.data(), grad->data(), n, d, d);
    product_bt(d_norm1.data(), grad->data(), p + w, n, d, d, true);
  }
  const std::vector<T> d_in_norm =
      s.norm1.back(d_norm1, n, d, p + l.ln1_gain, g + l.ln1_gain, g + l.ln1_bias);
  for (Index i = 0; i < n * d; ++i) dx[i] += d_in_norm[i];
}

}  // namespace

template <class T>
T sequence_loss(const ModelConfig& c, const std::vector<T>& parameters, const int* tokens,
                const int* targets, std::size_t n, T weight, T* g) {
  const ModelLayout layout(c);
  const T* p = parameters.data();
  const Index d = c.d_model, vocab = c.vocab;
  std::vector<T> x(n * d);
  for (Index i = 0; i < n; ++i)
    for (Index j = 0; j < d; ++j)
      x[i * d + j] = p[layout.embedding + static_cast<Index>(tokens[i]) * d + j] +
                     p[layout.positions + i * d + j];
  std::vector<BlockCache<T>> caches(layout.layers.size());
  for (Index l = 0; l < caches.size(); ++l) block_forward(c, layout.layers[l], p, n, x, caches[l]);
  Norm<T> final_norm;
  final_norm.run(x.data(), n, d, p + layout.final_gain, p + layout.final_bias);
  std::vector<T> logits(n * vocab);
  product(logits.data(), final_norm.y.data(), p + layout.unembedding, n, d, vocab, false);

  T loss = 0;
  for (Index i = 0; i < n; ++i) {  // logits become ∂L/∂logits = weight·(softmax − one-hot)
    T* row = &logits[i * vocab];
    if (targets[i] < 0) {
      std::fill(row, row + vocab, T(0));
      continue;
    }
    const T top = *std::max_element(row, row + vocab), target = row[targets[i]];
    T total = 0;
    for (Index j = 0; j < vocab; ++j) total += row[j] = std::exp(row[j] - top);
    loss += std::log(total) + top - target;
    for (Index j = 0; j < vocab; ++j) row[j] = weight * row[j] / total;
    row[targets[i]] -= weight;
  }
  if (!g) return loss;

  product_at(g + layout.unembedding, final_norm.y.data(), logits.data(), n, d, vocab);
  std::vector<T> d_final(n * d);
  product_bt(d_final.data(), logits.data(), p + layout.unembedding, n, vocab, d, false);
  std::vector<T> dx = final_norm.back(d_final, n, d, p + layout.final_gain, g + layout.final_gain,
                                      g + layout.final_bias);
  for (Index l = caches.size(); l-- > 0;)
    block_backward(c, layout.layers[l], p, n, caches[l], dx, g);
  for (Index i = 0; i < n; ++i)
    for (Index j = 0; j < d; ++j) {
      g[layout.embedding + static_cast<Index>(tokens[i]) * d + j] += dx[i * d + j];
      g[layout.positions + i * d + j] += dx[i * d + j];
    }
  return loss;
}

template float sequence_loss<float>(const ModelConfig&, const std::vector<float>&, const int*,
                                    const int*, std::size_t, float, float*);
template double sequence_loss<double>(const ModelConfig&, const std::vector<double>&, const int*,
                                      const int*, std::size_t, double, double*);

}  // namespace attnlab::model_training
