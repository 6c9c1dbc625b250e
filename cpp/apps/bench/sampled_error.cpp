#include "sampled_error.hpp"

#include <algorithm>
#include <cmath>
#include <vector>

namespace attnlab::bench {

double sampled_max_abs_error(const Matrix& q, const Matrix& k, const Matrix& v, int heads,
                             bool causal, std::size_t window, const Matrix& output,
                             std::size_t samples) {
  const std::size_t n = q.rows, d = q.cols / heads, d_v = v.cols / heads;
  const double scale = 1.0 / std::sqrt(static_cast<double>(d));
  const std::size_t count = std::min(samples, n);
  double worst = 0.0;
  std::vector<double> p(k.rows), o(d_v);
  for (std::size_t s = 0; s < count; ++s) {
    const std::size_t i = count == 1 ? n - 1 : s * (n - 1) / (count - 1);  // first … last row
    // The keys [first, keys): up to the query when causal, within `window` of it with a window.
    std::size_t keys = causal ? std::min(i + 1, k.rows) : k.rows;
    if (window > 0) keys = std::min(keys, i + window + 1);
    const std::size_t first = window > 0 && i > window ? i - window : 0;
    for (int h = 0; h < heads; ++h) {
      double max = -INFINITY;
      for (std::size_t j = first; j < keys; ++j) {
        double dot = 0.0;
        for (std::size_t c = 0; c < d; ++c)
          dot += double(q(i, h * d + c)) * double(k(j, h * d + c));
        p[j] = dot * scale;
        max = std::max(max, p[j]);
      }
      double sum = 0.0;
      for (std::size_t j = first; j < keys; ++j) sum += p[j] = std::exp(p[j] - max);
      std::fill(o.begin(), o.end(), 0.0);
      for (std::size_t j = first; j < keys; ++j)
        for (std::size_t c = 0; c < d_v; ++c) o[c] += p[j] / sum * double(v(j, h * d_v + c));
      for (std::size_t c = 0; c < d_v; ++c)
        worst = std::max(worst, std::abs(o[c] - double(output(i, h * d_v + c))));
    }
  }
  return worst;
}

}  // namespace attnlab::bench
