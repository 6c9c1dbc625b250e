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

namespace {

constexpr float blocked = -std::numeric_limits<float>::infinity();

// Whether cell k of step s is a blocked key's −∞ rather than an overflow: the mask step's
// meaning, a −∞ bias entry's, or a block that s carries on from an operand of its own shape
// (a later step over the masked scores), so a new step needs no entry here.
bool carries_block(const Trace& t, const TraceStep& s, std::size_t k) {
  if (s.id == step::mask || s.id == step::bias) return true;
  for (const Operand& o : s.operands) {
    const Matrix* m = o.step ? &t.steps[*o.step].values : nullptr;
    if (m && m->rows == s.values.rows && m->cols == s.values.cols && m->data[k] == blocked)
      return true;
  }
  return false;
}

}  // namespace

std::optional<Error> overflowed_step(const Trace& t, std::size_t first) {
  for (std::size_t i = first; i < t.steps.size(); ++i) {
    const TraceStep& s = t.steps[i];
    // The blocked cells' −∞ is the steps' meaning; the other values are attention()'s checked
    // logits and what follows from them, so an overflow is the message below.
    for (std::size_t k = 0; k < s.values.data.size(); ++k) {
      const float v = s.values.data[k];
      if (!std::isfinite(v) && !(v == blocked && carries_block(t, s, k)))
        return validate::overflowed("the step " + s.id, s.values);
    }
  }
  return std::nullopt;
}

Operand step_result(const Trace& t, std::size_t index, const char* symbol) {
  return Operand{t.steps[index].id, symbol, t.steps[index].head, index, std::nullopt, std::nullopt};
}

Operand own(std::string name, const char* symbol, std::optional<int> head, Matrix values) {
  return Operand{std::move(name), symbol, head, std::nullopt, std::move(values), std::nullopt};
}

}  // namespace trace_steps

}  // namespace attnlab
