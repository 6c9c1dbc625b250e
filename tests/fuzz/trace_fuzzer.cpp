// libFuzzer target for the parse-and-trace entry: the fuzz input is decoded into a trace
// request, and trace() must either return a typed error or a trace whose every value is
// finite (masked logits excepted). The layout (make_seeds.py writes seeds in it): flags,
// heads + 1, n, width, d_model, [n_k], [scale], [temperature], [padding count, flags…],
// [mask rows, cols, flags…], the matrices as raw float32 bytes (so NaN, infinities,
// subnormals and huge values all occur), [W_O columns, W_O]; then (zeros in older seeds) the
// variants' flags, [RoPE base], [KV heads], [dropout p, seed], [window, global count,
// tokens…], [dOutput rows, cols, values]; the frameworks' flags, [softcap], [bias rows, cols,
// values], [window left, right]; [the gradient check's parameter, row, col]; the past cache's
// flags, [past_key rows, values], [past_value rows, values], [alignment byte]. The direct
// Q, K, V also go through attention(), attention_backward() and decode() on the same options,
// under the same rule.
#include <algorithm>
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <cstdlib>

#include "attnlab/attention_backward.hpp"
#include "attnlab/trace.hpp"
#include "attnlab/trace_backward.hpp"
#include "attnlab/variants.hpp"
#include "fuzz_reader.hpp"

