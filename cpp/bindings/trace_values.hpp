// The trace's requests and results, shared by the core module (bindings.cpp: the forward
// steps) and the learning module (learn_bindings.cpp: the backward steps too).
#pragma once

#include <string>

#include "attnlab/attnlab.hpp"
#include "js_values.hpp"

namespace attnlab::bindings {

template <class T>
BasicMatrix<T> matrix_from_js(const val& m) {
  return BasicMatrix<T>(m["rows"].as<std::size_t>(), m["cols"].as<std::size_t>(),
                        emscripten::convertJSArrayToNumberVector<T>(m["data"]));
}

inline Matrix matrix_at(const val& request, const char* name) {
  return matrix_from_js<float>(request[name]);
}

// A window: a number (symmetric) or { left?, right? }, a side left out unbounded.
inline Window window_from_js(const val& w) {
  if (w.isNumber()) return Window(w.as<std::size_t>());
  const auto side = [&w](const char* name) {
    return w[name].isUndefined() ? Window::unbounded : w[name].as<std::size_t>();
  };
  return Window(side("left"), side("right"));
}

inline CausalAlignment alignment_from_js(const val& a) {
  return !a.isUndefined() && a.as<std::string>() == "bottom-right" ? CausalAlignment::bottom_right
                                                                   : CausalAlignment::top_left;
}

// { causal?, causalAlignment?, keyPadding?: boolean[], mask?: matrix, scale?, temperature?,
//   softcap?, bias?: matrix, window?, globalTokens?, pastKey?: matrix, pastValue?: matrix }
inline AttentionOptions options_from_js(const val& o) {
  AttentionOptions options;
  options.causal = o["causal"].as<bool>();
  if (!o["causalAlignment"].isUndefined())
    options.causal_alignment = alignment_from_js(o["causalAlignment"]);
  if (!o["keyPadding"].isUndefined())
    for (int flag : emscripten::vecFromJSArray<int>(o["keyPadding"]))
      options.key_padding.push_back(flag != 0);
  if (!o["mask"].isUndefined()) options.mask = matrix_from_js<std::uint8_t>(o["mask"]);
  if (!o["scale"].isUndefined()) options.scale = o["scale"].as<float>();
  if (!o["temperature"].isUndefined()) options.temperature = o["temperature"].as<float>();
  if (!o["softcap"].isUndefined()) options.softcap = o["softcap"].as<float>();
  if (!o["bias"].isUndefined()) options.bias = matrix_from_js<float>(o["bias"]);
  if (!o["window"].isUndefined()) options.window = window_from_js(o["window"]);
  if (!o["globalTokens"].isUndefined())
    options.global_tokens = emscripten::vecFromJSArray<std::size_t>(o["globalTokens"]);
  if (!o["pastKey"].isUndefined()) options.past_key = matrix_from_js<float>(o["pastKey"]);
  if (!o["pastValue"].isUndefined()) options.past_value = matrix_from_js<float>(o["pastValue"]);
  return options;
}

// { X, Wq, Wk, Wv, context? } or { Q, K, V }, plus { Wo?, heads, positional, rope?, ropeBase?,
// alibi?, kvHeads?, dropout?, dropoutSeed?, ...options }
inline TraceInput trace_input_from_js(const val& request) {
  TraceInput input;
  if (!request["X"].isUndefined())
    input.source = Projections{matrix_at(request, "X"), matrix_at(request, "Wq"),
                               matrix_at(request, "Wk"), matrix_at(request, "Wv"),
                               request["context"].isUndefined()
                                   ? std::nullopt
                                   : std::optional(matrix_at(request, "context"))};
  else
    input.source =
        DirectQKV{matrix_at(request, "Q"), matrix_at(request, "K"), matrix_at(request, "V")};
  if (!request["Wo"].isUndefined()) input.w_o = matrix_at(request, "Wo");
  input.heads = request["heads"].as<int>();
  input.positional = request["positional"].as<std::string>() == "sinusoidal"
                         ? PositionalEncoding::sinusoidal
                         : PositionalEncoding::none;
  input.options = options_from_js(request);
  input.rope = request["rope"].as<bool>();
  if (!request["ropeBase"].isUndefined()) input.rope_base = request["ropeBase"].as<float>();
  input.alibi = request["alibi"].as<bool>();
  input.kv_heads = request["kvHeads"].as<int>();
  input.dropout = request["dropout"].as<float>();
  input.dropout_seed = request["dropoutSeed"].as<std::uint32_t>();
  if (!request["dOutput"].isUndefined()) input.d_output = matrix_at(request, "dOutput");
  if (!request["jacobianRow"].isUndefined())
    input.jacobian_row = request["jacobianRow"].as<std::size_t>();
  return input;
}

// The trace's result types, declared once for both modules.
inline void register_trace_results() {
  result<BoolMatrix>("BoolMatrix")
      .field<&BoolMatrix::rows>("rows")
      .field<&BoolMatrix::cols>("cols")
      .field<&BoolMatrix::data>("data");

  result<Operand>("Operand")
      .field<&Operand::name>("name")
      .field<&Operand::symbol>("symbol")
      .field<&Operand::head>("head")
      .field<&Operand::step>("step")
      .field<&Operand::values>("values")
      .field<&Operand::past_rows>("pastRows");
  result<TraceStep>("TraceStep")
      .field<&TraceStep::id>("id")
      .field<&TraceStep::head>("head")
      .field<&TraceStep::title>("title")
      .field<&TraceStep::formula>("formula")
      .field<&TraceStep::values>("values")
      .field<&TraceStep::row_totals>("rowTotals")
      .field<&TraceStep::operands>("operands")
      .field<&TraceStep::softmax, &SoftmaxParts::row_max>("rowMax")
      .field<&TraceStep::softmax, &SoftmaxParts::row_sum>("rowSum")
      .field<&TraceStep::softmax, &SoftmaxParts::exponentials>("exponentials")
      .field<&TraceStep::scaling, &ScaleFactors::scale>("scale")
      .field<&TraceStep::scaling, &ScaleFactors::temperature>("temperature")
      .field<&TraceStep::scaling, &ScaleFactors::factor>("factor")
      .field<&TraceStep::scaling, &ScaleFactors::dk>("dk")
      .field<&TraceStep::scaling, &ScaleFactors::default_scale>("defaultScale")
      .field<&TraceStep::mask, &MaskCells::allowed, &boolean_rows>("allowed")
      .field<&TraceStep::mask, &MaskCells::blocked_by>("blockedBy")
      .field<&TraceStep::rotation, &Rotation::angles>("angles")
      .field<&TraceStep::rotation, &Rotation::frequencies>("frequencies")
      .field<&TraceStep::rotation, &Rotation::base>("ropeBase")
      .field<&TraceStep::slope>("slope")
      .field<&TraceStep::softcap>("softcap")
      .field<&TraceStep::dropout, &DropoutCells::keep, &boolean_rows>("keep")
      .field<&TraceStep::dropout, &DropoutCells::rate>("rate")
      .field<&TraceStep::dropout, &DropoutCells::keep_scale>("keepScale")
      .field<&TraceStep::jacobian, &SoftmaxJacobian::row_dot>("rowDot")
      .field<&TraceStep::jacobian, &SoftmaxJacobian::jacobian_rows>("jacobianRows")
      .field<&TraceStep::jacobian, &SoftmaxJacobian::jacobians>("jacobians");
  result<StepGroup>("StepGroup")
      .field<&StepGroup::id>("id")
      .field<&StepGroup::title>("title")
      .field<&StepGroup::steps>("steps");
  result<Trace>("Trace")
      .field<&Trace::steps>("steps")
      .field<&Trace::groups>("groups")
      .field<&Trace::output>("output")
      .field<&Trace::fully_masked_rows>("fullyMaskedRows");
}

}  // namespace attnlab::bindings
