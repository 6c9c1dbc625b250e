// check_gradient(): one entry of a trace's backward steps against central differences of the
// loss L = Σ ∂L/∂Y ⊙ Y, recomputed in float64 from the inputs (reference.hpp), independently of
// the float32 steps it checks.
#include <algorithm>
#include <cmath>
#include <iterator>
#include <limits>
#include <string>
#include <tuple>
#include <utility>
#include <variant>

#include "attnlab/positional.hpp"
#include "attnlab/reference.hpp"
#include "attnlab/trace_backward.hpp"
#include "base/validate.hpp"
#include "teaching/trace_detail.hpp"
#include "teaching/trace_steps.hpp"

namespace attnlab {
namespace {

using MatrixD = BasicMatrix<double>;

// The network in float64: X (with PE added), the weights, and Q, K, V.
struct Net {
  MatrixD x, w_q, w_k, w_v, w_o, q, k, v;
  bool has_w_o = false;
};

void project(Net& n) {
  n.q = reference::matmul(n.x, n.w_q);
  n.k = reference::matmul(n.x, n.w_k);
  n.v = reference::matmul(n.x, n.w_v);
}

// out(r, c) = Σ_l x(r, l) · w(l, c), summed as reference::matmul sums it.
double projected(const MatrixD& x, const MatrixD& w, std::size_t r, std::size_t c) {
  double sum = 0;
  for (std::size_t l = 0; l < x.cols; ++l) sum += x(r, l) * w(l, c);
  return sum;
}

// Q, K and V again after one entry of X or of a weight changed: only X's row or the weight's
// column moves, so only that row of Q, K, V (or that column of one of them) is recomputed,
// to the very values project() would give: O(n·d) instead of O(n·d²) per evaluation.
void reproject(Net& n, std::string_view parameter, std::size_t row, std::size_t col) {
  const std::pair<const MatrixD*, MatrixD*> all[] = {
      {&n.w_q, &n.q}, {&n.w_k, &n.k}, {&n.w_v, &n.v}};
  if (parameter == "X") {
    for (const auto& [w, out] : all)
      for (std::size_t c = 0; c < out->cols; ++c) (*out)(row, c) = projected(n.x, *w, row, c);
    return;
  }
  const auto& [w, out] = all[parameter == "Wq" ? 0 : parameter == "Wk" ? 1 : 2];
  for (std::size_t r = 0; r < out->rows; ++r) (*out)(r, col) = projected(n.x, *w, r, col);
}

// L = Σ ∂L/∂Y ⊙ Y, Y from Q, K, V through every head (and W_O), in float64.
double loss(const Net& n, const TraceInput& input, const MatrixD& d_y) {
  const auto heads = static_cast<std::size_t>(input.heads);
  const std::size_t d_k = n.q.cols / heads, d_v = n.v.cols / heads;
  const auto& o = input.options;
  MatrixD concat(n.q.rows, n.v.cols);
  for (std::size_t h = 0; h < heads; ++h) {
    // The head's rules (ScoreRules::head): its scale and temperature, its rows of the bias.
    const HeadRules rules = o.head(h, heads, n.q.rows, n.k.rows, d_k);
    MatrixD logits = reference::matmul_transposed(column_slice(n.q, h * d_k, d_k),
                                                  column_slice(n.k, h * d_k, d_k));
    reference::scale(logits, (o.scale ? double(*o.scale) : 1.0 / std::sqrt(double(d_k))) /
                                 double(rules.temperature));
    for (std::size_t i = 0; i < logits.rows; ++i)
      for (std::size_t j = 0; j < logits.cols; ++j) {
        double& x = logits(i, j);
        if (o.softcap) x = *o.softcap * std::tanh(x / *o.softcap);
        if (rules.bias) x += rules.bias[i * rules.n_k + j];  // −∞ blocks, as the mask does
        if (rules.blocked_by(i, j)) x = -std::numeric_limits<double>::infinity();
      }
    const MatrixD out =
        reference::matmul(reference::softmax_rows(logits).weights, column_slice(n.v, h * d_v, d_v));
    for (std::size_t i = 0; i < out.rows; ++i)
      std::copy_n(out.row(i), d_v, concat.row(i) + h * d_v);
  }
  const MatrixD y = n.has_w_o ? reference::matmul(concat, n.w_o) : concat;
  double sum = 0;
  for (std::size_t i = 0; i < y.data.size(); ++i) sum += d_y.data[i] * y.data[i];
  return sum;
}

Net network(const TraceInput& input) {
  Net n;
  if (input.w_o) n.w_o = input.w_o->cast<double>(), n.has_w_o = true;
  if (const auto* p = std::get_if<Projections>(&input.source)) {
    n.x = p->x.cast<double>();
    if (input.positional == PositionalEncoding::sinusoidal) {
      const Matrix pe = sinusoidal_encoding(n.x.rows, n.x.cols).value();
      for (std::size_t i = 0; i < n.x.data.size(); ++i) n.x.data[i] += pe.data[i];
    }
    n.w_q = p->w_q.cast<double>(), n.w_k = p->w_k.cast<double>(), n.w_v = p->w_v.cast<double>();
    project(n);
  } else {
    const auto& d = std::get<DirectQKV>(input.source);
    n.q = d.q.cast<double>(), n.k = d.k.cast<double>(), n.v = d.v.cast<double>();
  }
  return n;
}

struct Parameter {
  std::string_view name;
  MatrixD Net::*values;
  const char* gradient;  // the step id whose values (over every head) are ∂L/∂parameter
  bool projects;         // part of the projections: Q, K, V follow from it
};

constexpr Parameter parameters[] = {
    {"X", &Net::x, step::grad_x, true},     {"Q", &Net::q, step::grad_q, false},
    {"K", &Net::k, step::grad_k, false},    {"V", &Net::v, step::grad_v, false},
    {"Wq", &Net::w_q, step::grad_wq, true}, {"Wk", &Net::w_k, step::grad_wk, true},
    {"Wv", &Net::w_v, step::grad_wv, true}, {"Wo", &Net::w_o, step::grad_wo, false}};

// The gradient with id `id` over every head: the per-head steps side by side.
std::optional<Matrix> gradient_of(const Trace& t, std::string_view id) {
  const auto group = std::find_if(t.groups.begin(), t.groups.end(),
                                  [&](const TraceGroup& g) { return g.id == id; });
  if (group == t.groups.end()) return std::nullopt;
  const Matrix& part = t.steps[group->steps.front()].values;
  Matrix out(part.rows, part.cols * group->steps.size());
  for (std::size_t h = 0; h < group->steps.size(); ++h)
    trace_steps::put_columns(out, t.steps[group->steps[h]].values, h * part.cols);
  return out;
}

}  // namespace

Result<GradientCheck> check_gradient(const TraceInput& input, std::string_view parameter,
                                     std::size_t row, std::size_t col) {
  if (!input.d_output)
    return Error{ErrorCode::invalid_argument,
                 "dOutput is missing: the check needs the loss's gradient at the output"};
  const auto* p = std::find_if(std::begin(parameters), std::end(parameters),
                               [&](const Parameter& q) { return q.name == parameter; });
  if (p == std::end(parameters))
    return Error{ErrorCode::invalid_argument,
                 "parameter must be one of X, Q, K, V, Wq, Wk, Wv, Wo, got \"" +
                     std::string(parameter) + "\""};
  auto traced = trace(input);
  if (!traced) return traced.error();
  const auto analytic = gradient_of(traced.value(), p->gradient);
  if (!analytic)
    return Error{ErrorCode::invalid_argument,
                 "parameter " + std::string(parameter) + " is not in this trace (" +
                     (p->gradient == step::grad_wo ? "it has no Wo)" : "it has no X)")};
  for (const auto& [name, index, extent] :
       {std::tuple{"row", row, analytic->rows}, std::tuple{"col", col, analytic->cols}})
    if (index >= extent)
      return validate::formatted(ErrorCode::invalid_argument,
                                 "%s must be a whole number from 0 to %zu (%.*s is %s), got %zu",
                                 name, extent - 1, static_cast<int>(parameter.size()),
                                 parameter.data(), shape_string(*analytic).c_str(), index);

  Net net = network(input);
  const MatrixD d_y = input.d_output->cast<double>();
  double& entry = (net.*(p->values))(row, col);
  const double theta = entry, epsilon = 1e-6 * std::max(1.0, std::abs(theta));
  const auto loss_at = [&](double value) {
    entry = value;
    if (p->projects) reproject(net, parameter, row, col);
    return loss(net, input, d_y);
  };
  const double numeric = (loss_at(theta + epsilon) - loss_at(theta - epsilon)) / (2 * epsilon);
  const double a = (*analytic)(row, col);
  double size = std::max(std::abs(a), std::abs(numeric));
  for (float g : analytic->data) size = std::max(size, double(std::abs(g)));
  return GradientCheck{a, numeric, size > 0 ? std::abs(a - numeric) / size : 0.0, epsilon};
}

}  // namespace attnlab
