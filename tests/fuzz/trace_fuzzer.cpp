// libFuzzer target for the parse-and-trace entry: the fuzz input is decoded into a trace
// request, and trace() must either return a typed error or a trace whose every value is
// finite (masked logits excepted). The layout (make_seeds.py writes seeds in it): flags,
// heads + 1, n, width, d_model, [n_k], [scale], [temperature], [padding count, flags…],
// [mask rows, cols, flags…], the matrices as raw float32 bytes (so NaN, infinities,
// subnormals and huge values all occur), [W_O columns, W_O]; then (zeros in older seeds) the
// variants' flags, [RoPE base], [KV heads], [dropout p, seed], [window, global count,
// tokens…], [dOutput rows, cols, values]; the frameworks' flags, [softcap], [bias rows, cols,
// values], [window left, right]; [the gradient check's parameter, row, col].
#include <algorithm>
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <cstdlib>

#include "attnlab/trace.hpp"
#include "attnlab/trace_backward.hpp"
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
  input.alibi = variants & 4;
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

  const auto result = attnlab::trace(input);
  if (result && !valid_trace(result.value())) std::abort();  // a value escaped the checks
  if (!result && result.error().message.empty()) std::abort();
  if (variants & 128) {
    static constexpr const char* parameters[] = {"X", "Q", "K", "V", "Wq", "Wk", "Wv", "Wo", "W"};
    const char* parameter = parameters[in.byte() % 9];
    const auto check = attnlab::check_gradient(input, parameter, in.dimension(9), in.dimension(9));
    if (check && !(std::isfinite(check.value().analytic) && std::isfinite(check.value().numeric)))
      std::abort();
    if (!check && check.error().message.empty()) std::abort();
  }
  return 0;
}
