// The names the trace tests (trace_test.cpp, variants_test.cpp) take from the core and from
// test_support.hpp, declared once for both.
#pragma once

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
