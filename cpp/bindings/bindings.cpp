// Embind bindings: the JavaScript boundary of the core, described once.
//
// Results: every result struct of the core is registered below as an Embind value_object,
// each field named once, so it reaches JavaScript as a plain object (no handle, nothing to
// .delete()). Field values convert by kind (to_js): a Matrix becomes { rows, cols, data:
// Float32Array } (a BoolMatrix: Uint8Array data), a std::vector<float> a Float32Array, other
// vectors arrays, an empty std::optional `undefined`, an ErrorCode its spelling.
// Every entry returns its result or { error: { code, message } }.
//
// Memory: the sizes each entry takes (limits.hpp) fit the wasm heap, which may still refuse to
// grow (a browser short of memory). The core is built with wasm exceptions, so an allocation
// that fails unwinds the call, freeing all it held, and becomes the error out-of-memory
// (guarded, below); the module then works as before.
//
// Requests: JavaScript objects whose types and shapes web/lib/attnlab.js has already checked
// (matrices arrive as { rows, cols, data }); the core checks every value and size.
// The friendly API (number[][] in and out, AttnLabError) is web/lib/attnlab.js.
#include <emscripten/bind.h>
#include <emscripten/heap.h>
#include <emscripten/val.h>
#include <malloc.h>

#include <cstdio>
#include <functional>
#include <new>
#include <optional>
#include <string>
#include <tuple>
#include <type_traits>
#include <vector>

#include "allocation_tracking.hpp"
#include "attnlab/attnlab.hpp"

