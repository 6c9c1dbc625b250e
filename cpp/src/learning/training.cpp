// The tiny transformer of training.hpp: forward, backward, its batches and probe (the Trainer's
// Adam steps are trainer.cpp's), written as plain scalar
// loops on purpose. The SIMD kernels sum in a different order per instruction set (AVX-512
// natively, SIMD128 in wasm), and over hundreds of Adam steps such rounding differences would
// part the native and wasm loss curves; scalar loops in one order, compiled with
// -ffp-contract=off (no fused multiply-adds, see cpp/CMakeLists.txt), round alike in every
// build. The sizes are small (limits.hpp), so speed is not the point here.
#include "attnlab/training.hpp"

#include <algorithm>
#include <cmath>

#include "attnlab/head_scores.hpp"
#include "attnlab/limits.hpp"
#include "attnlab/random.hpp"
#include "training_network.hpp"

namespace attnlab {
namespace training {
namespace {

// A matrix read through strides, (i, j) at p[i·row + j·col], so a transpose costs nothing.
template <class T>
struct Strided {
  const T* p;
  std::size_t row, col;
  T operator()(std::size_t i, std::size_t j) const { return p[i * row + j * col]; }
};
// m (rows, cols) as it is, and as mᵀ.
template <class T>
Strided<T> plain(const T* m, std::size_t cols) {
  return {m, cols, 1};
}
template <class T>
Strided<T> transposed(const T* m, std::size_t cols) {
  return {m, 1, cols};
}

// out (r, c) += a (r, k) · b (k, c). Not inlined: eleven call sites, one copy in the download.
template <class T>
[[gnu::noinline]] void add_product(Strided<T> a, Strided<T> b, T* out, std::size_t r, std::size_t k,
                                   std::size_t c) {
  for (std::size_t i = 0; i < r; ++i)
    for (std::size_t j = 0; j < c; ++j) {
      T sum = 0;
      for (std::size_t t = 0; t < k; ++t) sum += a(i, t) * b(t, j);
      out[i * c + j] += sum;
    }
}

// e^x for x ≤ 0 (softmax's shifted scores), the same bits in every build: the C libraries'
// exp (glibc natively, musl in wasm) may differ by an ulp. In double: x = k·ln2 + r with
// |r| ≤ ln2/2, e^r by its Taylor series to r¹¹ (relative error below 1e-14).
double exp_nonpositive(double x) {
  if (x < -700) return 0;
  const double k = std::nearbyint(x * 1.4426950408889634);
  const double r = x - k * 6.93147180369123816490e-01 - k * 1.90821492927058770002e-10;
  double p = 1;
  for (int i = 11; i > 0; --i) p = 1 + r * p / i;
  return std::ldexp(p, static_cast<int>(k));
}

}  // namespace

template <class T>
void forward(const Layout& s, const std::vector<T>& w, const int* tokens, Activations<T>& act) {
  const std::size_t n = s.n, d = s.d, nd = n * d;
  act.x.assign((s.layers + 1) * nd, T(0));
  act.q.assign(s.layers * nd, T(0));
  act.k = act.v = act.z = act.q;
  act.a.assign(s.layers * s.heads * n * n, T(0));
  act.logits.assign(n * s.vocab, T(0));
  for (std::size_t i = 0; i < n; ++i)
    for (std::size_t c = 0; c < d; ++c)
      act.x[i * d + c] = w[static_cast<std::size_t>(tokens[i]) * d + c] + w[s.p + i * d + c];
  const T factor = T(1) / std::sqrt(static_cast<T>(s.d_head));
  for (std::size_t l = 0; l < s.layers; ++l) {
    const T* x = &act.x[l * nd];
    T *q = &act.q[l * nd], *k = &act.k[l * nd], *v = &act.v[l * nd], *z = &act.z[l * nd];
    add_product(plain(x, d), plain(&w[s.w(l, 0)], d), q, n, d, d);
    add_product(plain(x, d), plain(&w[s.w(l, 1)], d), k, n, d, d);
    add_product(plain(x, d), plain(&w[s.w(l, 2)], d), v, n, d, d);
    for (std::size_t h = 0; h < s.heads; ++h) {
      T* a = &act.a[(l * s.heads + h) * n * n];
      const std::size_t first = h * s.d_head;
      for (std::size_t i = 0; i < n; ++i) {
        T* row = a + i * n;
        for (std::size_t j = 0; j <= i; ++j) {
          T score = 0;
          for (std::size_t c = first; c < first + s.d_head; ++c)
            score += q[i * d + c] * k[j * d + c];
          row[j] = score * factor;
        }
        const T top = *std::max_element(row, row + i + 1);
        T sum = 0;
        for (std::size_t j = 0; j <= i; ++j) sum += row[j] = T(exp_nonpositive(row[j] - top));
        for (std::size_t j = 0; j <= i; ++j) {
          row[j] /= sum;
          for (std::size_t c = first; c < first + s.d_head; ++c)
            z[i * d + c] += row[j] * v[j * d + c];
        }
      }
    }
    T* next = &act.x[(l + 1) * nd];
    std::copy(x, x + nd, next);
    add_product(plain<T>(z, d), plain(&w[s.w(l, 3)], d), next, n, d, d);
  }
  add_product(plain(&act.x[s.layers * nd], d), plain(&w[s.u], s.vocab), act.logits.data(), n, d,
              s.vocab);
}

// −log softmax(row)[target] for a row of `vocab` logits; softmax(row) left in `probabilities`.
template <class T>
T cross_entropy(const T* row, std::size_t vocab, int target, T* probabilities) {
  const T top = *std::max_element(row, row + vocab);
  T sum = 0;
  for (std::size_t j = 0; j < vocab; ++j)
    sum += probabilities[j] = T(exp_nonpositive(row[j] - top));
  for (std::size_t j = 0; j < vocab; ++j) probabilities[j] /= sum;
  return top + T(std::log(static_cast<double>(sum))) - row[target];
}

std::size_t target_count(const Batch& batch) {
  return static_cast<std::size_t>(
      std::count_if(batch.targets.begin(), batch.targets.end(), [](int t) { return t >= 0; }));
}

namespace {

// The gradients of one sequence, added into g, from ∂L/∂logits.
template <class T>
void backward(const Layout& s, const std::vector<T>& w, const int* tokens,
              const Activations<T>& act, const std::vector<T>& d_logits, std::vector<T>& g) {
  const std::size_t n = s.n, d = s.d, nd = n * d;
  std::vector<T> dx(nd, T(0)), dz(nd), dq(nd), dk(nd), dv(nd);
  add_product(transposed(&act.x[s.layers * nd], d), plain(d_logits.data(), s.vocab), &g[s.u], d, n,
              s.vocab);
  add_product(plain(d_logits.data(), s.vocab), transposed(&w[s.u], s.vocab), dx.data(), n, s.vocab,
              d);
  const T factor = T(1) / std::sqrt(static_cast<T>(s.d_head));
  for (std::size_t l = s.layers; l-- > 0;) {
    // x_{l+1} = x_l + z·W_O: dx passes through the residual as it is.
    const T *x = &act.x[l * nd], *q = &act.q[l * nd], *k = &act.k[l * nd], *v = &act.v[l * nd];
    add_product(transposed(&act.z[l * nd], d), plain<T>(dx.data(), d), &g[s.w(l, 3)], d, n, d);
    std::fill(dz.begin(), dz.end(), T(0));
    add_product(plain<T>(dx.data(), d), transposed(&w[s.w(l, 3)], d), dz.data(), n, d, d);
    std::fill(dq.begin(), dq.end(), T(0));
    std::fill(dk.begin(), dk.end(), T(0));
    std::fill(dv.begin(), dv.end(), T(0));
    std::vector<T> da(n);
    for (std::size_t h = 0; h < s.heads; ++h) {
      const T* a = &act.a[(l * s.heads + h) * n * n];
      const std::size_t first = h * s.d_head, last = first + s.d_head;
      for (std::size_t i = 0; i < n; ++i) {
        const T* row = a + i * n;
        // dA = dz·Vᵀ, dV += Aᵀ·dz; then the softmax's Jacobian: dS = A ⊙ (dA − Σ A ⊙ dA).
        T dot = 0;
        for (std::size_t j = 0; j <= i; ++j) {
          T sum = 0;
          for (std::size_t c = first; c < last; ++c) {
            sum += dz[i * d + c] * v[j * d + c];
            dv[j * d + c] += row[j] * dz[i * d + c];
          }
          da[j] = sum;
          dot += row[j] * sum;
        }
        for (std::size_t j = 0; j <= i; ++j) {
          const T ds = row[j] * (da[j] - dot) * factor;
          for (std::size_t c = first; c < last; ++c) {
            dq[i * d + c] += ds * k[j * d + c];
            dk[j * d + c] += ds * q[i * d + c];
          }
        }
      }
    }
    add_product(transposed(x, d), plain<T>(dq.data(), d), &g[s.w(l, 0)], d, n, d);
    add_product(transposed(x, d), plain<T>(dk.data(), d), &g[s.w(l, 1)], d, n, d);
    add_product(transposed(x, d), plain<T>(dv.data(), d), &g[s.w(l, 2)], d, n, d);
    add_product(plain<T>(dq.data(), d), transposed(&w[s.w(l, 0)], d), dx.data(), n, d, d);
    add_product(plain<T>(dk.data(), d), transposed(&w[s.w(l, 1)], d), dx.data(), n, d, d);
    add_product(plain<T>(dv.data(), d), transposed(&w[s.w(l, 2)], d), dx.data(), n, d, d);
  }
  for (std::size_t i = 0; i < n; ++i)
    for (std::size_t c = 0; c < d; ++c) {
      g[static_cast<std::size_t>(tokens[i]) * d + c] += dx[i * d + c];
      g[s.p + i * d + c] += dx[i * d + c];
    }
}

// Uniform tokens 0 … vocab − 1 from splitmix64 (the modulo's bias is below 2⁻⁵⁸).
class TokenStream {
 public:
  explicit TokenStream(std::uint64_t state) : state_(state) {}
  int next(std::size_t vocab) {
    return static_cast<int>(splitmix64_mix(state_ += 0x9e3779b97f4a7c15ULL) % vocab);
  }