namespace {

bool valid_trace(const attnlab::Trace& t) {
  for (const auto& step : t.steps) {
    for (float v : step.values.data) {
      // −∞: a masked cell, or a bias entry that blocks its key.
      const bool blocked = step.id == attnlab::step::mask || step.id == attnlab::step::bias;
      const bool masked = blocked && v == -INFINITY;
      if (!masked && !std::isfinite(v)) return false;
    }
  }
  // The output is the last forward step's (the backward steps follow it; grad-k has K's rows).
  const auto forward = std::find_if(t.steps.rbegin(), t.steps.rend(), [](const auto& step) {
    return step.id.rfind("grad-", 0) != 0;
  });
  return forward != t.steps.rend() && t.output.rows == forward->values.rows;
}

bool finite(const attnlab::Matrix& m) {
  return std::all_of(m.data.begin(), m.data.end(), [](float v) { return std::isfinite(v); });
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  attnlab::fuzz::Reader in(data, size);
  attnlab::TraceInput input;
  const std::uint8_t flags = in.byte();
  input.heads = static_cast<int>(in.byte() % 5) - 1;  // -1 … 3
  input.options.causal = flags & 1;
  const std::size_t n = in.dimension(8), width = in.dimension(8), d_model = in.dimension(8);
  const std::size_t n_k = flags & 8 ? in.dimension(8) : n;
  if (flags & 2) input.options.scale = in.number();
  if (flags & 4) input.options.temperature = in.number();
  if (flags & 16) input.options.key_padding.assign(in.dimension(8), false);
  for (std::size_t j = 0; j < input.options.key_padding.size(); ++j)
    input.options.key_padding[j] = in.byte() & 1;
  if (flags & 32) {
    attnlab::BoolMatrix mask(in.dimension(8), in.dimension(8));
    for (auto& allowed : mask.data) allowed = in.byte() & 1;
    input.options.mask = mask;
  }
  if (flags & 64) {
    input.positional = attnlab::PositionalEncoding::sinusoidal;
    const attnlab::Matrix x = in.matrix(n, d_model);
    input.source = attnlab::Projections{x, in.matrix(d_model, width), in.matrix(d_model, width),
                                        in.matrix(d_model, width)};
  } else {
    const attnlab::Matrix q = in.matrix(n, width);
    input.source = attnlab::DirectQKV{q, in.matrix(n_k, width), in.matrix(n_k, width)};
  }
  if (flags & 128) input.w_o = in.matrix(width, in.dimension(8));
  // Every variant option, and the backward pass (the learning module's entries).
  const std::uint8_t variants = in.byte();
  input.rope = variants & 1;
  if (variants & 2) input.rope_base = in.number();
  input.options.alibi = variants & 4;
  if (variants & 8) input.kv_heads = static_cast<int>(in.byte() % 5) - 1;  // -1 … 3
  if (variants & 16) input.dropout = in.number(), input.dropout_seed = in.byte();
  if (variants & 32) {
    input.options.window = in.dimension(8);
    input.options.global_tokens.resize(in.dimension(3));
    for (std::size_t& g : input.options.global_tokens) g = in.dimension(9);
  }
  if (variants & 64) {
    const std::size_t rows = in.dimension(8);
    input.d_output = in.matrix(rows, in.dimension(8));
  }

  // The frameworks' options: softcap, a bias (any shape, so one per head and wrong ones too),
  // bottom-right alignment, a window of two sides.
  const std::uint8_t frameworks = in.byte();
  if (frameworks & 1) input.options.softcap = in.number();
  if (frameworks & 2) {
    const std::size_t rows = in.dimension(16);
    input.options.bias = in.matrix(rows, in.dimension(8));
  }
  if (frameworks & 4) input.options.causal_alignment = attnlab::CausalAlignment::bottom_right;
  if (frameworks & 8) {
    const std::size_t left = in.dimension(8);
    input.options.window = attnlab::Window(left, in.dimension(8));
  }

  // The gradient check's bytes come before the cache's (older seeds keep their meaning).
  static constexpr const char* parameters[] = {"X", "Q", "K", "V", "Wq", "Wk", "Wv", "Wo", "W"};
  const char* parameter = parameters[0];
  std::size_t row = 0, col = 0;
  if (variants & 128) {
    parameter = parameters[in.byte() % 9];
    row = in.dimension(9);
    col = in.dimension(9);
  }
  // A past KV cache (ONNX's past_key, past_value): K's and V's columns or not, one side
  // missing now and then, and an explicit alignment.
  const std::uint8_t past = in.byte();
  if (past & 1) {
    const std::size_t rows = in.dimension(6);
    input.options.past_key = in.matrix(rows, past & 4 ? in.dimension(8) : width);
  }
  if (past & 2) {
    const std::size_t rows = in.dimension(6);
    input.options.past_value = in.matrix(rows, past & 8 ? in.dimension(8) : width);
  }
  if (past & 16)
    input.options.causal_alignment =
        in.byte() & 1 ? attnlab::CausalAlignment::bottom_right : attnlab::CausalAlignment::top_left;

  const auto result = attnlab::trace(input);
  if (result && !valid_trace(result.value())) std::abort();  // a value escaped the checks
  if (!result && result.error().message.empty()) std::abort();
  if (variants & 128) {
    const auto check = attnlab::check_gradient(input, parameter, row, col);
    if (check && !(std::isfinite(check.value().analytic) && std::isfinite(check.value().numeric)))
      std::abort();
    if (!check && check.error().message.empty()) std::abort();
  }
  // The same options through attention(), its backward pass and decode().
  if (const auto* direct = std::get_if<attnlab::DirectQKV>(&input.source)) {
    const auto attended = attnlab::attention(direct->q, direct->k, direct->v, input.options);
    if (attended ? !finite(attended.value().output) || !finite(attended.value().weights())
                 : attended.error().message.empty())
      std::abort();
    const attnlab::Matrix d_out =
        input.d_output.value_or(attnlab::Matrix(direct->q.rows, direct->v.cols, 1.0f));
    const auto grads =
        attnlab::attention_backward(direct->q, direct->k, direct->v, d_out, input.options);
    if (grads ? !finite(grads.value().dq) || !finite(grads.value().dk) || !finite(grads.value().dv)
              : grads.error().message.empty())
      std::abort();
  }
  const auto decoded = attnlab::decode(input);
  if (decoded ? !finite(decoded.value().output) : decoded.error().message.empty()) std::abort();
  return 0;
}
