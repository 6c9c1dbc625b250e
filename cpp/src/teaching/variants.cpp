#include "attnlab/variants.hpp"

#include <algorithm>
#include <cmath>
#include <optional>
#include <string>
#include <tuple>
#include <type_traits>
#include <variant>

#include "attnlab/kernels.hpp"
#include "attnlab/limits.hpp"
#include "attnlab/random.hpp"
#include "base/validate.hpp"
#include "teaching/trace_detail.hpp"

namespace attnlab {

using validate::Problem;

std::vector<float> rope_frequencies(std::size_t d, float base) {
  std::vector<float> theta(d / 2);
  for (std::size_t i = 0; i < theta.size(); ++i)
    // base^(−2i/d), as exp(−2i/d · ln base): the core links exp and log already, not pow.
    theta[i] = static_cast<float>(std::exp(-2.0 * i / d * std::log(static_cast<double>(base))));
  return theta;
}

Matrix rope_angles(std::size_t positions, std::size_t d, float base) {
  const std::vector<float> theta = rope_frequencies(d, base);
  Matrix angles(positions, theta.size());
  for (std::size_t p = 0; p < positions; ++p)
    for (std::size_t i = 0; i < theta.size(); ++i)
      angles(p, i) = static_cast<float>(static_cast<double>(p) * theta[i]);
  return angles;
}

Matrix rotate_pairs(const Matrix& m, const Matrix& angles) {
  Matrix out = m;
  for (std::size_t p = 0; p < m.rows; ++p)
    for (std::size_t i = 0; i < angles.cols; ++i) {
      const double a = angles(p, i), x = m(p, 2 * i), y = m(p, 2 * i + 1);
      out(p, 2 * i) = static_cast<float>(x * std::cos(a) - y * std::sin(a));
      out(p, 2 * i + 1) = static_cast<float>(x * std::sin(a) + y * std::cos(a));
    }
  return out;
}

float alibi_slope(int head, int heads) {
  return static_cast<float>(std::exp2(-8.0 * (head + 1) / heads));
}

Matrix alibi_bias(float slope, std::size_t n_q, std::size_t n_k, std::int64_t first_position) {
  Matrix bias(n_q, n_k);
  for (std::size_t i = 0; i < n_q; ++i)
    for (std::size_t j = 0; j < n_k; ++j) {
      const std::int64_t distance =
          first_position + static_cast<std::int64_t>(i) - static_cast<std::int64_t>(j);
      bias(i, j) = -slope * static_cast<float>(distance < 0 ? -distance : distance);
    }
  return bias;
}

BoolMatrix dropout_keep(std::uint32_t seed, int head, std::size_t n_q, std::size_t n_k,
                        float rate) {
  // The key scatters (seed, head); the cell's own index is then mixed with it.
  const std::uint64_t key =
      splitmix64_mix((std::uint64_t{seed} << 32) | static_cast<std::uint32_t>(head));
  BoolMatrix keep(n_q, n_k);
  for (std::size_t i = 0; i < n_q; ++i)
    for (std::size_t j = 0; j < n_k; ++j) {
      const std::uint64_t bits = splitmix64_mix(key ^ ((std::uint64_t{i} << 32) | j));
      const double u = static_cast<double>(bits >> 11) * 0x1p-53;  // [0, 1)
      keep(i, j) = u >= rate ? 1 : 0;
    }
  return keep;
}

Problem detail::check_variants(const TraceInput& input, std::size_t d_k) {
  if (!(input.dropout >= 0.0f && input.dropout < 1.0f))
    return Error{ErrorCode::invalid_argument,
                 "dropout must be a probability from 0 up to (not including) 1, got " +
                     validate::number_text(input.dropout)};
  if (!input.rope) return std::nullopt;
  if (auto p = validate::positive_finite("RoPE base", input.rope_base)) return p;
  if (d_k % 2 == 0) return std::nullopt;
  return validate::formatted(ErrorCode::invalid_argument,
                             "RoPE rotates the features of q and k in pairs, so the head width "
                             "d_k must be even, got d_k = %zu",
                             d_k);
}

detail::HeadInputs detail::head_inputs(const TraceInput& input, const Qkv& qkv, std::size_t h) {
  const auto heads = static_cast<std::size_t>(input.heads);
  const std::size_t d_k = qkv.q.cols / heads, d_v = qkv.v.cols / kv_heads_of(input);
  const std::size_t g = h / (heads / kv_heads_of(input));  // the head's K/V group
  HeadInputs in{column_slice(qkv.q, h * d_k, d_k),
                column_slice(qkv.k, g * d_k, d_k),
                column_slice(qkv.v, g * d_v, d_v),
                {}};
  if (input.rope) {
    const auto rotation = [&](std::size_t rows) {
      return Rotation{rope_angles(rows, d_k, input.rope_base),
                      rope_frequencies(d_k, input.rope_base), input.rope_base};
    };
    in.variants.q_rotation = rotation(in.q.rows);
    in.variants.k_rotation = rotation(in.k.rows);
    in.q = in.variants.rotated_q = rotate_pairs(in.q, in.variants.q_rotation->angles);
    in.k = in.variants.rotated_k = rotate_pairs(in.k, in.variants.k_rotation->angles);
  }
  return in;
}

Problem detail::rotation_overflowed(const HeadInputs& in) {
  if (!in.variants.q_rotation) return std::nullopt;
  if (auto e = validate::overflowed("the rotated q (RoPE)", in.q)) return e;
  return validate::overflowed("the rotated k (RoPE)", in.k);
}

Result<detail::HeadRun> detail::run_head(const TraceInput& input, const Qkv& qkv, std::size_t h) {
  HeadInputs in = head_inputs(input, qkv, h);
  if (auto e = rotation_overflowed(in)) return *e;
  HeadVariants& v = in.variants;
  const auto heads = static_cast<std::size_t>(input.heads);
  const ScoreRules& o = input.options;
  if (auto e = check_attention_options(in.q, in.k, o, heads)) return *e;
  const HeadRules rules = o.head(h, heads, in.q.rows, in.k.rows, in.q.cols);
  auto r = attention(in.q, in.k, in.v, o, h, heads);
  if (!r) return r.error();
  AttentionResult& result = r.value();
  if (o.alibi || o.bias) {
    // B: ALiBi's distance bias plus the given bias (−∞ where it blocks); S̃ + B before the mask.
    if (o.alibi) v.slope = rules.slope;
    v.bias = Matrix(in.q.rows, in.k.rows);
    v.biased = o.softcap ? result.capped : result.scaled;
    for (std::size_t i = 0; i < v.bias.rows; ++i)
      for (std::size_t j = 0; j < v.bias.cols; ++j) {
        if (o.alibi) v.bias(i, j) = rules.alibi(i, j);
        if (rules.bias) v.bias(i, j) += rules.bias[i * rules.n_k + j];
        v.biased(i, j) += v.bias(i, j);
      }
  }
  if (input.dropout > 0.0f) {
    const float keep_scale = 1.0f / (1.0f - input.dropout);
    v.dropout = DropoutCells{
        dropout_keep(input.dropout_seed, static_cast<int>(h), in.q.rows, in.k.rows, input.dropout),
        input.dropout, keep_scale};
    v.dropped = result.weights();
    for (std::size_t i = 0; i < v.dropped.data.size(); ++i)
      v.dropped.data[i] = v.dropout->keep.data[i] ? v.dropped.data[i] * keep_scale : 0.0f;
    result.output = kernels::matmul(v.dropped, in.v);
  }
  return HeadRun{std::move(result), std::move(v), rules};
}

// ---- Generation with a KV cache ----------------------------------------------------------

namespace {

Problem check_decode(const TraceInput& input) {
  if (const auto* p = std::get_if<Projections>(&input.source)) {
    if (p->context)
      return Error{ErrorCode::invalid_argument,
                   "decode() runs causal self-attention as in generation; with a context "
                   "(cross-attention) the keys are the context's, fixed, not a growing cache"};
  } else {
    const auto& d = std::get<DirectQKV>(input.source);
    if (d.q.rows != d.k.rows)
      return validate::formatted(ErrorCode::shape_mismatch,
                                 "decode() runs self-attention, one query per key: Q has %zu "
                                 "rows but K has %zu",
                                 d.q.rows, d.k.rows);
  }
  const std::size_t tokens = std::visit(
      [](const auto& s) {
        if constexpr (std::is_same_v<std::decay_t<decltype(s)>, Projections>)
          return s.x.rows;
        else
          return s.q.rows;
      },
      input.source);
  const AttentionOptions& o = input.options;
  if (tokens > limits::decode_tokens || tokens + o.past_rows() > limits::decode_keys)
    return validate::formatted(ErrorCode::too_large,
                               "decode() keeps the cache of every position for display: at most "
                               "%zu tokens and %zu keys with pastKey's rows, got %zu and %zu",
                               limits::decode_tokens, limits::decode_keys, tokens,
                               tokens + o.past_rows());
  // Token s sits at key n_past + s: an alignment that places it elsewhere is refused, not
  // ignored.
  if (o.causal_alignment && o.causal_alignment->offset(tokens, tokens + o.past_rows()) !=
                                static_cast<std::int64_t>(o.past_rows()))
    return Error{ErrorCode::invalid_argument,
                 "causalAlignment: decode() continues after pastKey (bottom-right), query 0 at "
                 "key " +
                     std::to_string(o.past_rows())};
  if (input.dropout != 0.0f)
    return Error{ErrorCode::invalid_argument,
                 "decode() generates as at inference, without dropout: set dropout to 0, got " +
                     validate::number_text(input.dropout)};
  return detail::check_trace_input(input);
}

// Rows [first, first + count) of m.
Matrix rows_of(const Matrix& m, std::size_t first, std::size_t count) {
  return Matrix(count, m.cols, std::vector<float>(m.row(first), m.row(first) + count * m.cols));
}

}  // namespace

Result<DecodeTrace> decode(const TraceInput& input) {
  if (auto e = check_decode(input)) return *e;
  Trace scratch;  // qkv_of records the projection steps; decode shows its own
  auto prepared = detail::qkv_of(scratch, input);
  if (!prepared) return prepared.error();
  const detail::Qkv& qkv = prepared.value();
  AttentionOptions options = input.options;
  options.causal = true;
  options.causal_alignment = CausalAlignment::bottom_right;  // the same as top-left without a cache
  if (auto e = detail::check_attention_options(qkv.q, qkv.k, options,
                                               static_cast<std::size_t>(input.heads)))
    return *e;

  const auto heads = static_cast<std::size_t>(input.heads);
  std::vector<detail::HeadInputs> head(heads);
  for (std::size_t h = 0; h < heads; ++h) {
    head[h] = detail::head_inputs(input, qkv, h);
    if (auto e = detail::rotation_overflowed(head[h])) return *e;
  }

  // n new tokens after n_past cached ones: token s is at position t = n_past + s, the last of
  // its t + 1 keys.
  const std::size_t n = qkv.q.rows, n_past = options.past_rows(), n_k = qkv.k.rows;
  const std::size_t d_v = head[0].v.cols;
  DecodeTrace out;
  Matrix concat(1, heads * d_v);
  for (std::size_t s = 0; s < n; ++s) {
    const std::size_t t = n_past + s;
    DecodeStep step{t, {}, {}};
    for (std::size_t h = 0; h < heads; ++h) {
      const detail::HeadInputs& in = head[h];
      DecodeHead dh{rows_of(in.q, s, 1),
                    rows_of(in.k, t, 1),
                    rows_of(in.v, t, 1),
                    rows_of(in.k, 0, t + 1),
                    rows_of(in.v, 0, t + 1),
                    {},
                    {},
                    {}};
      // Query s of the head's rules (at key t, bottom-right) over the t + 1 keys it has so far.
      auto r = detail::attention_head(dh.q, dh.keys, dh.values,
                                      options.head(h, heads, n, n_k, in.q.cols), s);
      if (!r) return r.error();
      dh.scores = std::move(r.value().logits);
      dh.weights = std::move(r.value().softmax.weights);
      dh.output = std::move(r.value().output);
      std::copy_n(dh.output.data.begin(), d_v, concat.data.begin() + h * d_v);
      step.heads.push_back(std::move(dh));
    }
    step.output = input.w_o ? kernels::matmul(concat, *input.w_o) : concat;
    if (auto e = validate::finite("the output projection", step.output)) return *e;
    out.steps.push_back(std::move(step));
  }
  out.output = Matrix(n, out.steps[0].output.cols);
  for (std::size_t s = 0; s < n; ++s)
    std::copy(out.steps[s].output.data.begin(), out.steps[s].output.data.end(), out.output.row(s));
  return out;
}

std::optional<Error> check_kv_cache_shape(const KvCacheShape& shape) {
  const std::tuple<const char*, std::size_t, std::size_t> fields[] = {
      {"layers", shape.layers, limits::cache_layers},
      {"KV heads", shape.kv_heads, limits::cache_kv_heads},
      {"head width", shape.head_width, limits::cache_head_dim},
      {"bytes per value", shape.bytes_per_value, limits::cache_value_bytes}};
  for (const auto& [name, value, most] : fields)
    if (auto p = validate::count_within(name, value, 1, most)) return p;
  return std::nullopt;
}

std::size_t kv_cache_bytes(const KvCacheShape& shape) {
  return 2 * shape.layers * shape.kv_heads * shape.head_width * shape.bytes_per_value;
}

}  // namespace attnlab
