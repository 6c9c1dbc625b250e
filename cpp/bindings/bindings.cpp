// Embind bindings: translate between JavaScript values and the core's types, nothing more.
// The friendly API (number[][] in and out, AttnLabError) is web/lib/attnlab.js.
//
// Matrices cross as { rows, cols, data: Float32Array } (a boolean mask as Uint8Array data).
// Every call returns either a result object or { error: { code, message } }.
#include <emscripten/bind.h>
#include <emscripten/val.h>
#include <malloc.h>

#include <string>

#include "allocation_tracking.hpp"
#include "attnlab/attnlab.hpp"

namespace attnlab::bindings {
namespace {

using emscripten::val;

template <class T>
BasicMatrix<T> matrix_from_js(const val& m) {
  return BasicMatrix<T>(m["rows"].as<std::size_t>(), m["cols"].as<std::size_t>(),
                        emscripten::convertJSArrayToNumberVector<T>(m["data"]));
}

// Copies out of the wasm heap, so the result stays valid after the next call.
val floats_to_js(const std::vector<float>& values) {
  return val(emscripten::typed_memory_view(values.size(), values.data())).call<val>("slice");
}

val matrix_to_js(const Matrix& m) {
  val out = val::object();
  out.set("rows", m.rows);
  out.set("cols", m.cols);
  out.set("data", floats_to_js(m.data));
  return out;
}

val indices_to_js(const std::vector<std::size_t>& indices) {
  val out = val::array();
  for (std::size_t i : indices) out.call<void>("push", i);
  return out;
}

val error_to_js(const Error& e) {
  val error = val::object();
  error.set("code", std::string(to_string(e.code)));
  error.set("message", e.message);
  val out = val::object();
  out.set("error", error);
  return out;
}

// The softmax's parts as attention() and the trace's softmax step both return them.
void set_softmax_parts(val& out, const std::vector<float>& row_max,
                       const std::vector<float>& row_sum, const Matrix& exponentials) {
  out.set("rowMax", floats_to_js(row_max));
  out.set("rowSum", floats_to_js(row_sum));
  out.set("exponentials", matrix_to_js(exponentials));
}

// The output and the rows with every key masked, as every attention entry returns them.
void set_output(val& out, const Matrix& output, const std::vector<std::size_t>& fully_masked_rows) {
  out.set("output", matrix_to_js(output));
  out.set("fullyMaskedRows", indices_to_js(fully_masked_rows));
}

// { causal?, keyPadding?: boolean[], mask?: matrix, scale?, temperature? }
AttentionOptions options_from_js(const val& o) {
  AttentionOptions options;
  options.causal = o["causal"].as<bool>();
  if (!o["keyPadding"].isUndefined())
    for (int flag : emscripten::vecFromJSArray<int>(o["keyPadding"]))
      options.key_padding.push_back(flag != 0);
  if (!o["mask"].isUndefined()) options.mask = matrix_from_js<std::uint8_t>(o["mask"]);
  if (!o["scale"].isUndefined()) options.scale = o["scale"].as<float>();
  if (!o["temperature"].isUndefined()) options.temperature = o["temperature"].as<float>();
  return options;
}

// request: { Q, K, V, ...options }
val attention(const val& request) {
  const auto r =
      attnlab::attention(matrix_from_js<float>(request["Q"]), matrix_from_js<float>(request["K"]),
                         matrix_from_js<float>(request["V"]), options_from_js(request));
  if (!r) return error_to_js(r.error());
  const AttentionResult& a = r.value();
  val out = val::object();
  out.set("scores", matrix_to_js(a.scores));
  out.set("scale", a.scale);
  out.set("scaled", matrix_to_js(a.scaled));
  out.set("logits", matrix_to_js(a.logits));
  out.set("weights", matrix_to_js(a.softmax.weights));
  set_softmax_parts(out, a.softmax.row_max, a.softmax.row_sum, a.softmax.exponentials);
  set_output(out, a.output, a.fully_masked_rows);
  return out;
}

val step_to_js(const TraceStep& s) {
  val out = val::object();
  out.set("id", s.id);
  if (s.head) out.set("head", *s.head);
  out.set("title", s.title);
  out.set("formula", s.formula);
  out.set("values", matrix_to_js(s.values));
  out.set("rowTotals", floats_to_js(s.row_totals));
  if (s.id == step::softmax) set_softmax_parts(out, s.row_max, s.row_sum, s.exponentials);
  return out;
}

// request: { X, Wq, Wk, Wv } or { Q, K, V }, plus { Wo?, heads, positional, ...options }
TraceInput trace_input_from_js(const val& request) {
  TraceInput input;
  if (!request["X"].isUndefined())
    input.source =
        Projections{matrix_from_js<float>(request["X"]), matrix_from_js<float>(request["Wq"]),
                    matrix_from_js<float>(request["Wk"]), matrix_from_js<float>(request["Wv"])};
  else
    input.source =
        DirectQKV{matrix_from_js<float>(request["Q"]), matrix_from_js<float>(request["K"]),
                  matrix_from_js<float>(request["V"])};
  if (!request["Wo"].isUndefined()) input.w_o = matrix_from_js<float>(request["Wo"]);
  input.heads = request["heads"].as<int>();
  input.positional = request["positional"].as<std::string>() == "sinusoidal"
                         ? PositionalEncoding::sinusoidal
                         : PositionalEncoding::none;
  input.options = options_from_js(request);
  return input;
}

val trace(const val& request) {
  const auto r = attnlab::trace(trace_input_from_js(request));
  if (!r) return error_to_js(r.error());
  val steps = val::array();
  for (const TraceStep& s : r.value().steps) steps.call<void>("push", step_to_js(s));
  val out = val::object();
  out.set("steps", steps);
  set_output(out, r.value().output, r.value().fully_masked_rows);
  return out;
}

// request as for trace() (X, Wq, Wk, Wv); order: number[], new row i = original token order[i].
val permutation_check(const val& request, const val& order) {
  const auto r = attnlab::permutation_check(trace_input_from_js(request),
                                            emscripten::vecFromJSArray<std::size_t>(order));
  if (!r) return error_to_js(r.error());
  const PermutationCheck& c = r.value();
  val out = val::object();
  out.set("original", matrix_to_js(c.original));
  out.set("permuted", matrix_to_js(c.permuted));
  out.set("predicted", matrix_to_js(c.predicted));
  out.set("maxDifference", c.max_difference);
  out.set("tolerance", c.tolerance);
  out.set("reorderedOnly", c.reordered_only);
  return out;
}

// { causal, heads, scale? } of a long-sequence request.
FlashOptions flash_options_from_js(const val& request) {
  FlashOptions options;
  options.causal = request["causal"].as<bool>();
  options.heads = request["heads"].as<int>();
  if (!request["scale"].isUndefined()) options.scale = request["scale"].as<float>();
  return options;
}

// request: { Q, K, V, causal, heads, scale? }; kernel: flash_attention or naive_attention.
template <Result<FlashResult> (*kernel)(const Matrix&, const Matrix&, const Matrix&,
                                        const FlashOptions&)>
val long_attention(const val& request) {
  const auto r = kernel(matrix_from_js<float>(request["Q"]), matrix_from_js<float>(request["K"]),
                        matrix_from_js<float>(request["V"]), flash_options_from_js(request));
  if (!r) return error_to_js(r.error());
  val out = val::object();
  set_output(out, r.value().output, r.value().fully_masked_rows);
  return out;
}

// The same request, only checked: { ok: true } or { error }.
val check_long_attention(const val& request) {
  const auto problem = check_flash_attention(
      matrix_from_js<float>(request["Q"]), matrix_from_js<float>(request["K"]),
      matrix_from_js<float>(request["V"]), flash_options_from_js(request));
  if (problem) return error_to_js(*problem);
  val out = val::object();
  out.set("ok", true);
  return out;
}

// request: { Q, K, causal, heads, scale?, head, rows: number[], cols: number[] }
val sampled_weights(const val& request) {
  const auto r = attnlab::sampled_weights(
      matrix_from_js<float>(request["Q"]), matrix_from_js<float>(request["K"]),
      emscripten::vecFromJSArray<std::size_t>(request["rows"]),
      emscripten::vecFromJSArray<std::size_t>(request["cols"]), request["head"].as<int>(),
      flash_options_from_js(request));
  if (!r) return error_to_js(r.error());
  return matrix_to_js(r.value());
}

// The shared tile plan for head width d (see tiling.hpp), or null beyond the limits.
val tile_plan(std::size_t head_width) {
  const auto plan = tiling::plan_for(head_width);
  if (!plan) return val::null();
  val out = val::object();
  out.set("queryRows", plan->query_rows);
  out.set("keyRows", plan->key_rows);
  out.set("headWidth", plan->head_width);
  out.set("cpuKeyRows", plan->cpu_key_rows());
  out.set("workgroupStorageBytes", plan->workgroup_storage_bytes());
  return out;
}

val sinusoidal_encoding(std::size_t tokens, std::size_t width) {
  return matrix_to_js(attnlab::sinusoidal_encoding(tokens, width));
}

// scores: Float32Array (one row); temperature: number.
val softmax_breakdown(const val& scores, float temperature) {
  const auto row = emscripten::convertJSArrayToNumberVector<float>(scores);
  const auto r = attnlab::softmax_breakdown(row, temperature);
  if (!r) return error_to_js(r.error());
  const SoftmaxBreakdown& b = r.value();
  val out = val::object();
  out.set("temperature", b.temperature);
  out.set("scaled", floats_to_js(b.scaled));
  out.set("max", b.max);
  out.set("shifted", floats_to_js(b.shifted));
  out.set("exponentials", floats_to_js(b.exponentials));
  out.set("sum", b.sum);
  out.set("weights", floats_to_js(b.weights));
  out.set("naiveExponentials", floats_to_js(b.naive_exponentials));
  out.set("naiveSum", b.naive_sum);
  out.set("naiveWeights", floats_to_js(b.naive_weights));
  out.set("naiveOverflowed", b.naive_overflowed);
  out.set("naiveTermOverflowed", b.naive_term_overflowed);
  out.set("naiveUnderflowed", b.naive_underflowed);
  return out;
}

val scaling_point_to_js(const ScalingPoint& p) {
  val out = val::object();
  out.set("dk", p.dk);
  out.set("scoreStd", p.score_std);
  out.set("sqrtDk", p.sqrt_dk);
  out.set("maxWeightScaled", p.max_weight_scaled);
  out.set("maxWeightUnscaled", p.max_weight_unscaled);
  out.set("entropyScaled", p.entropy_scaled);
  out.set("entropyUnscaled", p.entropy_unscaled);
  out.set("exampleScores", floats_to_js(p.example_scores));
  out.set("exampleWeightsScaled", floats_to_js(p.example_weights_scaled));
  out.set("exampleWeightsUnscaled", floats_to_js(p.example_weights_unscaled));
  return out;
}

// request: { dims: number[], keys, samples, seed } (whole numbers, checked by the wrapper).
val scaling_study(const val& request) {
  ScalingStudyOptions options;
  options.dims = emscripten::vecFromJSArray<std::size_t>(request["dims"]);
  options.keys = request["keys"].as<std::size_t>();
  options.samples = request["samples"].as<std::size_t>();
  options.seed = static_cast<std::uint64_t>(request["seed"].as<double>());
  const auto r = attnlab::scaling_study(options);
  if (!r) return error_to_js(r.error());
  val points = val::array();
  for (const ScalingPoint& p : r.value().points) points.call<void>("push", scaling_point_to_js(p));
  val out = val::object();
  out.set("keys", r.value().keys);
  out.set("samples", r.value().samples);
  out.set("maxEntropy", r.value().max_entropy);
  out.set("points", points);
  return out;
}

// request: { rows, cols, seed } (whole numbers, checked by the wrapper).
val normal_matrix(const val& request) {
  const auto r =
      attnlab::normal_matrix(request["rows"].as<std::size_t>(), request["cols"].as<std::size_t>(),
                             static_cast<std::uint64_t>(request["seed"].as<double>()));
  if (!r) return error_to_js(r.error());
  return matrix_to_js(r.value());
}

// Bytes in use by malloc and the size of the wasm memory (for leak checks), and the bytes
// held through operator new, now and at the peak since resetPeakMemory (for the cost view).
val memory_stats() {
  const struct mallinfo info = mallinfo();
  val out = val::object();
  out.set("allocatedBytes", static_cast<double>(info.uordblks));
  out.set("heapBytes", static_cast<double>(info.arena));
  out.set("trackedBytes", static_cast<double>(allocated_bytes()));
  out.set("peakTrackedBytes", static_cast<double>(peak_allocated_bytes()));
  return out;
}

std::string simd_arch() { return kernels::simd_arch(); }

}  // namespace

EMSCRIPTEN_BINDINGS(attnlab) {
  emscripten::function("attention", &attention);
  emscripten::function("trace", &trace);
  emscripten::function("permutationCheck", &permutation_check);  // the positions view
  emscripten::function("flashAttention", &long_attention<&attnlab::flash_attention>);
  emscripten::function("naiveAttention", &long_attention<&attnlab::naive_attention>);
  emscripten::function("checkFlashAttention", &check_long_attention);
  emscripten::function("tilePlan", &tile_plan);
  emscripten::function("sampledWeights", &sampled_weights);
  emscripten::function("sinusoidalEncoding", &sinusoidal_encoding);
  emscripten::function("softmaxBreakdown", &softmax_breakdown);
  emscripten::function("scalingStudy", &scaling_study);
  emscripten::function("normalMatrix", &normal_matrix);
  emscripten::function("memoryStats", &memory_stats);
  emscripten::function("resetPeakMemory", &reset_peak_allocated_bytes);
  emscripten::function("simdArch", &simd_arch);
}

}  // namespace attnlab::bindings
