// Computes attention with the installed attnlab and checks it against a float64 loop written
// here, under every instruction set this CPU runs. Exits 1 on a mismatch.
#include <algorithm>
#include <attnlab/attnlab.hpp>
#include <cmath>
#include <cstdio>
#include <vector>

namespace {

// A deterministic (rows, cols) matrix with entries in [-1, 1].
attnlab::Matrix wave(std::size_t rows, std::size_t cols, double phase) {
  attnlab::Matrix m(rows, cols);
  for (std::size_t r = 0; r < rows; ++r)
    for (std::size_t c = 0; c < cols; ++c)
      m(r, c) = static_cast<float>(std::sin(0.37 * double(r) + 1.1 * double(c) + phase));
  return m;
}

// softmax(q·kᵀ / √d) · v in float64, query i seeing keys 0 … i when causal.
std::vector<double> attention_f64(const attnlab::Matrix& q, const attnlab::Matrix& k,
                                  const attnlab::Matrix& v, bool causal) {
  std::vector<double> out(q.rows * v.cols, 0.0);
  for (std::size_t i = 0; i < q.rows; ++i) {
    const std::size_t keys = causal ? i + 1 : k.rows;
    std::vector<double> score(keys);
    double max = -INFINITY, sum = 0.0;
    for (std::size_t j = 0; j < keys; ++j) {
      double dot = 0.0;
      for (std::size_t c = 0; c < q.cols; ++c) dot += double(q(i, c)) * double(k(j, c));
      score[j] = dot / std::sqrt(double(q.cols));
      max = std::max(max, score[j]);
    }
    for (double& s : score) sum += s = std::exp(s - max);
    for (std::size_t j = 0; j < keys; ++j)
      for (std::size_t c = 0; c < v.cols; ++c) out[i * v.cols + c] += score[j] / sum * v(j, c);
  }
  return out;
}

double max_error(const attnlab::Matrix& got, const std::vector<double>& want) {
  double worst = 0.0;
  for (std::size_t i = 0; i < want.size(); ++i)
    worst = std::max(worst, std::abs(double(got.data[i]) - want[i]));
  return worst;
}

}  // namespace

int main() {
  constexpr double tolerance = 1e-5;  // float32 rounding over 70 keys of width 12
  const attnlab::Matrix q = wave(70, 12, 0.0), k = wave(70, 12, 0.5), v = wave(70, 5, 1.0);
  const std::vector<double> plain = attention_f64(q, k, v, false);
  const std::vector<double> causal = attention_f64(q, k, v, true);
  int tested = 0, failures = 0;
  for (const attnlab::kernels::SimdArch& arch : attnlab::kernels::simd_arches()) {
    if (!arch.available || attnlab::kernels::force_simd_arch(arch.name)) continue;
    attnlab::LongAttentionOptions options;
    options.causal = true;
    const auto one = attnlab::attention(q, k, v);
    const auto flash = attnlab::flash_attention(q, k, v, options);
    if (!one || !flash) {
      std::fprintf(stderr, "attnlab-consumer: %s: a call failed\n", arch.name.c_str());
      return 1;
    }
    const double errors[] = {max_error(one.value().output, plain),
                             max_error(flash.value().output, causal)};
    std::printf("%-10s attention %.1e, flash (causal) %.1e\n", attnlab::kernels::simd_arch(),
                errors[0], errors[1]);
    for (double e : errors) failures += !(e <= tolerance);
    ++tested;
  }
  if (tested == 0 || failures)
    std::fprintf(stderr,
                 "attnlab-consumer: %d instruction sets tested, %d results off by more than %g\n",
                 tested, failures, tolerance);
  return tested == 0 || failures ? 1 : 0;
}