namespace attnlab::bindings {
namespace {

using emscripten::val;

// ---- C++ → JavaScript, by kind of value -------------------------------------------------

template <class T>
val to_js(const T& value);
template <class T>
val to_js(const std::vector<T>& values);
template <class T>
val to_js(const std::optional<T>& value);
template <class T>
val to_js(const Result<T>& result);

// Copies out of the wasm heap, so the result stays valid after the next call.
template <class T>
val typed_array(const std::vector<T>& values) {
  return val(emscripten::typed_memory_view(values.size(), values.data())).call<val>("slice");
}

val to_js(const std::vector<float>& values) { return typed_array(values); }
val to_js(const std::vector<double>& values) { return typed_array(values); }
val to_js(const std::vector<std::uint8_t>& values) { return typed_array(values); }
val to_js(const val& value) { return value; }
val to_js(ErrorCode code) { return val(std::string(to_string(code))); }
val to_js(WalkEvent::Kind kind) {
  return val(std::string(kind == WalkEvent::Kind::tile ? "tile" : "finish"));
}

// Registered result structs, strings and numbers: Embind converts them.
template <class T>
val to_js(const T& value) {
  return val(value);
}

template <class T>
val to_js(const std::vector<T>& values) {
  val out = val::array();
  for (const T& v : values) out.call<void>("push", to_js(v));
  return out;
}

template <class T>
val to_js(const std::optional<T>& value) {
  return value ? to_js(*value) : val::undefined();
}

struct ErrorValue {
  Error error;
};

template <class T>
val to_js(const Result<T>& result) {
  return result ? to_js(result.value()) : val(ErrorValue{result.error()});
}

// A boolean matrix as nested rows of true/false (the mask step's `allowed`).
val boolean_rows(const BoolMatrix& m) {
  val out = val::array();
  for (std::size_t r = 0; r < m.rows; ++r) {
    val row = val::array();
    for (std::size_t c = 0; c < m.cols; ++c) row.call<void>("push", m(r, c) != 0);
    out.call<void>("push", row);
  }
  return out;
}

// ---- value_object fields: a path of members, converted by kind -------------------------

template <class>
struct owner;
template <class C, class F>
struct owner<F C::*> {
  using type = C;
};

template <class>
inline constexpr bool is_optional = false;
template <class T>
inline constexpr bool is_optional<std::optional<T>> = true;

// object.*first.*rest…, where each step is a data member, a const member function or a
// converter function; `undefined` when an optional on the way is empty.
template <auto First, auto... Rest, class T>
val at_path(const T& object) {
  const auto& next = std::invoke(First, object);
  using Next = std::decay_t<decltype(next)>;
  if constexpr (sizeof...(Rest) == 0)
    return to_js(next);
  else if constexpr (is_optional<Next>)
    return next ? at_path<Rest...>(*next) : val::undefined();
  else
    return at_path<Rest...>(next);
}

template <auto First, auto... Rest>
val getter(const typename owner<decltype(First)>::type& object) {
  return at_path<First, Rest...>(object);
}

// Results only travel out; a value_object field still needs a setter.
template <class T>
void read_only(T&, val) {}

// value_object<T> whose fields are declared as member paths: .field<&T::member>("name").
template <class T>
struct result : emscripten::value_object<T> {
  explicit result(const char* name) : emscripten::value_object<T>(name) {}
  template <auto... Path>
  result& field(const char* name) {
    emscripten::value_object<T>::field(name, &getter<Path...>, &read_only<T>);
    return *this;
  }
};

// ---- JavaScript → C++: requests --------------------------------------------------------

template <class T>
BasicMatrix<T> matrix_from_js(const val& m) {
  return BasicMatrix<T>(m["rows"].as<std::size_t>(), m["cols"].as<std::size_t>(),
                        emscripten::convertJSArrayToNumberVector<T>(m["data"]));
}

Matrix matrix_at(const val& request, const char* name) {
  return matrix_from_js<float>(request[name]);
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

// { X, Wq, Wk, Wv } or { Q, K, V }, plus { Wo?, heads, positional, ...options }
TraceInput trace_input_from_js(const val& request) {
  TraceInput input;
  if (!request["X"].isUndefined())
    input.source = Projections{matrix_at(request, "X"), matrix_at(request, "Wq"),
                               matrix_at(request, "Wk"), matrix_at(request, "Wv")};
  else
    input.source =
        DirectQKV{matrix_at(request, "Q"), matrix_at(request, "K"), matrix_at(request, "V")};
  if (!request["Wo"].isUndefined()) input.w_o = matrix_at(request, "Wo");
  input.heads = request["heads"].as<int>();
  input.positional = request["positional"].as<std::string>() == "sinusoidal"
                         ? PositionalEncoding::sinusoidal
                         : PositionalEncoding::none;
  input.options = options_from_js(request);
  if (!request["dOutput"].isUndefined()) input.d_output = matrix_at(request, "dOutput");
  if (!request["jacobianRow"].isUndefined())
    input.jacobian_row = request["jacobianRow"].as<std::size_t>();
  return input;
}

// { causal, heads, scale? } of a long-sequence request.
FlashOptions flash_options_from_js(const val& request) {
  FlashOptions options;
  options.causal = request["causal"].as<bool>();
  options.heads = request["heads"].as<int>();
  if (!request["scale"].isUndefined()) options.scale = request["scale"].as<float>();
  return options;
}

// { causal, scale?, queryRows, keyRows } of a tile-walk request.
WalkOptions walk_options_from_js(const val& request) {
  WalkOptions options;
  options.causal = request["causal"].as<bool>();
  if (!request["scale"].isUndefined()) options.scale = request["scale"].as<float>();
  options.query_rows = request["queryRows"].as<std::size_t>();
  options.key_rows = request["keyRows"].as<std::size_t>();
  return options;
}

std::vector<std::size_t> indices_at(const val& request, const char* name) {
  return emscripten::vecFromJSArray<std::size_t>(request[name]);
}

// ---- Entries ---------------------------------------------------------------------------

// { Q, K, V, ...options }
val attention(const val& request) {
  return to_js(attnlab::attention(matrix_at(request, "Q"), matrix_at(request, "K"),
                                  matrix_at(request, "V"), options_from_js(request)));
}

// { Q, K, V, dO, ...options }
val attention_backward(const val& request) {
  return to_js(attnlab::attention_backward(matrix_at(request, "Q"), matrix_at(request, "K"),
                                           matrix_at(request, "V"), matrix_at(request, "dO"),
                                           options_from_js(request)));
}

val trace(const val& request) { return to_js(attnlab::trace(trace_input_from_js(request))); }

// request as for trace(), with dOutput; parameter: "X", "Q", … "Wo"; row, col: its entry.
val check_gradient(const val& request, const std::string& parameter, std::size_t row,
                   std::size_t col) {
  return to_js(attnlab::check_gradient(trace_input_from_js(request), parameter, row, col));
}

// request as for trace() (X, Wq, Wk, Wv); order: number[], new row i = original token order[i].
val permutation_check(const val& request, const val& order) {
  return to_js(attnlab::permutation_check(trace_input_from_js(request),
                                          emscripten::vecFromJSArray<std::size_t>(order)));
}

// { Q, K, V, causal, heads, scale? } through flash_attention or naive_attention.
template <Result<FlashResult> (*kernel)(const Matrix&, const Matrix&, const Matrix&,
                                        const FlashOptions&)>
val long_sequence(const val& request) {
  return to_js(kernel(matrix_at(request, "Q"), matrix_at(request, "K"), matrix_at(request, "V"),
                      flash_options_from_js(request)));
}

// The same request, only checked: { ok: true } or { error }.
val check_flash_attention(const val& request) {
  const auto problem =
      attnlab::check_flash_attention(matrix_at(request, "Q"), matrix_at(request, "K"),
                                     matrix_at(request, "V"), flash_options_from_js(request));
  if (problem) return val(ErrorValue{*problem});
  val out = val::object();
  out.set("ok", true);
  return out;
}

// { Q, K, causal, heads, scale?, head, rows: number[], cols: number[] }
// { Q, K, V, causal, scale?, queryRows, keyRows }
val flash_walk(const val& request) {
  return to_js(attnlab::flash_walk(matrix_at(request, "Q"), matrix_at(request, "K"),
                                   matrix_at(request, "V"), walk_options_from_js(request)));
}

val sampled_weights(const val& request) {
  return to_js(attnlab::sampled_weights(matrix_at(request, "Q"), matrix_at(request, "K"),
                                        indices_at(request, "rows"), indices_at(request, "cols"),
                                        request["head"].as<int>(), flash_options_from_js(request)));
}

// The shared tile plan for head width d (see tiling.hpp), or undefined beyond the limits.
val tile_plan(std::size_t head_width) { return to_js(tiling::plan_for(head_width)); }

val sinusoidal_encoding(std::size_t tokens, std::size_t width) {
  return to_js(attnlab::sinusoidal_encoding(tokens, width));
}

// scores: Float32Array (one row); temperature: number.
val softmax_breakdown(const val& scores, float temperature) {
  const auto row = emscripten::convertJSArrayToNumberVector<float>(scores);
  return to_js(attnlab::softmax_breakdown(row, temperature));
}

// A JavaScript whole number (≤ 2⁵³, checked by the wrapper) as a 64-bit seed.
std::uint64_t seed_at(const val& request) {
  return static_cast<std::uint64_t>(request["seed"].as<double>());
}

// { dims: number[], keys, samples, seed }
val scaling_study(const val& request) {
  ScalingStudyOptions options;
  options.dims = indices_at(request, "dims");
  options.keys = request["keys"].as<std::size_t>();
  options.samples = request["samples"].as<std::size_t>();
  options.seed = seed_at(request);
  return to_js(attnlab::scaling_study(options));
}

// { rows, cols, seed }
val normal_matrix(const val& request) {
  return to_js(attnlab::normal_matrix(request["rows"].as<std::size_t>(),
                                      request["cols"].as<std::size_t>(), seed_at(request)));
}

// Bytes in use by malloc and the size of the wasm memory (for leak checks), and the bytes
// held through operator new, now and at the peak since resetPeakMemory (for the cost view).
struct MemoryStats {
  double allocated_bytes, heap_bytes, tracked_bytes, peak_tracked_bytes;
};

MemoryStats memory_stats() {
  const struct mallinfo info = mallinfo();
  return {static_cast<double>(info.uordblks), static_cast<double>(info.arena),
          static_cast<double>(allocated_bytes()), static_cast<double>(peak_allocated_bytes())};
}

std::string simd_arch() { return kernels::simd_arch(); }

// The core's limits (limits.hpp) under their JavaScript names, as one plain object: a list
// walked once costs the download less than a value_object of as many fields.
val limits_table() {
  namespace l = attnlab::limits;
  const std::pair<const char*, double> table[] = {
      {"traceTokens", l::trace_tokens},
      {"traceFeatures", l::trace_features},
      {"maxHeads", l::max_heads},
      {"traceScores", l::trace_scores},
      {"attentionTokens", l::attention_tokens},
      {"attentionFeatures", l::attention_features},
      {"flashTokens", l::flash_tokens},
      {"flashFeatures", l::flash_features},
      {"flashValues", l::flash_values},
      {"flashScores", double(l::flash_scores)},
      {"flashMultiplyAdds", double(l::flash_multiply_adds)},
      {"naiveScores", double(l::naive_scores)},
      {"naiveMultiplyAdds", double(l::naive_multiply_adds)},
      {"maxHeadWidth", l::max_head_width},
      {"sampledRows", l::sampled_rows},
      {"sampledCols", l::sampled_cols},
      {"softmaxRow", l::softmax_row},
      {"scalingDims", l::scaling_dims},
      {"scalingMaxDk", l::scaling_max_dk},
      {"scalingMinKeys", l::scaling_min_keys},
      {"scalingMaxKeys", l::scaling_max_keys},
      {"scalingMaxSamples", l::scaling_max_samples},
      {"scalingDraws", l::scaling_draws},
      {"sinusoidalMax", l::sinusoidal_max},
      {"normalValues", l::normal_values},
      {"walkTokens", l::walk_tokens},
      {"walkFeatures", l::walk_features},
      {"walkTile", l::walk_tile},
  };
  val out = val::object();
  for (const auto& [name, value] : table) out.set(name, value);
  return out;
}

// The core's lists, for the package's STEP_IDS and ERROR_CODES (a test compares them).
val step_ids() {
  return to_js(std::vector<std::string>(attnlab::step_ids.begin(), attnlab::step_ids.end()));
}

val error_codes() {
  return to_js(std::vector<ErrorCode>(attnlab::error_codes.begin(), attnlab::error_codes.end()));
}

// ---- Out of memory -----------------------------------------------------------------------

val out_of_memory() {
  char message[200];
  std::snprintf(message, sizeof message,
                "out of memory: the WebAssembly heap could not grow enough for this call (it "
                "holds %zu MiB of at most %zu MiB); everything the call took has been given back",
                emscripten_get_heap_size() >> 20, emscripten_get_heap_max() >> 20);
  return val(ErrorValue{{ErrorCode::out_of_memory, message}});
}

// call(context), or the out-of-memory error when an allocation fails on the way. The one
// catch of every entry: a catch in each would add its handler code to the download each time.
[[gnu::noinline]] val catch_out_of_memory(val (*call)(const void*), const void* context) {
  try {
    return call(context);
  } catch (const std::bad_alloc&) {
    return out_of_memory();
  }
}

// entry(args…) through catch_out_of_memory.
template <auto entry>
struct guarded;
template <class... Args, val (*entry)(Args...)>
struct guarded<entry> {
  static val call(Args... args) {
    const auto packed = std::forward_as_tuple(args...);
    return catch_out_of_memory(
        [](const void* p) { return std::apply(entry, *static_cast<decltype(&packed)>(p)); },
        &packed);
  }
};

}  // namespace

EMSCRIPTEN_BINDINGS(attnlab) {
  result<Matrix>("Matrix")
      .field<&Matrix::rows>("rows")
      .field<&Matrix::cols>("cols")
      .field<&Matrix::data>("data");
  result<BoolMatrix>("BoolMatrix")
      .field<&BoolMatrix::rows>("rows")
      .field<&BoolMatrix::cols>("cols")
      .field<&BoolMatrix::data>("data");
  result<Error>("Error").field<&Error::code>("code").field<&Error::message>("message");
  result<ErrorValue>("ErrorValue").field<&ErrorValue::error>("error");

  result<AttentionResult>("AttentionResult")
      .field<&AttentionResult::scores>("scores")
      .field<&AttentionResult::scale>("scale")
      .field<&AttentionResult::temperature>("temperature")
      .field<&AttentionResult::factor>("factor")
      .field<&AttentionResult::scaled>("scaled")
      .field<&AttentionResult::logits>("logits")
      .field<&AttentionResult::softmax, &kernels::Softmax::row_max>("rowMax")
      .field<&AttentionResult::softmax, &kernels::Softmax::row_sum>("rowSum")
      .field<&AttentionResult::softmax, &kernels::Softmax::exponentials>("exponentials")
      .field<&AttentionResult::softmax, &kernels::Softmax::weights>("weights")
      .field<&AttentionResult::output>("output")
      .field<&AttentionResult::fully_masked_rows>("fullyMaskedRows");

  result<Operand>("Operand")
      .field<&Operand::name>("name")
      .field<&Operand::symbol>("symbol")
      .field<&Operand::head>("head")
      .field<&Operand::step>("step")
      .field<&Operand::values>("values");
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
      .field<&TraceStep::jacobian, &SoftmaxJacobian::row_dot>("rowDot")
      .field<&TraceStep::jacobian, &SoftmaxJacobian::jacobian_rows>("jacobianRows")
      .field<&TraceStep::jacobian, &SoftmaxJacobian::jacobians>("jacobians");
  result<GradientCheck>("GradientCheck")
      .field<&GradientCheck::analytic>("analytic")
      .field<&GradientCheck::numeric>("numeric")
      .field<&GradientCheck::relative_error>("relativeError")
      .field<&GradientCheck::epsilon>("epsilon");
  result<StepGroup>("StepGroup")
      .field<&StepGroup::id>("id")
      .field<&StepGroup::title>("title")
      .field<&StepGroup::steps>("steps");
  result<Trace>("Trace")
      .field<&Trace::steps>("steps")
      .field<&Trace::groups>("groups")
      .field<&Trace::output>("output")
      .field<&Trace::fully_masked_rows>("fullyMaskedRows");

  result<PermutationCheck>("PermutationCheck")
      .field<&PermutationCheck::original>("original")
      .field<&PermutationCheck::permuted>("permuted")
      .field<&PermutationCheck::predicted>("predicted")
      .field<&PermutationCheck::max_difference>("maxDifference")
      .field<&PermutationCheck::tolerance>("tolerance")
      .field<&PermutationCheck::reordered_only>("reorderedOnly");

  result<WalkEvent>("WalkEvent")
      .field<&WalkEvent::kind>("kind")
      .field<&WalkEvent::query_block>("queryBlock")
      .field<&WalkEvent::key_block>("keyBlock")
      .field<&WalkEvent::first_query>("firstQuery")
      .field<&WalkEvent::first_key>("firstKey")
      .field<&WalkEvent::queries>("queries")
      .field<&WalkEvent::keys>("keys")
      .field<&WalkEvent::scores>("scores")
      .field<&WalkEvent::old_max>("oldMax")
      .field<&WalkEvent::new_max>("newMax")
      .field<&WalkEvent::rescale>("rescale")
      .field<&WalkEvent::sum>("sum")
      .field<&WalkEvent::acc>("acc")
      .field<&WalkEvent::output>("output");
  result<AttentionGradients>("AttentionGradients")
      .field<&AttentionGradients::dq>("dQ")
      .field<&AttentionGradients::dk>("dK")
      .field<&AttentionGradients::dv>("dV");
  result<FlashWalk>("FlashWalk")
      .field<&FlashWalk::events>("events")
      .field<&FlashWalk::output>("output")
      .field<&FlashWalk::tile_floats>("tileFloats")
      .field<&FlashWalk::matrix_floats>("matrixFloats");
  result<FlashResult>("FlashResult")
      .field<&FlashResult::output>("output")
      .field<&FlashResult::fully_masked_rows>("fullyMaskedRows");
  result<tiling::TilePlan>("TilePlan")
      .field<&tiling::TilePlan::query_rows>("queryRows")
      .field<&tiling::TilePlan::key_rows>("keyRows")
      .field<&tiling::TilePlan::head_width>("headWidth")
      .field<&tiling::TilePlan::cpu_key_rows>("cpuKeyRows")
      .field<&tiling::TilePlan::workgroup_storage_bytes>("workgroupStorageBytes");

  result<SoftmaxWithoutMax>("SoftmaxWithoutMax")
      .field<&SoftmaxWithoutMax::exponentials>("exponentials")
      .field<&SoftmaxWithoutMax::sum>("sum")
      .field<&SoftmaxWithoutMax::weights>("weights")
      .field<&SoftmaxWithoutMax::overflowed>("overflowed")
      .field<&SoftmaxWithoutMax::term_overflowed>("termOverflowed")
      .field<&SoftmaxWithoutMax::underflowed>("underflowed");
  result<SoftmaxBreakdown>("SoftmaxBreakdown")
      .field<&SoftmaxBreakdown::temperature>("temperature")
      .field<&SoftmaxBreakdown::scaled>("scaled")
      .field<&SoftmaxBreakdown::max>("max")
      .field<&SoftmaxBreakdown::shifted>("shifted")
      .field<&SoftmaxBreakdown::exponentials>("exponentials")
      .field<&SoftmaxBreakdown::sum>("sum")
      .field<&SoftmaxBreakdown::weights>("weights")
      .field<&SoftmaxBreakdown::without_max>("withoutMax");

  result<ScalingPoint>("ScalingPoint")
      .field<&ScalingPoint::dk>("dk")
      .field<&ScalingPoint::score_std>("scoreStd")
      .field<&ScalingPoint::sqrt_dk>("sqrtDk")
      .field<&ScalingPoint::max_weight_scaled>("maxWeightScaled")
      .field<&ScalingPoint::max_weight_unscaled>("maxWeightUnscaled")
      .field<&ScalingPoint::entropy_scaled>("entropyScaled")
      .field<&ScalingPoint::entropy_unscaled>("entropyUnscaled")
      .field<&ScalingPoint::example_scores>("exampleScores")
      .field<&ScalingPoint::example_weights_scaled>("exampleWeightsScaled")
      .field<&ScalingPoint::example_weights_unscaled>("exampleWeightsUnscaled");
  result<ScalingStudy>("ScalingStudy")
      .field<&ScalingStudy::keys>("keys")
      .field<&ScalingStudy::samples>("samples")
      .field<&ScalingStudy::max_entropy>("maxEntropy")
      .field<&ScalingStudy::points>("points");

  result<MemoryStats>("MemoryStats")
      .field<&MemoryStats::allocated_bytes>("allocatedBytes")
      .field<&MemoryStats::heap_bytes>("heapBytes")
      .field<&MemoryStats::tracked_bytes>("trackedBytes")
      .field<&MemoryStats::peak_tracked_bytes>("peakTrackedBytes");

  // The entries that take a request, each guarded; the lists and counters below allocate
  // little, once, while the module loads.
  emscripten::function("attention", &guarded<&attention>::call);
  emscripten::function("attentionBackward", &guarded<&attention_backward>::call);
  emscripten::function("trace", &guarded<&trace>::call);
  emscripten::function("checkGradient", &guarded<&check_gradient>::call);
  emscripten::function("permutationCheck", &guarded<&permutation_check>::call);  // positions
  emscripten::function("flashAttention", &guarded<&long_sequence<&attnlab::flash_attention>>::call);
  emscripten::function("naiveAttention", &guarded<&long_sequence<&attnlab::naive_attention>>::call);
  emscripten::function("checkFlashAttention", &guarded<&check_flash_attention>::call);
  emscripten::function("tilePlan", &guarded<&tile_plan>::call);
  emscripten::function("sampledWeights", &guarded<&sampled_weights>::call);
  emscripten::function("flashWalk", &guarded<&flash_walk>::call);
  emscripten::function("sinusoidalEncoding", &guarded<&sinusoidal_encoding>::call);
  emscripten::function("softmaxBreakdown", &guarded<&softmax_breakdown>::call);
  emscripten::function("scalingStudy", &guarded<&scaling_study>::call);
  emscripten::function("normalMatrix", &guarded<&normal_matrix>::call);
  emscripten::function("memoryStats", &memory_stats);
  emscripten::function("resetPeakMemory", &reset_peak_allocated_bytes);
  emscripten::function("simdArch", &simd_arch);
  emscripten::function("limits", &limits_table);
  emscripten::function("stepIds", &step_ids);
  emscripten::function("errorCodes", &error_codes);
}

}  // namespace attnlab::bindings