 private:
  std::uint64_t state_;
};

}  // namespace

std::uint64_t stream(std::uint64_t seed, std::uint64_t index) {
  return splitmix64_mix(splitmix64_mix(seed) + index);
}

std::size_t parameter_count(const TrainingConfig& config) { return Layout(config).total; }

std::vector<float> initial_parameters(const TrainingConfig& config) {
  const Layout s(config);
  // Embeddings N(0, 1); weights N(0, 1/d_model), so each product starts near unit scale.
  NormalStream normal(stream(config.seed, 0));
  const float weight_scale = 1.0f / std::sqrt(static_cast<float>(s.d));
  std::vector<float> w(s.total);
  for (std::size_t i = 0; i < s.total; ++i)
    w[i] = normal.next() * (i < s.first_layer ? 1.0f : weight_scale);
  return w;
}

Batch make_batch(const TrainingConfig& config, std::size_t count, std::uint64_t state) {
  const std::size_t n = config.context_length, m = (n + 1) / 2;
  TokenStream tokens(state);
  Batch b{count, std::vector<int>(count * n), std::vector<int>(count * n, -1)};
  for (std::size_t s = 0; s < count; ++s) {
    int* x = &b.tokens[s * n];
    int* t = &b.targets[s * n];
    // The random tokens before the copy: half for reverse and induction; for
    // induction-anywhere a prefix of 2 … n−2 tokens drawn per sequence, so where the copy
    // starts tells nothing and only the tokens themselves can.
    std::size_t fresh = n;
    if (config.task == TrainingTask::reverse || config.task == TrainingTask::induction) fresh = m;
    if (config.task == TrainingTask::induction_anywhere)
      fresh = 2 + static_cast<std::size_t>(tokens.next(n - 3));
    for (std::size_t i = 0; i < fresh; ++i) x[i] = tokens.next(config.vocab);
    switch (config.task) {
      case TrainingTask::previous_token:
        for (std::size_t i = 1; i < n; ++i) t[i] = x[i - 1];
        break;
      case TrainingTask::copy_first:
        for (std::size_t i = 1; i < n; ++i) t[i] = x[0];
        break;
      case TrainingTask::reverse:
        for (std::size_t i = m; i < n; ++i) x[i] = x[2 * m - 1 - i];
        for (std::size_t i = m - 1; i + 1 < n; ++i) t[i] = x[i + 1];
        break;
      case TrainingTask::induction:
        for (std::size_t i = m; i < n; ++i) x[i] = x[i - m];
        for (std::size_t i = m; i + 1 < n; ++i) t[i] = x[i + 1];
        break;
      case TrainingTask::induction_anywhere:
        for (std::size_t i = fresh; i < n; ++i) x[i] = x[i - fresh];
        for (std::size_t i = fresh; i + 1 < n; ++i) t[i] = x[i + 1];
        break;
    }
  }
  return b;
}

std::size_t probe_period(const TrainingConfig& config) {
  return std::min(config.context_length / 2, config.vocab);
}

Batch make_probe(const TrainingConfig& config, std::size_t count, std::uint64_t state) {
  const std::size_t n = config.context_length, period = probe_period(config);
  TokenStream tokens(state);
  Batch b{count, std::vector<int>(count * n), std::vector<int>(count * n, -1)};
  std::vector<int> ids(config.vocab);
  for (std::size_t s = 0; s < count; ++s) {
    // Distinct tokens (a partial Fisher–Yates shuffle), so each query's earlier copy is one.
    for (std::size_t t = 0; t < ids.size(); ++t) ids[t] = static_cast<int>(t);
    int* x = &b.tokens[s * n];
    for (std::size_t i = 0; i < period; ++i) {
      std::swap(ids[i], ids[i + static_cast<std::size_t>(tokens.next(ids.size() - i))]);
      x[i] = ids[i];
    }
    for (std::size_t i = period; i < n; ++i) x[i] = x[i - period];
  }
  return b;
}

void score_heads(const TrainingConfig& config, const std::vector<float>& parameters,
                 const Batch& probe, TrainingProgress& progress) {
  const Layout s(config);
  const std::size_t period = probe_period(config);
  progress.previous_token.assign(s.layers, std::vector<double>(s.heads, 0.0));
  progress.induction = progress.previous_token;
  Activations<float> act;
  for (std::size_t b = 0; b < probe.count; ++b) {
    forward(s, parameters, &probe.tokens[b * s.n], act);
    for (std::size_t l = 0; l < s.layers; ++l)
      for (std::size_t h = 0; h < s.heads; ++h) {
        const auto first =
            act.a.begin() + static_cast<std::ptrdiff_t>((l * s.heads + h) * s.n * s.n);
        // The probe's shape always suits head_scores (n ≥ 4, 2·period ≤ n).
        const HeadScores scores =
            head_scores(Matrix(s.n, s.n, std::vector<float>(first, first + s.n * s.n)), period)
                .value();
        progress.previous_token[l][h] += scores.previous_token / static_cast<double>(probe.count);
        progress.induction[l][h] += *scores.induction / static_cast<double>(probe.count);
      }
  }
}

template <class T>
T loss_and_gradients(const TrainingConfig& config, const std::vector<T>& parameters,
                     const Batch& batch, std::vector<T>* gradients) {
  const Layout s(config);
  if (gradients) gradients->assign(s.total, T(0));
  const T per_target = T(1) / static_cast<T>(target_count(batch));
  Activations<T> act;
  std::vector<T> d_logits(s.n * s.vocab);
  T loss = 0;
  for (std::size_t b = 0; b < batch.count; ++b) {
    const int* tokens = &batch.tokens[b * s.n];
    const int* targets = &batch.targets[b * s.n];
    forward(s, parameters, tokens, act);
    std::fill(d_logits.begin(), d_logits.end(), T(0));
    for (std::size_t i = 0; i < s.n; ++i) {
      if (targets[i] < 0) continue;
      // ∂/∂row = (softmax − one-hot) / targets.
      T* d_row = &d_logits[i * s.vocab];
      loss += cross_entropy(&act.logits[i * s.vocab], s.vocab, targets[i], d_row) * per_target;
      for (std::size_t j = 0; j < s.vocab; ++j) d_row[j] *= per_target;
      d_row[targets[i]] -= per_target;
    }
    if (gradients) backward(s, parameters, tokens, act, d_logits, *gradients);
  }
  return loss;
}

template float loss_and_gradients(const TrainingConfig&, const std::vector<float>&, const Batch&,
                                  std::vector<float>*);
// The gradient checks' float64 (tests/cpp/training_test.cpp, natively and in wasm); the
// modules never call it, so link-time optimisation leaves it out of the download.
template double loss_and_gradients(const TrainingConfig&, const std::vector<double>&, const Batch&,
                                   std::vector<double>*);

// forward() and cross_entropy() for the trainer (float) and the gradient checks (float64).
template void forward(const Layout&, const std::vector<float>&, const int*, Activations<float>&);
template void forward(const Layout&, const std::vector<double>&, const int*, Activations<double>&);
template float cross_entropy(const float*, std::size_t, int, float*);
template double cross_entropy(const double*, std::size_t, int, double*);

}  // namespace training
}  // namespace attnlab
