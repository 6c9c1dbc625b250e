// The trace's steps of the cheaper attentions (TraceInput::family): each head computed by the
// family's own core entry, linear_attention() or retention(), whose intermediates become the
// steps; nothing of their math is restated here.
#include <cstdint>
#include <string>
#include <utility>

#include "attnlab/linear_attention.hpp"
#include "attnlab/retention.hpp"
#include "teaching/trace_detail.hpp"
#include "teaching/trace_steps.hpp"

namespace attnlab {
namespace {

using namespace trace_steps;
using validate::Problem;

const char* family_name(TraceFamily f) { return f == TraceFamily::linear ? "linear" : "retention"; }

Problem refuse(const TraceInput& input, const char* option) {
  return Error{ErrorCode::invalid_argument, std::string(option) + ": not with family '" +
                                                family_name(input.family) +
                                                "' (its steps have no such rule yet)"};
}

std::string feature_formula(const Symbols& s, const char* letter, FeatureMap map, float scale,
                            bool scaled) {
  const std::string x =
      (scaled && scale != 1.0f ? tex_number(scale) + "\\," : std::string()) + s.of(letter);
  const std::string lhs = "\\phi(" + x + ")";
  switch (map) {
    case FeatureMap::elu:
      return lhs + " = \\mathrm{elu}(" + x + ") + 1";
    case FeatureMap::relu:
      return lhs + " = \\max(" + x + ", 0)";
    case FeatureMap::favor:
      return "\\phi(x) = \\frac{1}{\\sqrt{m}} e^{W x - \\lVert x \\rVert^2 / 2}, \\quad x = "
             "\\sqrt{" +
             tex_number(scale) + "}\\," + s.of(letter);
  }
  return lhs;
}

// Linear attention's steps for one head; returns the aggregate step's index.
Result<detail::FamilyHead> linear_steps(Trace& t, const TraceInput& input,
                                        const detail::HeadInputs& in, std::optional<int> head,
                                        detail::HeadOperands ops) {
  LinearAttentionOptions options;
  options.feature_map = input.feature_map;
  options.causal = input.options.causal;
  options.scale = input.options.scale;
  options.features = input.features;
  options.seed = input.seed;
  auto run = linear_attention(in.q, in.k, in.v, options);
  if (!run) return run.error();
  LinearAttentionResult& r = run.value();
  const Symbols s{head ? "(" + std::to_string(*head + 1) + ")" : ""};
  const bool favor = input.feature_map == FeatureMap::favor;
  const std::size_t fq = add_step(t, step::feature_q, head, "Feature map of the queries",
                                  feature_formula(s, "Q", input.feature_map, r.scale, true),
                                  std::move(r.feature_q), {std::move(ops.q)});
  t.steps[fq].family = FamilyParts{.feature_map = input.feature_map, .factor = r.query_factor};
  const std::size_t fk = add_step(t, step::feature_k, head, "Feature map of the keys",
                                  feature_formula(s, "K", input.feature_map, r.scale, favor),
                                  std::move(r.feature_k), {std::move(ops.k)});
  t.steps[fk].family = FamilyParts{.feature_map = input.feature_map, .factor = r.key_factor};
  if (r.random_features) t.random_features = std::move(r.random_features);  // the same per head
  add_step(t, step::kv_state, head, "The state: keys times values, summed once for every query",
           s.of("S") + " = \\phi(" + s.of("K") + ")^\\top " + s.of("V") +
               " = \\sum_j \\phi(k_j)\\, v_j^\\top",
           std::move(r.kv_state), {step_result(t, fk, "φ(K)"), ops.v});
  const std::string visible = options.causal ? "\\sum_{j \\le i}" : "\\sum_j";
  const std::size_t z =
      add_step(t, step::normalizer, head, "The normaliser: what each query's weights add up to",
               "z_i = \\phi(q_i)^\\top " + visible + " \\phi(k_j)",
               Matrix(r.normalizer.size(), 1, r.normalizer),
               {step_result(t, fq, "φ(Q)"), step_result(t, fk, "φ(K)")});
  t.steps[z].family = FamilyParts{.causal = options.causal};
  const std::size_t w =
      add_step(t, step::implied_weights, head, "The implied weights: the kernel over its row's z",
               s.of("A") + "_{ij} = \\frac{\\phi(q_i)^\\top \\phi(k_j)}{z_i}" +
                   (options.causal ? ", \\; 0 \\text{ for } j > i" : ""),
               std::move(*r.weights),
               {step_result(t, fq, "φ(Q)"), step_result(t, fk, "φ(K)"), step_result(t, z, "z")});
  t.steps[w].family = FamilyParts{.causal = options.causal};
  const std::size_t out = add_step(
      t, step::aggregate, head, "Aggregate: the same output as the state gives",
      s.of("O") + " = " + s.of("A") + " " + s.of("V") +
          (options.causal ? "" : ", \\quad o_i = \\frac{\\phi(q_i)^\\top " + s.of("S") + "}{z_i}"),
      r.output, {step_result(t, w, "A"), std::move(ops.v)});
  return detail::FamilyHead{out, std::move(r.output), std::move(r.zero_normalizer_rows)};
}

// Retention's steps for one head; returns the aggregate step's index.
Result<detail::FamilyHead> retention_steps(Trace& t, const TraceInput& input,
                                           const detail::HeadInputs& in, std::optional<int> head,
                                           detail::HeadOperands ops) {
  RetentionOptions options;
  options.decay = input.decay;
  auto run = retention(in.q, in.k, in.v, options);
  if (!run) return run.error();
  RetentionResult& r = run.value();
  const Symbols s{head ? "(" + std::to_string(*head + 1) + ")" : ""};
  // D from the core's one rule for its powers (decay_powers), laid out as a matrix.
  const std::size_t n = in.q.rows;
  const std::vector<double> powers = decay_powers(r.decay, n);
  Matrix d(n, n);
  for (std::size_t i = 0; i < n; ++i)
    for (std::size_t j = 0; j <= i; ++j) d(i, j) = static_cast<float>(powers[i - j]);
  const std::string gamma = tex_number(r.decay);
  const std::size_t decay =
      add_step(t, step::decay, head, "The decay: older keys count less",
               "D_{ij} = \\gamma^{\\,i-j} \\text{ for } j \\le i, \\; 0 \\text{ above}, \\quad "
               "\\gamma = " +
                   gamma,
               std::move(d), {});
  t.steps[decay].family = FamilyParts{.decay = r.decay};
  const std::size_t state = add_step(t, step::kv_state, head, "The state after the last token",
                                     s.of("S") + "_t = \\gamma\\, " + s.of("S") +
                                         "_{t-1} + k_t^\\top v_t, \\quad t = " + std::to_string(n),
                                     std::move(r.state), {ops.k, ops.v});
  t.steps[state].family = FamilyParts{.decay = r.decay};
  const std::size_t w = add_step(
      t, step::implied_weights, head, "The implied weights: scores times the decay",
      s.of("A") + " = " + s.of("Q") + " " + s.of("K") + "^\\top \\odot D", std::move(*r.weights),
      {std::move(ops.q), std::move(ops.k), step_result(t, decay, "D")});
  const std::size_t out = add_step(
      t, step::aggregate, head, "Aggregate: weighted sum of the values",
      s.of("O") + " = " + s.of("A") + " " + s.of("V") + ", \\quad o_t = q_t " + s.of("S") + "_t",
      r.output, {step_result(t, w, "A"), std::move(ops.v)});
  return detail::FamilyHead{out, std::move(r.output), {}};
}

Problem check_family(const TraceInput& input) {
  const bool linear = input.family == TraceFamily::linear;
  if (input.family == TraceFamily::softmax)
    return Error{ErrorCode::invalid_argument, std::string(input.decay      ? "decay"
                                                          : input.features ? "features"
                                                          : input.seed     ? "seed"
                                                                           : "featureMap") +
                                                  " is for family 'linear' or 'retention' only"};
  const ScoreRules& o = input.options;
  const std::pair<bool, const char*> refused[] = {
      {input.d_output.has_value(), "dOutput"},
      {input.rope, "rope"},
      {input.dropout != 0.0f, "dropout"},
      {o.window.active(), "window"},
      {!o.global_tokens.empty(), "globalTokens"},
      {!o.key_padding.empty(), "keyPadding"},
      {o.mask.has_value(), "mask"},
      {o.bias.has_value(), "bias"},
      {o.alibi, "alibi"},
      {o.softcap.has_value(), "softcap"},
      {o.temperature != 1.0f, "temperature"},
      {o.past_key || o.past_value, "pastKey"},
      {!linear && o.scale.has_value(), "scale"},
      {!linear && (input.features || input.seed || input.feature_map != FeatureMap::elu),
       "featureMap"},
      {linear && input.decay.has_value(), "decay"}};
  for (const auto& [given, option] : refused)
    if (given) return refuse(input, option);
  if (!linear) return check_decay(input.decay);
  return std::nullopt;
}

Result<detail::FamilyHead> add_family_steps(Trace& t, const TraceInput& input,
                                            const detail::Qkv& qkv, std::size_t h,
                                            std::optional<int> head, detail::HeadOperands ops) {
  const detail::HeadInputs in = detail::head_inputs(input, qkv, h);
  return input.family == TraceFamily::linear ? linear_steps(t, input, in, head, std::move(ops))
                                             : retention_steps(t, input, in, head, std::move(ops));
}

}  // namespace

const detail::FamilySteps& detail::family_steps() {
  static constexpr detail::FamilySteps steps{&check_family, &add_family_steps};
  return steps;
}

}  // namespace attnlab
