// What trace.cpp and trace_backward.cpp share to build steps: one way to add a step, name an
// operand and write a head's symbols, so forward and backward steps read alike.
#pragma once

#include <algorithm>
#include <cstddef>
#include <optional>
#include <string>
#include <vector>

#include "attnlab/error.hpp"
#include "attnlab/trace.hpp"

namespace attnlab::trace_steps {

// A number as it reads in a formula: "2", "0.5", "1.41421".
std::string tex_number(double value);

// Formula symbols, with the head's number when there are several: {Q^{(2)}}. The braces
// let a symbol take its own sub- or superscript, as in {K^{(2)}}^\top or {A^{(2)}}_{ij}.
struct Symbols {
  std::string head;  // "(2)", or empty with a single head
  std::string of(const std::string& base) const {
    return head.empty() ? base : "{" + base + "^{" + head + "}}";
  }
  // The tilde over the letter alone: \tilde{S}^{(1)}, not a tilde stretched over S^{(1)}.
  std::string tilde(const std::string& base) const { return of("\\tilde{" + base + "}"); }
};

// Appends a step and returns its index in t.steps.
std::size_t add_step(Trace& t, const char* id, std::optional<int> head, std::string title,
                     std::string formula, Matrix values, std::vector<Operand> operands);

// An operand that is the result of step `index`, carried by reference.
Operand step_result(const Trace& t, std::size_t index, const char* symbol);

// An operand with values of its own: an input, or a head's slice of one.
Operand own(std::string name, const char* symbol, std::optional<int> head, Matrix values);

// The first step from `first` on whose values float32 could not hold (validate::overflowed):
// the trace's one check of what it computed after its input checks, forward and backward.
// The mask step's −∞ marks a masked cell, not an overflow.
std::optional<Error> overflowed_step(const Trace& t, std::size_t first);

// With d_output, every input within limits::backward_tokens and backward_features.
std::optional<Error> check_backward_size(const TraceInput& input);

// The backward steps after the forward ones (trace_backward.cpp), when input.d_output is set.
std::optional<Error> add_backward_steps(Trace& t, const TraceInput& input);

// Columns [first, first + m.cols) of out = m: one head's part of a whole-width matrix.
inline void put_columns(Matrix& out, const Matrix& m, std::size_t first) {
  for (std::size_t r = 0; r < m.rows; ++r) std::copy_n(m.row(r), m.cols, out.row(r) + first);
}

}  // namespace attnlab::trace_steps
