// One pass over a flash call's queries, and keys where asked (internal; flash.cpp): whether
// every value is finite, for the call's checks, and the largest |value| of each sequence's heads
// of Q and K, which bound the call's scores. Scanned in chunks of rows by the call's workers: the
// check's own scan and a second pass for the bounds were two serial passes over Q and K (a
// tenth of a 2-thread call at n = 256). The flash kernel scans K and V as it gathers them.
#pragma once

#include <cstddef>
#include <vector>

#include "attnlab/flash.hpp"

namespace attnlab::flash_tasks {

struct InputScan {
  bool finite = true;        // Q's values, and K's where scanned
  std::vector<float> q_max;  // (batch, heads): max |Q| over a sequence's rows of each head
  std::vector<float> k_max;  // (batch, K/V heads): the same of K
};

// For inputs whose shapes passed flash_tasks::check (heads, kv_heads and batch divide them).
// The maxima mean nothing where `finite` is false. Without k, only Q is scanned (k_max stays 0).
InputScan scan_inputs(const Matrix& q, const Matrix* k, const LongAttentionOptions& o,
                      std::size_t threads);

}  // namespace attnlab::flash_tasks
