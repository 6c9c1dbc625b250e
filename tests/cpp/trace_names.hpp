// The names the trace tests (trace_test.cpp, trace_operands_test.cpp, trace_backward_test.cpp,
// variants_test.cpp) take from the core and from test_support.hpp, and their two shared
// helpers, declared once for all.
#pragma once

#include <cstddef>
#include <cstdint>

#include "attnlab/trace.hpp"
#include "test_support.hpp"

using attnlab::DirectQKV;
using attnlab::Matrix;
using attnlab::Projections;
using attnlab::Trace;
using attnlab::TraceInput;
using attnlab::TraceStep;
using attnlab::test::max_abs_diff;
using attnlab::test::ok;
using attnlab::test::random_matrix;
namespace step = attnlab::step;

// The trace of `input`, which must succeed.
inline Trace run(const TraceInput& input) { return ok(attnlab::trace(input)); }

// A trace input of Q (n_q, qk_width), K (n_k, qk_width), V (n_k, v_width), from seeds seed,
// seed + 1, seed + 2.
inline TraceInput direct(std::size_t n_q, std::size_t n_k, std::size_t qk_width,
                         std::size_t v_width, std::uint32_t seed) {
  TraceInput input;
  input.source = attnlab::test::random_qkv(n_q, n_k, qk_width, v_width, seed);
  return input;
}
