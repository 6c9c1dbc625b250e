// The trace's checks of its request (detail::check_trace_input): shapes, heads, the output
// projection, the cache and the trace's size, each named as the request names it, before any
// step is computed.
#include <string>
#include <string_view>
#include <utility>
#include <variant>

#include "attnlab/limits.hpp"
#include "attnlab/trace.hpp"
#include "base/validate.hpp"
#include "teaching/trace_detail.hpp"

namespace attnlab {
namespace {

using validate::Problem;

Problem check_matrix(std::string_view name, const Matrix& m, std::size_t max_rows) {
  if (auto p = validate::not_empty(name, m)) return p;
  if (auto p = validate::within(name, m, max_rows, limits::trace_features, "the trace")) return p;
  return validate::finite(name, m);
}

Problem divides(std::size_t heads, std::string_view name, const Matrix& m, const char* what) {
  if (m.cols % heads == 0) return std::nullopt;
  return Error{ErrorCode::invalid_argument,
               std::to_string(heads) + " " + what + " do not divide the " + std::to_string(m.cols) +
                   " columns of " + std::string(name) + " (" + shape_string(m) +
                   "): each head needs an equal slice"};
}

// Q's columns split into heads; K's and V's into KV heads, each K head as wide as a Q head.
Problem check_heads(const TraceInput& input, std::string_view q_name, const Matrix& q,
                    std::string_view k_name, const Matrix& k, std::string_view v_name,
                    const Matrix& v) {
  const int heads = input.heads;
  if (auto p =
          validate::count_within("heads", heads, 1, limits::max_heads, ErrorCode::invalid_argument))
    return p;
  if (input.kv_heads != 0) {
    if (auto p =
            validate::count_within("KV heads", input.kv_heads, 0, static_cast<std::size_t>(heads),
                                   ErrorCode::invalid_argument))
      return p;
    if (heads % input.kv_heads != 0)
      return validate::formatted(ErrorCode::invalid_argument,
                                 "%d KV heads do not divide the %d heads: each K/V head serves "
                                 "an equal group of query heads",
                                 input.kv_heads, heads);
  }
  const std::size_t kv = detail::kv_heads_of(input);
  if (auto p = divides(static_cast<std::size_t>(heads), q_name, q, "heads")) return p;
  if (auto p = divides(kv, v_name, v, kv == std::size_t(heads) ? "heads" : "KV heads")) return p;
  if (kv == std::size_t(heads))
    return validate::same_extent(q_name, q, false, k_name, k, false,
                                 "queries and keys need the same width");
  const std::size_t d_k = q.cols / static_cast<std::size_t>(heads);
  if (k.cols == kv * d_k) return std::nullopt;
  return validate::formatted(
      ErrorCode::shape_mismatch, "%s (%s) needs %zu KV heads of d_k = %zu columns (%zu), got %zu",
      std::string(k_name).c_str(), shape_string(k).c_str(), kv, d_k, kv * d_k, k.cols);
}

Problem check_source(const Projections& p, const TraceInput& input) {
  if (auto e = check_matrix("X", p.x, limits::trace_tokens)) return e;
  if (p.context) {
    if (auto e = check_matrix("context", *p.context, limits::trace_tokens)) return e;
    if (auto e = validate::same_extent("X", p.x, false, "context", *p.context, false,
                                       "the context needs X's width d_model"))
      return e;
  }
  const std::pair<const char*, const Matrix*> weights[] = {
      {"Wq", &p.w_q}, {"Wk", &p.w_k}, {"Wv", &p.w_v}};
  for (const auto& [name, w] : weights) {
    if (auto e = check_matrix(name, *w, limits::trace_features)) return e;
    if (auto e = validate::same_extent("X", p.x, false, name, *w, true,
                                       "X·W needs one row of W per column of X (d_model)"))
      return e;
  }
  return check_heads(input, "Wq", p.w_q, "Wk", p.w_k, "Wv", p.w_v);
}

Problem check_source(const DirectQKV& d, const TraceInput& input) {
  if (input.positional != PositionalEncoding::none)
    return Error{ErrorCode::invalid_argument,
                 "positional encoding is added to token embeddings X; with Q, K and V given "
                 "directly there is no X to add it to"};
  // With fewer KV heads, K is narrower than Q: check_heads checks its width.
  const bool same_width = input.kv_heads == 0 || input.kv_heads == input.heads;
  if (auto e = validate::attention_shapes(d.q, d.k, d.v, limits::trace_tokens,
                                          limits::trace_features, "the trace", same_width))
    return e;
  if (auto e = validate::finite_qkv(d.q, d.k, d.v)) return e;
  return check_heads(input, "Q", d.q, "K", d.k, "V", d.v);
}

// Every head keeps its (n_q, n_k) scores, weights and more for display: their count is the
// trace's cost.
Problem check_scores(const TraceInput& input) {
  const auto [n_q, n_k] = std::visit(
      [](const auto& s) {
        if constexpr (std::is_same_v<std::decay_t<decltype(s)>, Projections>)
          return std::pair{s.x.rows, s.context ? s.context->rows : s.x.rows};
        else
          return std::pair{s.q.rows, s.k.rows};
      },
      input.source);
  const std::uint64_t scores = std::uint64_t{n_q} * (n_k + input.options.past_rows()) *
                               static_cast<std::uint64_t>(input.heads);
  if (scores <= limits::trace_scores) return std::nullopt;
  return validate::formatted(ErrorCode::too_large,
                             "the trace would keep %llu scores (%zu queries x %zu keys x %d "
                             "heads), more than the %zu allowed: use fewer tokens or heads",
                             static_cast<unsigned long long>(scores), n_q,
                             n_k + input.options.past_rows(), input.heads, limits::trace_scores);
}

// W_O's rows against the concatenated heads: heads · d_v columns, d_v a slice of values.
Problem check_output_projection(const TraceInput& input, std::string_view values_name,
                                const Matrix& values) {
  if (!input.w_o) return std::nullopt;
  if (auto e = check_matrix("Wo", *input.w_o, limits::trace_features)) return e;
  const std::size_t concat = values.cols / detail::kv_heads_of(input) * input.heads;
  if (input.w_o->rows == concat) return std::nullopt;
  return validate::formatted(ErrorCode::shape_mismatch,
                             "Wo (%s) and %s (%s) do not fit: Wo needs one row per column of "
                             "the concatenated heads (%zu vs %zu)",
                             shape_string(*input.w_o).c_str(), std::string(values_name).c_str(),
                             shape_string(values).c_str(), input.w_o->rows, concat);
}

// The past cache against the new keys: what the trace knows of it (check_past); the new
// tokens' positions (RoPE, the sinusoidal encoding) are not placed after the cache yet, and a
// context is a fixed set of keys, not a sequence the cache continues.
Problem check_cache(const TraceInput& input) {
  const AttentionOptions& o = input.options;
  if (!o.past_key && !o.past_value) return std::nullopt;
  const auto* p = std::get_if<Projections>(&input.source);
  if (input.rope || input.positional != PositionalEncoding::none || (p && p->context))
    return Error{ErrorCode::invalid_argument,
                 "pastKey: not with RoPE, a positional encoding or a context yet"};
  if (p)
    return detail::check_past(o, "Wk", p->x.rows, p->w_k.cols, "Wv", p->w_v.cols,
                              limits::trace_tokens);
  const auto& d = std::get<DirectQKV>(input.source);
  return detail::check_past(o, "K", d.k.rows, d.k.cols, "V", d.v.cols, limits::trace_tokens);
}

}  // namespace

validate::Problem detail::check_trace_input(const TraceInput& input) {
  if (auto e = std::visit([&](const auto& s) { return check_source(s, input); }, input.source))
    return e;
  const bool projected = std::holds_alternative<Projections>(input.source);
  const auto& [q, v] = projected ? std::pair{&std::get<Projections>(input.source).w_q,
                                             &std::get<Projections>(input.source).w_v}
                                 : std::pair{&std::get<DirectQKV>(input.source).q,
                                             &std::get<DirectQKV>(input.source).v};
  if (auto e = check_output_projection(input, projected ? "Wv" : "V", *v)) return e;
  if (auto e = check_variants(input, q->cols / static_cast<std::size_t>(input.heads))) return e;
  if (auto e = check_cache(input)) return e;
  return check_scores(input);
}

}  // namespace attnlab
