// The trace's step builders (trace_steps.hpp), shared by the forward steps (trace.cpp) and
// the backward ones (trace_backward.cpp).
#include "teaching/trace_steps.hpp"

#include <cmath>
#include <cstdio>
#include <limits>
#include <string>
#include <utility>

#include "base/validate.hpp"

namespace attnlab {
namespace trace_steps {

std::string tex_number(double value) {
  char buffer[32];
  std::snprintf(buffer, sizeof buffer, "%g", value);
  return buffer;
}

std::size_t add_step(Trace& t, const char* id, std::optional<int> head, std::string title,
                     std::string formula, Matrix values, std::vector<Operand> operands) {
  TraceStep s;
  s.id = id;
  s.head = head;
  s.title = std::move(title);
  s.formula = std::move(formula);
  s.row_totals.assign(values.rows, 0.0);
  for (std::size_t r = 0; r < values.rows; ++r)
    for (std::size_t c = 0; c < values.cols; ++c)
      if (std::isfinite(values(r, c))) s.row_totals[r] += values(r, c);  // masked (−∞) left out
  s.values = std::move(values);
  s.operands = std::move(operands);
  t.steps.push_back(std::move(s));
  return t.steps.size() - 1;
}

std::optional<Error> overflowed_step(const Trace& t, std::size_t first) {
  for (std::size_t i = first; i < t.steps.size(); ++i) {
    const TraceStep& s = t.steps[i];
    // A masked cell's −∞ is the mask step's meaning, and a −∞ bias entry's the bias step's; their
    // other values are attention()'s checked logits, so they never reach the message below.
    const bool blocks = s.id == step::mask || s.id == step::bias;
    for (float v : s.values.data)
      if (!std::isfinite(v) && !(blocks && v == -std::numeric_limits<float>::infinity()))
        return validate::overflowed("the step " + s.id, s.values);
  }
  return std::nullopt;
}

Operand step_result(const Trace& t, std::size_t index, const char* symbol) {
  return Operand{t.steps[index].id, symbol, t.steps[index].head, index, std::nullopt};
}

Operand own(std::string name, const char* symbol, std::optional<int> head, Matrix values) {
  return Operand{std::move(name), symbol, head, std::nullopt, std::move(values)};
}

}  // namespace trace_steps

}  // namespace attnlab
