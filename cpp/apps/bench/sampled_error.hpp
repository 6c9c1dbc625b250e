// Max abs error of an attention output against float64, on a sample of query rows: a full
// float64 reference would cost as much as the benchmark itself at n = 16,384.
#pragma once

#include <cstddef>

#include "attnlab/matrix.hpp"

namespace attnlab::bench {

// output: (n, heads·d) from q, k, v of the same shape; checks `samples` evenly spaced rows.
// window > 0: query i sees keys from i − window on (a window of that many keys to the left).
double sampled_max_abs_error(const Matrix& q, const Matrix& k, const Matrix& v, int heads,
                             bool causal, std::size_t window, const Matrix& output,
                             std::size_t samples = 64);

}  // namespace attnlab::bench
