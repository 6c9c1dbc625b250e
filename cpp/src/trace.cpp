#include "attnlab/trace.hpp"

#include <algorithm>
#include <cstdio>
#include <string>

#include "attnlab/kernels.hpp"
#include "attnlab/limits.hpp"
#include "attnlab/positional.hpp"
#include "validate.hpp"

namespace attnlab {
namespace {

using validate::Problem;

// A number as it reads in a formula: "2", "0.5", "1.41421".
std::string tex_number(double value) {
  char buffer[32];
  std::snprintf(buffer, sizeof buffer, "%g", value);
  return buffer;
}

Problem check_matrix(std::string_view name, const Matrix& m, std::size_t max_rows) {
  if (auto p = validate::not_empty(name, m)) return p;
  if (auto p = validate::within(name, m, max_rows, limits::trace_features, "the trace")) return p;
  return validate::finite(name, m);
}

Problem check_heads(int heads, std::string_view q_name, const Matrix& q, std::string_view v_name,
                    const Matrix& v) {
  if (auto p =
          validate::count_within("heads", heads, 1, limits::max_heads, ErrorCode::invalid_argument))
    return p;
  for (const auto& [name, m] : {std::pair{q_name, &q}, std::pair{v_name, &v}})
    if (m->cols % static_cast<std::size_t>(heads) != 0)
      return Error{ErrorCode::invalid_argument,
                   std::to_string(heads) + " heads do not divide the " + std::to_string(m->cols) +
                       " columns of " + std::string(name) + " (" + shape_string(*m) +
                       "): each head needs an equal slice"};
  return std::nullopt;
}

Problem check_source(const Projections& p, int heads, PositionalEncoding) {
  if (auto e = check_matrix("X", p.x, limits::trace_tokens)) return e;
  const std::pair<const char*, const Matrix*> weights[] = {
      {"W_Q", &p.w_q}, {"W_K", &p.w_k}, {"W_V", &p.w_v}};
  for (const auto& [name, w] : weights) {
    if (auto e = check_matrix(name, *w, limits::trace_features)) return e;
    if (auto e = validate::same_extent("X", p.x, false, name, *w, true,
                                       "X·W needs one row of W per column of X (d_model)"))
      return e;
  }
  if (auto e = validate::same_extent("W_Q", p.w_q, false, "W_K", p.w_k, false,
                                     "queries and keys need the same width"))
    return e;
  return check_heads(heads, "W_Q", p.w_q, "W_V", p.w_v);
}

Problem check_source(const DirectQKV& d, int heads, PositionalEncoding positional) {
  if (positional != PositionalEncoding::none)
    return Error{ErrorCode::invalid_argument,
                 "positional encoding is added to token embeddings X; with Q, K and V given "
                 "directly there is no X to add it to"};
  if (auto e = validate::attention_shapes(d.q, d.k, d.v, limits::trace_tokens,
                                          limits::trace_features, "the trace"))
    return e;
  if (auto e = validate::finite_qkv(d.q, d.k, d.v)) return e;
  return check_heads(heads, "Q", d.q, "V", d.v);
}

Problem check_output_projection(const TraceInput& input, const Matrix& values,
                                std::string_view values_name) {
  if (!input.w_o) return std::nullopt;
  if (auto e = check_matrix("W_O", *input.w_o, limits::trace_features)) return e;
  return validate::same_extent("W_O", *input.w_o, true, values_name, values, false,
                               "W_O needs one row per column of the concatenated heads");
}

// Formula symbols, with the head's number when there are several: {Q^{(2)}}. The braces
// let a symbol take its own sub- or superscript, as in {K^{(2)}}^\top or {A^{(2)}}_{ij}.
struct Symbols {
  std::string head;  // "(2)", or empty with a single head
  std::string of(const char* base) const {
    return head.empty() ? base : "{" + std::string(base) + "^{" + head + "}}";
  }
};

std::string scale_formula(const Symbols& s, const AttentionOptions& options, std::size_t d_k) {
  const std::string scaled = "\\tilde{" + s.of("S") + "}";
  std::string factor = options.scale ? tex_number(1.0 / *options.scale) : "\\sqrt{d_k}";
  if (options.temperature != 1.0f) factor += " \\cdot " + tex_number(options.temperature);
  std::string formula = scaled + " = \\frac{" + s.of("S") + "}{" + factor + "}";
  if (!options.scale) formula += ", \\quad d_k = " + std::to_string(d_k);
  return formula;
}

std::string mask_formula(const Symbols& s, const AttentionOptions& options) {
  std::string rule;
  const auto add = [&rule](const char* part) {
    rule += (rule.empty() ? "" : " \\lor ") + std::string(part);
  };
  if (options.causal) add("j > i");
  if (!options.key_padding.empty()) add("\\text{key } j \\text{ is padding}");
  if (options.mask) add("M_{ij} = 0");
  return "\\tilde{" + s.of("S") + "}_{ij} \\leftarrow -\\infty \\quad \\text{where } " + rule;
}

// C = [O^{(1)} | O^{(2)}], or with many heads [O^{(1)} | ... | O^{(h)}].
std::string concat_formula(std::size_t heads) {
  const auto head = [](std::size_t h) { return Symbols{"(" + std::to_string(h) + ")"}.of("O"); };
  std::string parts = head(1);
  if (heads > 3) parts += " \\mid \\cdots";
  for (std::size_t h = heads > 3 ? heads : 2; h <= heads; ++h) parts += " \\mid " + head(h);
  return "C = [\\, " + parts + " \\,]";
}

void add_step(Trace& t, const char* id, std::optional<int> head, std::string title,
              std::string formula, Matrix values) {
  std::vector<float> totals = kernels::row_sums(values);
  t.steps.push_back(TraceStep{id,
                              head,
                              std::move(title),
                              std::move(formula),
                              std::move(values),
                              std::move(totals),
                              {},
                              {},
                              {}});
}

void add_head_steps(Trace& t, const AttentionResult& r, std::optional<int> head,
                    const AttentionOptions& options, std::size_t d_k) {
  const Symbols s{head ? "(" + std::to_string(*head + 1) + ")" : ""};
  const std::string suffix = head ? " (head " + std::to_string(*head + 1) + ")" : "";
  add_step(t, step::scores, head, "Scores: every query against every key" + suffix,
           s.of("S") + " = " + s.of("Q") + " " + s.of("K") + "^\\top", r.scores);
  add_step(t, step::scale, head, "Scale the scores" + suffix, scale_formula(s, options, d_k),
           r.scaled);
  if (options.has_mask())
    add_step(t, step::mask, head, "Mask what may not be attended to" + suffix,
             mask_formula(s, options), r.logits);
  add_step(t, step::softmax, head, "Softmax: each row becomes weights that sum to 1" + suffix,
           s.of("A") + "_{ij} = \\frac{e^{\\tilde{" + s.of("S") +
               "}_{ij} - m_i}}{\\sum_k e^{\\tilde{" + s.of("S") +
               "}_{ik} - m_i}}, \\quad m_i = \\max_k \\tilde{" + s.of("S") + "}_{ik}",
           r.softmax.weights);
  TraceStep& softmax = t.steps.back();
  softmax.row_max = r.softmax.row_max;
  softmax.row_sum = r.softmax.row_sum;
  softmax.exponentials = r.softmax.exponentials;
  add_step(t, step::aggregate, head, "Aggregate: weighted sum of the values" + suffix,
           s.of("O") + " = " + s.of("A") + " " + s.of("V"), r.output);
}

// Q, K, V from the source, recording the projection steps when there are any.
struct Qkv {
  Matrix q, k, v;
};

Qkv prepare(Trace& t, const Projections& p, PositionalEncoding positional) {
  Matrix x = p.x;
  if (positional == PositionalEncoding::sinusoidal) {
    const Matrix pe = sinusoidal_encoding(x.rows, x.cols);
    for (std::size_t i = 0; i < x.data.size(); ++i) x.data[i] += pe.data[i];
    add_step(t, step::positional, std::nullopt, "Add the sinusoidal positional encoding",
             "X \\leftarrow X + PE, \\quad PE_{p,2i} = \\sin\\frac{p}{10000^{2i/d}}, \\; "
             "PE_{p,2i+1} = \\cos\\frac{p}{10000^{2i/d}}",
             x);
  }
  Qkv qkv{kernels::matmul(x, p.w_q), kernels::matmul(x, p.w_k), kernels::matmul(x, p.w_v)};
  add_step(t, step::project_q, std::nullopt, "Project the queries", "Q = X W_Q", qkv.q);
  add_step(t, step::project_k, std::nullopt, "Project the keys", "K = X W_K", qkv.k);
  add_step(t, step::project_v, std::nullopt, "Project the values", "V = X W_V", qkv.v);
  return qkv;
}

Qkv prepare(Trace&, const DirectQKV& d, PositionalEncoding) { return {d.q, d.k, d.v}; }

}  // namespace

Result<Trace> trace(const TraceInput& input) {
  const bool projected = std::holds_alternative<Projections>(input.source);
  const Matrix& values_source =
      projected ? std::get<Projections>(input.source).w_v : std::get<DirectQKV>(input.source).v;
  if (auto e =
          std::visit([&](const auto& s) { return check_source(s, input.heads, input.positional); },
                     input.source))
    return *e;
  if (auto e = check_output_projection(input, values_source, projected ? "W_V" : "V")) return *e;

  Trace t;
  const Qkv qkv =
      std::visit([&](const auto& s) { return prepare(t, s, input.positional); }, input.source);
  for (const auto& [name, m] :
       {std::pair{"Q = X·W_Q", &qkv.q}, {"K = X·W_K", &qkv.k}, {"V = X·W_V", &qkv.v}})
    if (auto e = validate::finite(name, *m)) return *e;

  const auto heads = static_cast<std::size_t>(input.heads);
  const std::size_t d_k = qkv.q.cols / heads;
  const std::size_t d_v = qkv.v.cols / heads;
  Matrix concat(qkv.q.rows, qkv.v.cols);  // concat: (n_q, heads·d_v)
  for (std::size_t h = 0; h < heads; ++h) {
    auto r = attention(column_slice(qkv.q, h * d_k, d_k), column_slice(qkv.k, h * d_k, d_k),
                       column_slice(qkv.v, h * d_v, d_v), input.options);
    if (!r) return r.error();
    const std::optional<int> head =
        heads > 1 ? std::optional<int>(static_cast<int>(h)) : std::nullopt;
    add_head_steps(t, r.value(), head, input.options, d_k);
    for (std::size_t i = 0; i < concat.rows; ++i)
      std::copy_n(r.value().output.row(i), d_v, concat.row(i) + h * d_v);
    if (h == 0) t.fully_masked_rows = r.value().fully_masked_rows;
  }
  if (heads > 1)
    add_step(t, step::concat, std::nullopt, "Concatenate the heads side by side",
             concat_formula(heads), concat);
  if (input.w_o) {
    Matrix projected_output = kernels::matmul(concat, *input.w_o);  // (n_q, d_out)
    if (auto e = validate::finite("the output projection", projected_output)) return *e;
    add_step(t, step::output_projection, std::nullopt, "Output projection",
             std::string(heads > 1 ? "Y = C W_O" : "Y = O W_O"), std::move(projected_output));
  }
  t.output = t.steps.back().values;
  return t;
}

}  // namespace attnlab
