#include "attnlab/trace.hpp"

#include <algorithm>
#include <cstdint>
#include <string>
#include <type_traits>
#include <utility>

#include "attnlab/kernels.hpp"
#include "attnlab/positional.hpp"
#include "base/validate.hpp"
#include "teaching/trace_detail.hpp"
#include "teaching/trace_formulas.hpp"
#include "teaching/trace_steps.hpp"

namespace attnlab {
namespace {

using namespace trace_steps;

// Q, K and V, each as the trace's operands name it: a step's result (index) or an input.
struct Source {
  const Matrix* values;
  std::string name;                           // "project-q" or "Q"
  std::optional<std::size_t> step;            // the projection step, when there is one
  std::optional<std::size_t> past_rows = {};  // K and V with a past cache
};

// Head h's columns of a source: the whole step by reference when there is a single head.
Operand head_slice(const Trace& t, const Source& source, const char* symbol,
                   std::optional<int> head, std::size_t heads, std::size_t first,
                   std::size_t width) {
  if (heads == 1 && source.step) return step_result(t, *source.step, symbol);
  Operand slice = own(source.name, symbol, head,
                      heads == 1 ? *source.values : column_slice(*source.values, first, width));
  slice.past_rows = source.past_rows;
  return slice;
}

struct HeadSources {
  Source q, k, v;
  std::size_t heads, group, d_k, d_v;  // group: query heads per K/V head
};

using detail::HeadVariants;

// Steps rotate-q, rotate-k (RoPE) and the operands Q and K of the scores.
std::pair<Operand, Operand> add_rotations(Trace& t, std::optional<int> head, const Symbols& s,
                                          Operand q, Operand k, const HeadVariants& v) {
  if (!v.q_rotation) return {std::move(q), std::move(k)};
  const std::size_t rq =
      add_step(t, step::rotate_q, head, "Rotate the queries by position (RoPE)",
               rotate_formula(s, "Q", v.q_rotation->base), v.rotated_q, {std::move(q)});
  t.steps.back().rotation = v.q_rotation;
  const std::size_t rk =
      add_step(t, step::rotate_k, head, "Rotate the keys by position (RoPE)",
               rotate_formula(s, "K", v.k_rotation->base), v.rotated_k, {std::move(k)});
  t.steps.back().rotation = v.k_rotation;
  return {step_result(t, rq, "Q"), step_result(t, rk, "K")};
}

// The steps of head h (rotate-q … aggregate); returns the aggregate step's index.
std::size_t add_head_steps(Trace& t, const AttentionResult& r, std::size_t h,
                           const HeadSources& src, const HeadRules& rules,
                           const HeadVariants& variants) {
  const ScoreRules& options = *rules.rules;
  const std::optional<int> head =
      src.heads > 1 ? std::optional<int>(static_cast<int>(h)) : std::nullopt;
  const Symbols s{head ? "(" + std::to_string(*head + 1) + ")" : ""};
  const std::size_t g = h / src.group;  // the head's K/V group
  auto [q, k] =
      add_rotations(t, head, s, head_slice(t, src.q, "Q", head, src.heads, h * src.d_k, src.d_k),
                    head_slice(t, src.k, "K", head, src.heads, g * src.d_k, src.d_k), variants);
  const std::size_t scores =
      add_step(t, step::scores, head, "Scores: every query against every key",
               s.of("S") + " = " + s.of("Q") + " " + s.of("K") + "^\\top", r.scores,
               {std::move(q), std::move(k)});
  const ScaleFactors factors{r.scale, r.temperature, r.factor, src.d_k, !options.scale.has_value()};
  std::size_t logits = add_step(t, step::scale, head, "Scale the scores", scale_formula(s, factors),
                                r.scaled, {step_result(t, scores, "S")});
  t.steps.back().scaling = factors;
  if (options.softcap) {
    logits = add_step(t, step::softcap, head, "Cap the scores (soft-capping)",
                      s.tilde("S") + "_{ij} \\leftarrow c \\tanh\\!\\left(\\frac{" + s.tilde("S") +
                          "_{ij}}{c}\\right), \\quad c = " + tex_number(*options.softcap),
                      r.capped, {step_result(t, logits, "S̃")});
    t.steps.back().softcap = options.softcap;
  }
  if (variants.slope || options.bias) {
    const std::string formula = bias_formula(s, rules, options.bias.has_value());
    logits = add_step(t, step::bias, head,
                      variants.slope && options.bias ? "Add the biases (ALiBi's and the given one)"
                      : variants.slope               ? "Add the distance bias (ALiBi)"
                                                     : "Add the bias",
                      formula, variants.biased,
                      {step_result(t, logits, "S̃"),
                       own(variants.slope ? "alibi" : "bias", "B", head, variants.bias)});
    t.steps.back().slope = variants.slope;
  }
  if (options.has_mask()) {
    logits = add_step(t, step::mask, head, "Mask what may not be attended to",
                      mask_formula(s, rules), r.logits, {step_result(t, logits, "S̃")});
    t.steps.back().mask = mask_cells(rules);
  }
  const std::size_t softmax =
      add_step(t, step::softmax, head,
               r.fully_masked_rows.empty()
                   ? "Softmax: each row becomes weights that sum to 1"
                   : "Softmax: each row becomes weights that sum to 1; a row with every key masked "
                     "is defined as zeros",
               s.of("A") + "_{ij} = \\frac{e^{" + s.tilde("S") + "_{ij} - m_i}}{\\sum_k e^{" +
                   s.tilde("S") + "_{ik} - m_i}}, \\quad m_i = \\max_k " + s.tilde("S") + "_{ik}",
               r.softmax.weights, {step_result(t, logits, "S̃")});
  t.steps.back().softmax =
      SoftmaxParts{r.softmax.row_max, r.softmax.row_sum, r.softmax.exponentials};
  Operand weights = step_result(t, softmax, "A");
  if (variants.dropout) {
    weights = step_result(
        t,
        add_step(t, step::dropout, head, "Dropout: drop some weights, scale up the rest",
                 s.of("A") + "_{ij} \\leftarrow \\frac{z_{ij}\\, " + s.of("A") +
                     "_{ij}}{1 - p}, \\quad z_{ij} \\sim \\mathrm{Bernoulli}(1 - p), \\; p = " +
                     tex_number(variants.dropout->rate),
                 variants.dropped, {std::move(weights)}),
        "A");
    t.steps.back().dropout = variants.dropout;
  }
  return add_step(
      t, step::aggregate, head, "Aggregate: weighted sum of the values",
      s.of("O") + " = " + s.of("A") + " " + s.of("V"), r.output,
      {std::move(weights), head_slice(t, src.v, "V", head, src.heads, g * src.d_v, src.d_v)});
}

using detail::Qkv;

// m plus the sinusoidal encoding of its rows' positions. m is within the trace's limits, and
// those are within the encoding's.
Matrix encoded(Matrix m) {
  const Matrix pe = sinusoidal_encoding(m.rows, m.cols).value();
  for (std::size_t i = 0; i < m.data.size(); ++i) m.data[i] += pe.data[i];
  return m;
}

Qkv prepare(Trace& t, const Projections& p, PositionalEncoding positional) {
  Matrix x = p.x;
  Operand seen_x = own("X", "X", std::nullopt, p.x);  // X as the projections see it
  if (positional == PositionalEncoding::sinusoidal) {
    x = encoded(std::move(x));
    const std::size_t encoding =
        add_step(t, step::encoding, std::nullopt, "The sinusoidal encoding PE",
                 "\\mathrm{PE}_{p,2i} = \\sin\\frac{p}{10000^{2i/d}}, \\; "
                 "\\mathrm{PE}_{p,2i+1} = \\cos\\frac{p}{10000^{2i/d}}, \\quad d = " +
                     std::to_string(x.cols),
                 sinusoidal_encoding(x.rows, x.cols).value(), {});
    const std::size_t index = add_step(
        t, step::positional, std::nullopt, "Add the sinusoidal positional encoding",
        "X \\leftarrow X + \\mathrm{PE}", x, {std::move(seen_x), step_result(t, encoding, "PE")});
    seen_x = step_result(t, index, "X + PE");
  }
  // Cross-attention: K and V from the context, encoded by its own positions.
  const bool cross = p.context.has_value();
  const bool encode = positional == PositionalEncoding::sinusoidal;
  const Matrix source = !cross ? Matrix{} : encode ? encoded(*p.context) : *p.context;
  const Matrix& kv_in = cross ? source : x;
  Operand seen_kv =
      cross ? own("context", encode ? "X_c + PE" : "X_c", std::nullopt, source) : seen_x;
  Qkv qkv{kernels::matmul(x, p.w_q),
          kernels::matmul(kv_in, p.w_k),
          kernels::matmul(kv_in, p.w_v),
          {},
          {},
          {}};
  qkv.q_step = add_step(t, step::project_q, std::nullopt, "Project the queries", "Q = X W_Q", qkv.q,
                        {std::move(seen_x), own("Wq", "W_Q", std::nullopt, p.w_q)});
  qkv.k_step = add_step(t, step::project_k, std::nullopt, "Project the keys",
                        cross ? "K = X_c W_K" : "K = X W_K", qkv.k,
                        {seen_kv, own("Wk", "W_K", std::nullopt, p.w_k)});
  qkv.v_step = add_step(t, step::project_v, std::nullopt, "Project the values",
                        cross ? "V = X_c W_V" : "V = X W_V", qkv.v,
                        {std::move(seen_kv), own("Wv", "W_V", std::nullopt, p.w_v)});
  return qkv;
}

Qkv prepare(Trace&, const DirectQKV& d, PositionalEncoding) { return {d.q, d.k, d.v, {}, {}, {}}; }

// One group per distinct step id, in order of first appearance.
std::vector<TraceGroup> group_steps(const std::vector<TraceStep>& steps) {
  std::vector<TraceGroup> groups;
  for (std::size_t i = 0; i < steps.size(); ++i) {
    auto it = std::find_if(groups.begin(), groups.end(),
                           [&](const TraceGroup& g) { return g.id == steps[i].id; });
    if (it == groups.end()) it = groups.insert(groups.end(), {steps[i].id, steps[i].title, {}});
    it->steps.push_back(i);
  }
  return groups;
}

}  // namespace

const Matrix& operand_values(const Trace& trace, const Operand& operand) {
  return operand.step ? trace.steps[*operand.step].values : *operand.values;
}

Result<Qkv> detail::qkv_of(Trace& t, const TraceInput& input) {
  Qkv qkv =
      std::visit([&](const auto& s) { return prepare(t, s, input.positional); }, input.source);
  for (const auto& [name, m] :
       {std::pair{"Q = X·Wq", &qkv.q}, {"K = X·Wk", &qkv.k}, {"V = X·Wv", &qkv.v}})
    if (auto e = validate::finite(name, *m)) return *e;
  qkv.k = detail::appended(input.options.past_key, qkv.k);  // the keys after the cache's
  qkv.v = detail::appended(input.options.past_value, qkv.v);
  return qkv;
}

Result<Trace> detail::forward_steps(const TraceInput& input, const FamilySteps* families) {
  if (auto e = detail::check_trace_input(input)) return *e;
  // A family or its settings: their steps and checks are family_steps()' (trace() only).
  if (input.family != TraceFamily::softmax || input.features || input.seed || input.decay ||
      input.feature_map != FeatureMap::elu) {
    if (!families)
      return Error{
          ErrorCode::invalid_argument,
          "family, featureMap, features, seed, decay: by trace() only (the learning module)"};
    if (auto e = families->check(input)) return *e;
  }
  Trace t;
  auto prepared = detail::qkv_of(t, input);
  if (!prepared) return prepared.error();
  const Qkv& qkv = prepared.value();

  const bool projected = std::holds_alternative<Projections>(input.source);
  const auto heads = static_cast<std::size_t>(input.heads);
  const std::size_t kv = detail::kv_heads_of(input);
  // With a past cache, K and V are the cache's rows and then the projected or given ones.
  const auto past =
      input.options.past_key ? std::optional(input.options.past_rows()) : std::nullopt;
  const auto kv_source = [&](const Matrix& m, const char* step_id, const char* name,
                             std::optional<std::size_t> index) {
    if (past) return Source{&m, name, std::nullopt, past};
    return Source{&m, projected ? step_id : name, index};
  };
  const HeadSources sources{{&qkv.q, projected ? step::project_q : "Q", qkv.q_step},
                            kv_source(qkv.k, step::project_k, "K", qkv.k_step),
                            kv_source(qkv.v, step::project_v, "V", qkv.v_step),
                            heads,
                            heads / kv,
                            qkv.q.cols / heads,
                            qkv.v.cols / kv};
  const std::size_t d_v = sources.d_v;
  Matrix concat(qkv.q.rows, heads * d_v);  // concat: (n_q, heads·d_v)
  std::vector<Operand> head_outputs;       // each head's aggregate: the concatenation's operands
  for (std::size_t h = 0; h < heads; ++h) {
    if (input.family != TraceFamily::softmax) {  // linear attention or retention
      const std::optional<int> head = heads > 1 ? std::optional(static_cast<int>(h)) : std::nullopt;
      const std::size_t g = h / sources.group;
      auto run =
          families->add(t, input, qkv, h, head,
                        {head_slice(t, sources.q, "Q", head, heads, h * sources.d_k, sources.d_k),
                         head_slice(t, sources.k, "K", head, heads, g * sources.d_k, sources.d_k),
                         head_slice(t, sources.v, "V", head, heads, g * d_v, d_v)});
      if (!run) return run.error();
      head_outputs.push_back(step_result(t, run.value().aggregate, "O"));
      put_columns(concat, run.value().output, h * d_v);
      t.fully_masked_rows.push_back(std::move(run.value().zero_rows));
      continue;
    }
    auto run = detail::run_head(input, qkv, h);
    if (!run) return run.error();
    const AttentionResult& r = run.value().result;
    head_outputs.push_back(step_result(
        t, add_head_steps(t, r, h, sources, run.value().rules, run.value().variants), "O"));
    for (std::size_t i = 0; i < concat.rows; ++i)
      std::copy_n(r.output.row(i), d_v, concat.row(i) + h * d_v);
    t.fully_masked_rows.push_back(r.fully_masked_rows);
  }
  Operand heads_output = head_outputs.front();  // what W_O multiplies: C, or O with one head
  if (heads > 1)
    heads_output =
        step_result(t,
                    add_step(t, step::concat, std::nullopt, "Concatenate the heads side by side",
                             concat_formula(heads), concat, std::move(head_outputs)),
                    "C");
  if (input.w_o)
    add_step(t, step::output_projection, std::nullopt, "Output projection",
             std::string(heads > 1 ? "Y = C W_O" : "Y = O W_O"),
             kernels::matmul(concat, *input.w_o),  // (n_q, d_out)
             {std::move(heads_output), own("Wo", "W_O", std::nullopt, *input.w_o)});
  if (auto e = overflowed_step(t, 0)) return *e;
  t.output = t.steps.back().values;
  return t;
}

void detail::group(Trace& t) { t.groups = group_steps(t.steps); }

Result<Trace> forward_trace(const TraceInput& input) {
  if (input.d_output)
    return Error{ErrorCode::invalid_argument,
                 "dOutput: forward_trace() has the forward steps only; trace() adds the backward "
                 "steps"};
  auto t = detail::forward_steps(input);
  if (t) detail::group(t.value());
  return t;
}

}  // namespace attnlab
