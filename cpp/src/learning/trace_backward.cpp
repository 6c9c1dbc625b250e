// The trace's backward steps: the gradients of L = Σ ∂L/∂Y ⊙ Y from the output back to Q, K, V
// and, with projections, to W_Q, W_K, W_V and X. Each step reads the forward steps it needs
// (the weights A, the head slices, C) from the trace itself. gradient_check.cpp checks them.
#include "attnlab/trace_backward.hpp"

#include <algorithm>
#include <cmath>
#include <limits>
#include <string>
#include <tuple>
#include <utility>
#include <variant>
#include <vector>

#include "attnlab/kernels.hpp"
#include "attnlab/limits.hpp"
#include "attnlab/positional.hpp"
#include "attnlab/reference.hpp"
#include "base/validate.hpp"
#include "teaching/trace_detail.hpp"
#include "teaching/trace_steps.hpp"

namespace attnlab {
namespace trace_steps {
namespace {

using validate::Problem;

// The step with this id and head; the forward steps the backward reads always exist.
std::size_t find_step(const Trace& t, std::string_view id, std::optional<int> head) {
  std::size_t i = 0;
  while (t.steps[i].id != id || t.steps[i].head != head) ++i;
  return i;
}

// Head h's softcap step, or null without soft-capping.
const TraceStep* find_softcap(const Trace& t, std::optional<int> head) {
  for (const TraceStep& step : t.steps)
    if (step.id == step::softcap && step.head == head) return &step;
  return nullptr;
}

// "\frac{\partial L}{\partial Q}": the gradient of the loss with respect to a symbol.
std::string grad(const std::string& symbol) {
  return "\\frac{\\partial L}{\\partial " + symbol + "}";
}

// ∂L/∂M for a symbol M that is one head's slice of a whole-width gradient (or all of it).
Operand slice_of(const Trace& t, std::size_t whole, const char* symbol, std::optional<int> head,
                 std::size_t heads, std::size_t first, std::size_t width) {
  if (heads == 1) return step_result(t, whole, symbol);
  return own(t.steps[whole].id, symbol, head, column_slice(t.steps[whole].values, first, width));
}

// The rows whose Jacobian grad-softmax keeps (TraceInput::jacobian_row).
Result<std::vector<std::size_t>> jacobian_rows(const TraceInput& input, std::size_t n_q,
                                               std::size_t n_k) {
  if (input.jacobian_row) {
    if (*input.jacobian_row < n_q) return std::vector<std::size_t>{*input.jacobian_row};
    return validate::formatted(ErrorCode::invalid_argument,
                               "jacobianRow must be a whole number from 0 to %zu (a query row), "
                               "got %zu",
                               n_q - 1, *input.jacobian_row);
  }
  const std::size_t rows =
      n_q * n_k * n_k * static_cast<std::size_t>(input.heads) <= limits::trace_scores ? n_q : 1;
  std::vector<std::size_t> out(rows);
  for (std::size_t i = 0; i < rows; ++i) out[i] = i;
  return out;
}

// diag(a) − aaᵀ for the weights a of one row: (n_k, n_k).
Matrix softmax_jacobian(const Matrix& a, std::size_t row) {
  Matrix j(a.cols, a.cols);
  for (std::size_t r = 0; r < a.cols; ++r)
    for (std::size_t c = 0; c < a.cols; ++c)
      j(r, c) = (r == c ? a(row, r) : 0.0f) - a(row, r) * a(row, c);
  return j;
}

struct Widths {
  std::size_t heads, d_k, d_v;
};

// Head h's steps, grad-v … grad-k; adds its ∂Q, ∂K, ∂V into the whole-width d_q, d_k, d_v.
void add_head_gradients(Trace& t, std::size_t h, const Widths& w, std::size_t d_concat,
                        const std::vector<std::size_t>& rows, Matrix& d_q, Matrix& d_k,
                        Matrix& d_v) {
  const std::optional<int> head =
      w.heads > 1 ? std::optional<int>(static_cast<int>(h)) : std::nullopt;
  const Symbols s{head ? "(" + std::to_string(*head + 1) + ")" : ""};
  const std::size_t softmax = find_step(t, step::softmax, head);
  const std::size_t scores = find_step(t, step::scores, head);
  const float factor = t.steps[find_step(t, step::scale, head)].scaling->factor;
  const Operand q = t.steps[scores].operands[0], k = t.steps[scores].operands[1];
  const Operand v = t.steps[find_step(t, step::aggregate, head)].operands[1];
  const Operand d_o = slice_of(t, d_concat, "∂O", head, w.heads, h * w.d_v, w.d_v);
  const Matrix a = t.steps[softmax].values;          // (n_q, n_k)
  const Matrix d_o_values = operand_values(t, d_o);  // a copy: add_step moves the steps

  const Matrix dv = kernels::matmul(reference::transpose(a), d_o_values);  // (n_k, d_v)
  put_columns(d_v, dv, h * w.d_v);
  add_step(t, step::grad_v, head, "Values' gradient: each key gathers what its weight carried",
           grad(s.of("V")) + " = " + s.of("A") + "^\\top " + grad(s.of("O")), dv,
           {step_result(t, softmax, "A"), d_o});
  const std::size_t weights =
      add_step(t, step::grad_weights, head, "Weights' gradient: how each weight moves the loss",
               grad(s.of("A")) + " = " + grad(s.of("O")) + " " + s.of("V") + "^\\top",
               kernels::matmul_transposed(d_o_values, operand_values(t, v)), {d_o, v});

  // Through softmax, row by row: ∂s̃ = (diag(a) − aaᵀ)·∂a = a ⊙ (∂a − a·∂a).
  Matrix ds = t.steps[weights].values;  // (n_q, n_k)
  SoftmaxJacobian jacobian{std::vector<float>(a.rows), rows, {}};
  for (std::size_t i = 0; i < a.rows; ++i) {
    for (std::size_t j = 0; j < a.cols; ++j) jacobian.row_dot[i] += ds(i, j) * a(i, j);
    for (std::size_t j = 0; j < a.cols; ++j)  // a masked or underflowed weight passes nothing
      ds(i, j) = a(i, j) == 0.0f ? 0.0f : a(i, j) * (ds(i, j) - jacobian.row_dot[i]);
  }
  for (std::size_t row : rows) jacobian.jacobians.push_back(softmax_jacobian(a, row));
  const std::size_t logits = add_step(
      t, step::grad_softmax, head, "Through softmax: its Jacobian diag(a) − aaᵀ, row by row",
      grad(s.tilde("S")) + " = " + s.of("A") + " \\odot \\left(" + grad(s.of("A")) +
          " - \\operatorname{rowsum}\\left(" + grad(s.of("A")) + " \\odot " + s.of("A") +
          "\\right)\\right)",
      ds, {step_result(t, softmax, "A"), step_result(t, weights, "∂A")});
  t.steps.back().jacobian = std::move(jacobian);

  // A bias adds a constant, so ∂S̃ passes it unchanged. Soft-capping c·tanh(x/c) has the
  // derivative 1 − tanh²(x/c) = 1 − (capped/c)², read from the softcap step's own values.
  std::string through = tex_number(factor) + " \\cdot ";
  std::vector<Operand> from{step_result(t, logits, "∂S̃")};
  if (const TraceStep* softcap = find_softcap(t, head)) {
    const float c = *softcap->softcap;
    for (std::size_t i = 0; i < ds.data.size(); ++i) {
      const float ratio = softcap->values.data[i] / c;
      ds.data[i] *= 1.0f - ratio * ratio;
    }
    through += "\\left(1 - \\left(" + s.tilde("S") + "_{\\text{cap}} / " + tex_number(c) +
               "\\right)^{2}\\right) \\odot ";
    from.push_back(
        step_result(t, static_cast<std::size_t>(softcap - t.steps.data()), "S̃ (capped)"));
  }
  kernels::scale(ds, factor);
  const std::size_t d_scores =
      add_step(t, step::grad_scores, head,
               from.size() > 1 ? "Through the cap and the scale: masked cells pass no gradient"
                               : "Through the scale: masked cells pass no gradient",
               grad(s.of("S")) + " = " + through + grad(s.tilde("S")), ds, std::move(from));
  const Matrix dq = kernels::matmul(ds, operand_values(t, k));
  put_columns(d_q, dq, h * w.d_k);
  add_step(t, step::grad_q, head, "Queries' gradient",
           grad(s.of("Q")) + " = " + grad(s.of("S")) + " " + s.of("K"), dq,
           {step_result(t, d_scores, "∂S"), k});
  const Matrix dk = kernels::matmul(reference::transpose(ds), operand_values(t, q));
  put_columns(d_k, dk, h * w.d_k);
  add_step(t, step::grad_k, head, "Keys' gradient",
           grad(s.of("K")) + " = " + grad(s.of("S")) + "^\\top " + s.of("Q"), dk,
           {step_result(t, d_scores, "∂S"), q});
}

// An operand for a whole-width gradient: the per-head step itself with one head.
Operand whole(const Trace& t, const char* id, const char* symbol, std::size_t heads,
              Matrix values) {
  if (heads == 1) return step_result(t, find_step(t, id, std::nullopt), symbol);
  return own(id, symbol, std::nullopt, std::move(values));
}

// grad-wq, grad-wk, grad-wv and grad-x, through Q = X W_Q, K = X W_K, V = X W_V.
void add_projection_gradients(Trace& t, const Projections& p, std::size_t heads, Matrix d_q,
                              Matrix d_k, Matrix d_v, bool positional) {
  const Operand x = t.steps[find_step(t, step::project_q, std::nullopt)].operands[0];
  const Matrix x_t = reference::transpose(operand_values(t, x));
  const Operand dq = whole(t, step::grad_q, "∂Q", heads, d_q);
  const Operand dk = whole(t, step::grad_k, "∂K", heads, d_k);
  const Operand dv = whole(t, step::grad_v, "∂V", heads, d_v);
  const std::string x_symbol = positional ? "(X + \\mathrm{PE})" : "X";
  add_step(t, step::grad_wq, std::nullopt, "W_Q's gradient, over every head",
           grad("W_Q") + " = " + x_symbol + "^\\top " + grad("Q"), kernels::matmul(x_t, d_q),
           {x, dq});
  add_step(t, step::grad_wk, std::nullopt, "W_K's gradient, over every head",
           grad("W_K") + " = " + x_symbol + "^\\top " + grad("K"), kernels::matmul(x_t, d_k),
           {x, dk});
  add_step(t, step::grad_wv, std::nullopt, "W_V's gradient, over every head",
           grad("W_V") + " = " + x_symbol + "^\\top " + grad("V"), kernels::matmul(x_t, d_v),
           {x, dv});
  Matrix dx = kernels::matmul_transposed(d_q, p.w_q);
  const Matrix via_k = kernels::matmul_transposed(d_k, p.w_k);
  const Matrix via_v = kernels::matmul_transposed(d_v, p.w_v);
  for (std::size_t i = 0; i < dx.data.size(); ++i) dx.data[i] += via_k.data[i] + via_v.data[i];
  add_step(t, step::grad_x, std::nullopt,
           positional ? "The tokens' gradient, through all three projections (PE has no "
                        "parameters: X gets what X + PE gets)"
                      : "The tokens' gradient, through all three projections",
           grad("X") + " = " + grad("Q") + " W_Q^\\top + " + grad("K") + " W_K^\\top + " +
               grad("V") + " W_V^\\top",
           std::move(dx),
           {dq, own("Wq", "W_Q", std::nullopt, p.w_q), dk, own("Wk", "W_K", std::nullopt, p.w_k),
            dv, own("Wv", "W_V", std::nullopt, p.w_v)});
}

// The variant the backward steps do not differentiate, or null: they follow multi-head
// attention with its masks (a sliding window included), soft-capping and a given bias, not
// RoPE's rotation, ALiBi, dropout, K and V shared across heads, keys from a context, or a past
// cache.
const char* unfollowed_variant(const TraceInput& input) {
  if (input.rope) return "RoPE (rope)";
  if (input.options.past_key || input.options.past_value) return "a past cache (pastKey)";
  if (input.options.alibi) return "ALiBi (alibi)";
  if (input.dropout > 0.0f) return "dropout";
  if (input.kv_heads != 0 && input.kv_heads != input.heads) return "shared K/V heads (kvHeads)";
  const auto* projections = std::get_if<Projections>(&input.source);
  if (projections && projections->context) return "cross-attention (context)";
  return nullptr;
}

}  // namespace

std::optional<Error> check_backward_size(const TraceInput& input) {
  std::vector<std::pair<const char*, const Matrix*>> inputs;
  if (const auto* p = std::get_if<Projections>(&input.source)) {
    inputs = {{"X", &p->x}, {"Wq", &p->w_q}, {"Wk", &p->w_k}, {"Wv", &p->w_v}};
    if (p->context) inputs.emplace_back("context", &*p->context);
  } else {
    const auto& d = std::get<DirectQKV>(input.source);
    inputs = {{"Q", &d.q}, {"K", &d.k}, {"V", &d.v}};
  }
  if (input.w_o) inputs.emplace_back("Wo", &*input.w_o);
  for (const auto& [name, m] : inputs) {
    // A weight's rows are X's features, not tokens.
    const bool weight = name[0] == 'W';
    const std::size_t rows = weight ? limits::backward_features : limits::backward_tokens;
    if (m->rows > rows || m->cols > limits::backward_features)
      return validate::formatted(
          ErrorCode::too_large,
          "%s (%s) is too large for the backward steps (dOutput): they take at most %zu tokens "
          "and %zu features, as they and the gradient check cost several times the forward",
          name, shape_string(*m).c_str(), limits::backward_tokens, limits::backward_features);
  }
  return std::nullopt;
}

std::optional<Error> add_backward_steps(Trace& t, const TraceInput& input) {
  if (const char* variant = unfollowed_variant(input))
    return Error{ErrorCode::invalid_argument,
                 std::string("dOutput: the backward steps do not follow ") + variant +
                     " yet; turn it off to see the gradients"};
  const Matrix& d_y = *input.d_output;
  if (auto e = validate::same_extent("dOutput", d_y, true, "the output", t.output, true,
                                     "dOutput is ∂L/∂Y, one row per output row"))
    return e;
  if (auto e = validate::same_extent("dOutput", d_y, false, "the output", t.output, false,
                                     "dOutput is ∂L/∂Y, one column per output column"))
    return e;
  if (auto e = validate::finite("dOutput", d_y)) return e;
  const std::size_t first = t.steps.size();
  const std::size_t n_q = t.output.rows;
  const auto heads = static_cast<std::size_t>(input.heads);
  const TraceStep& head0 =
      t.steps[find_step(t, step::scores, heads > 1 ? 0 : std::optional<int>())];
  const Widths w{
      heads, operand_values(t, head0.operands[0]).cols,
      operand_values(t, t.steps[find_step(t, step::aggregate, head0.head)].operands[1]).cols};
  const std::size_t n_k = head0.values.cols;
  auto rows = jacobian_rows(input, n_q, n_k);
  if (!rows) return rows.error();

  // The output as the forward steps name it: Y after W_O, else C (heads side by side) or O.
  const char* output = input.w_o ? "Y" : heads > 1 ? "C" : "O";
  std::size_t d_concat = add_step(
      t, step::grad_output, std::nullopt, "The upstream gradient at the output, given",
      grad(output) + " \\text{ (given: the upstream gradient, not computed here)}", d_y, {});
  if (input.w_o) {
    const char* c = heads > 1 ? "C" : "O";
    const Operand concat = t.steps[find_step(t, step::output_projection, std::nullopt)].operands[0];
    add_step(t, step::grad_wo, std::nullopt, "W_O's gradient",
             grad("W_O") + " = " + c + "^\\top " + grad("Y"),
             kernels::matmul(reference::transpose(operand_values(t, concat)), d_y),
             {concat, step_result(t, d_concat, "∂Y")});
    d_concat = add_step(
        t, step::grad_concat, std::nullopt,
        "Back through W_O: each head's slice is its output's gradient",
        grad(c) + " = " + grad("Y") + " W_O^\\top", kernels::matmul_transposed(d_y, *input.w_o),
        {step_result(t, d_concat, "∂Y"), own("Wo", "W_O", std::nullopt, *input.w_o)});
  }
  Matrix d_q(n_q, heads * w.d_k), d_k(n_k, heads * w.d_k), d_v(n_k, heads * w.d_v);
  for (std::size_t h = 0; h < heads; ++h)
    add_head_gradients(t, h, w, d_concat, rows.value(), d_q, d_k, d_v);
  if (const auto* p = std::get_if<Projections>(&input.source))
    add_projection_gradients(t, *p, heads, std::move(d_q), std::move(d_k), std::move(d_v),
                             input.positional != PositionalEncoding::none);
  return overflowed_step(t, first);
}

}  // namespace trace_steps

Result<Trace> trace(const TraceInput& input) {
  if (input.d_output)
    if (auto e = trace_steps::check_backward_size(input)) return *e;
  auto t = detail::forward_steps(input, &detail::family_steps());
  if (!t) return t;
  if (input.d_output)
    if (auto e = trace_steps::add_backward_steps(t.value(), input)) return *e;
  detail::group(t.value());
  return t;
}

}  // namespace attnlab
