// Embind bindings: the JavaScript boundary of the core, described once.
//
// Results: every result struct of the core is registered as an Embind value_object, each
// field named once (attention_results.hpp, trace_values.hpp, long_results.hpp,
// teaching_results.hpp and efficient_results.hpp, by kind of entry; memoryStats() below), so it
// reaches JavaScript as a plain object (no handle, nothing to .delete()). Field values convert
// by kind (to_js): a Matrix becomes { rows, cols, data: Float32Array } (a BoolMatrix: Uint8Array
// data), a std::vector<float> a Float32Array, other vectors arrays, an empty std::optional
// `undefined`, an ErrorCode its spelling. A result the package hands to users is registered
// with a line of doc per field (ATTNLAB_RESULT_DOC): the typings module (this file built with
// the docs) exports them as results(), and scripts/typings.mjs writes attnlab.d.ts's result
// interfaces from them.
// Every entry returns its result or { error: { code, message } }.
//
// Memory: the sizes each entry takes (limits.hpp) fit the wasm heap, which may still refuse to
// grow (a browser short of memory). The core is built with wasm exceptions, so an allocation
// that fails unwinds the call, freeing all it held, and becomes the error out-of-memory
// (guarded, below); the module then works as before.
//
// Requests: read through the fields declared once in requests.hpp, whose types web/lib/requests.js
// has already checked from lab.schema() (matrices arrive as { rows, cols, data }); the core
// checks every value and size.
// The friendly API (number[][] in and out, AttnLabError) is web/lib/attnlab.js.
#include <malloc.h>
#include <unistd.h>

#include <cstdint>
#include <string>
#include <vector>

#include "allocation_tracking.hpp"
#include "attention_results.hpp"
#include "attnlab/attention_import.hpp"  // its limits, for limits()
#include "attnlab/attnlab.hpp"
#include "attnlab/tokenizer.hpp"  // its limit, for limits()
#include "efficient_results.hpp"
#include "js_values.hpp"
#include "learn_results.hpp"  // the typings module registers them too
#include "long_results.hpp"
#include "model_results.hpp"  // the same
#include "request_entries.hpp"
#include "schema.hpp"
#include "teaching_results.hpp"
#include "trace_values.hpp"

// Where the heap starts (the linker places it after the static data and the stack).
extern "C" unsigned char __heap_base;

namespace attnlab::bindings {
namespace {

// ---- Entries ---------------------------------------------------------------------------

val attention(const val& request) {
  const auto r = read_request<AttentionRequest>(request, entries::attention);
  return to_js(attnlab::attention(r.qkv.q, r.qkv.k, r.qkv.v, r.options));
}

val attention_backward(const val& request) {
  const auto r = read_request<AttentionRequest>(request, entries::attention_backward);
  return to_js(
      attnlab::attention_backward(r.qkv.q, r.qkv.k, r.qkv.v, r.gradient.d_output, r.options));
}

// The forward steps: the backward ones (a request with dOutput) are the learning module's.
val trace(const val& request) { return to_js(attnlab::forward_trace(trace_input(request))); }

// The trace's request and order: new row i = original token order[i].
val permutation_check(const val& request) {
  TraceRequest r = read_request<TraceRequest>(request, entries::permutation);
  return to_js(attnlab::permutation_check(trace_input(r, request), r.order.order));
}

// The long-sequence request through flash_attention or naive_attention.
template <Result<LongAttentionResult> (*kernel)(const Matrix&, const Matrix&, const Matrix&,
                                                const LongAttentionOptions&)>
val long_sequence(const val& request) {
  const auto r = read_request<LongRequest>(request, entries::flash);
  return to_js(kernel(r.qkv.q, r.qkv.k, r.qkv.v, r.options));
}

// The same request, only checked: { ok: true } or { error }.
val check_flash_attention(const val& request) {
  const auto r = read_request<LongRequest>(request, entries::check_flash);
  const auto problem = attnlab::check_flash_attention(r.qkv.q, r.qkv.k, r.qkv.v, r.options);
  if (problem) return val(ErrorValue{*problem});
  val out = val::object();
  out.set("ok", true);
  return out;
}

// The trace's request, computed token by token with a KV cache.
val decode(const val& request) {
  return to_js(attnlab::decode(trace_input(request, entries::decode)));
}

// Bytes per token, or { error }.
val kv_cache_bytes(const val& request) {
  const auto shape = read_request<KvCacheShape>(request, entries::cache);
  if (auto problem = check_kv_cache_shape(shape)) return val(ErrorValue{*problem});
  return val(static_cast<double>(attnlab::kv_cache_bytes(shape)));
}

val flash_walk(const val& request) {
  const auto r = read_request<WalkRequest>(request, entries::walk);
  return to_js(attnlab::flash_walk(r.qkv.q, r.qkv.k, r.qkv.v, r.options));
}

val sampled_weights(const val& request) {
  const auto r = read_request<LongRequest>(request, entries::sampled);
  auto weights = attnlab::sampled_weights(r.qkv.q, r.qkv.k, r.cells.rows, r.cells.cols,
                                          r.cells.head, r.options);
  if (!weights) return val(ErrorValue{weights.error()});
  auto mask =
      sampled_mask(r.qkv.q.rows, r.qkv.k.rows, r.cells.rows, r.cells.cols, r.cells.head, r.options);
  if (!mask) return val(ErrorValue{mask.error()});
  return val(SampledWeights{std::move(weights.value()), std::move(mask.value())});
}

// The flash kernel's plan of the request's heads (head widths, scale, overflow bound) and the
// rules a pass run elsewhere applies (key bands, ALiBi's slopes, fully masked rows).
val flash_plan(const val& request) {
  const auto r = read_request<LongRequest>(request, entries::plan);
  return to_js(attnlab::flash_plan(r.qkv.q, r.qkv.k, r.qkv.v, r.options));
}

// The shared tile plan for head width d (see tiling.hpp), or undefined beyond the limits.
val tile_plan(const val& request) {
  return to_js(tiling::plan_for(read_request<TilePlanRequest>(request, entries::tile).head_width));
}

val sinusoidal_encoding(const val& request) {
  const auto r = read_request<SinusoidalEncodingRequest>(request, entries::sinusoidal);
  return to_js(attnlab::sinusoidal_encoding(r.positions, r.width));
}

val softmax_breakdown(const val& request) {
  const auto r = read_request<SoftmaxBreakdownRequest>(request, entries::softmax);
  return to_js(attnlab::softmax_breakdown(r.scores, r.temperature));
}

val scaling_study(const val& request) {
  return to_js(
      attnlab::scaling_study(read_request<ScalingStudyOptions>(request, entries::scaling)));
}

val linear_attention(const val& request) {
  const auto r = read_request<LinearAttentionRequest>(request, entries::linear);
  return to_js(attnlab::linear_attention(r.qkv.q, r.qkv.k, r.qkv.v, r.options));
}

val retention(const val& request) {
  const auto r = read_request<RetentionRequest>(request, entries::retention);
  return to_js(attnlab::retention(r.qkv.q, r.qkv.k, r.qkv.v, r.options));
}

// The long linear kernels' requests: flat outputs, as the flash kernel's.
val long_linear_attention(const val& request) {
  const auto r = read_request<LongLinearRequest>(request, entries::long_linear);
  return to_js(attnlab::long_linear_attention(r.qkv.q, r.qkv.k, r.qkv.v, r.options));
}

val long_retention(const val& request) {
  const auto r = read_request<LongRetentionRequest>(request, entries::long_retention);
  return to_js(attnlab::long_retention(r.qkv.q, r.qkv.k, r.qkv.v, r.options));
}

val low_rank_attention(const val& request) {
  const auto r = read_request<LowRankRequest>(request, entries::low_rank);
  return to_js(attnlab::low_rank_attention(r.qkv.q, r.qkv.k, r.qkv.v, r.options));
}

val sparse_pattern(const val& request) {
  return to_js(
      attnlab::sparse_pattern(read_request<SparsePatternOptions>(request, entries::sparse)));
}

val normal_matrix(const val& request) {
  const auto r = read_request<NormalMatrixRequest>(request, entries::normal);
  return to_js(attnlab::normal_matrix(r.rows, r.cols, r.seed));
}

// Bytes in use by malloc and the size of the wasm memory (for leak checks), and the bytes
// held through operator new, now and at the peak since resetPeakMemory (for the cost view).
struct MemoryStats {
  double allocated_bytes, heap_bytes, tracked_bytes, peak_tracked_bytes;
};

MemoryStats memory_stats() {
  // The heap's size is what sbrk has given malloc: mallinfo's arena means that in dlmalloc
  // (the threaded core) but the unused memory above it in emmalloc (this one).
  const auto heap =
      reinterpret_cast<std::uintptr_t>(sbrk(0)) - reinterpret_cast<std::uintptr_t>(&__heap_base);
  return {static_cast<double>(mallinfo().uordblks), static_cast<double>(heap),
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
      {"backwardTokens", l::backward_tokens},
      {"backwardFeatures", l::backward_features},
      {"attentionTokens", l::attention_tokens},
      {"attentionFeatures", l::attention_features},
      {"lowRankTokens", l::low_rank_tokens},
      {"flashTokens", l::flash_tokens},
      {"flashFeatures", l::flash_features},
      {"flashValues", l::flash_values},
      {"flashScores", double(l::flash_scores)},
      {"flashMultiplyAdds", double(l::flash_multiply_adds)},
      {"longChunk", l::long_chunk},
      {"longLinearMultiplyAdds", double(l::long_linear_multiply_adds)},
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
      {"favorFeatures", l::favor_features},
      {"favorMultiplyAdds", double(l::favor_multiply_adds)},
      {"sparseTokens", l::sparse_tokens},
      {"sparseCells", l::sparse_cells},
      {"walkTokens", l::walk_tokens},
      {"walkFeatures", l::walk_features},
      {"walkTile", l::walk_tile},
      {"globalTokens", l::global_tokens},
      {"decodeTokens", l::decode_tokens},
      {"decodeKeys", l::decode_keys},
      {"cacheLayers", l::cache_layers},
      {"cacheKvHeads", l::cache_kv_heads},
      {"cacheHeadWidth", l::cache_head_dim},
      {"cacheHeadDim", l::cache_head_dim},  // the older name of cacheHeadWidth
      {"cacheValueBytes", l::cache_value_bytes},
      {"trainLayers", l::train_layers},
      {"trainHeads", l::train_heads},
      {"trainDModel", l::train_d_model},
      {"trainContext", l::train_context},
      {"trainVocab", l::train_vocab},
      {"trainBatch", l::train_batch},
      {"trainSteps", l::train_steps},
      {"importLayers", l::import_layers},
      {"importValues", l::import_values},
      {"tokenizeBytes", l::tokenize_bytes},
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

}  // namespace

// The core's requests; the model module's come with it (lab.loadModel()).
std::string core_schema() { return schema({entries::all}); }

EMSCRIPTEN_BINDINGS(attnlab) {
  register_common();
  register_attention_results();
  register_long_results();
  register_teaching_results();
  register_efficient_results();

  result<MemoryStats>("MemoryStats", ATTNLAB_RESULT_DOC("memoryStats(): the core's memory."))
      .field<&MemoryStats::allocated_bytes>("allocatedBytes",
                                            ATTNLAB_RESULT_DOC("Bytes malloc holds now."))
      .field<&MemoryStats::heap_bytes>(
          "heapBytes", ATTNLAB_RESULT_DOC("The size of malloc's heap in the wasm memory."))
      .field<&MemoryStats::tracked_bytes>(
          "trackedBytes", ATTNLAB_RESULT_DOC("Bytes the core holds through operator new now (every "
                                             "matrix it allocates)."))
      .field<&MemoryStats::peak_tracked_bytes>(
          "peakTrackedBytes", ATTNLAB_RESULT_DOC("The most trackedBytes reached since "
                                                 "resetPeakMemory(): a call's working memory."));

  // The entries that take a request, each guarded; the lists and counters below allocate
  // little, once, while the module loads.
  emscripten::function("attention", &guarded<&attention>::call);
  emscripten::function("attentionBackward", &guarded<&attention_backward>::call);
  emscripten::function("trace", &guarded<&trace>::call);
  emscripten::function("decode", &guarded<&decode>::call);
  emscripten::function("kvCacheBytes", &guarded<&kv_cache_bytes>::call);
  emscripten::function("permutationCheck", &guarded<&permutation_check>::call);
  emscripten::function("flashAttention", &guarded<&long_sequence<&attnlab::flash_attention>>::call);
  emscripten::function("naiveAttention", &guarded<&long_sequence<&attnlab::naive_attention>>::call);
  emscripten::function("checkFlashAttention", &guarded<&check_flash_attention>::call);
  emscripten::function("flashPlan", &guarded<&flash_plan>::call);
  emscripten::function("tilePlan", &guarded<&tile_plan>::call);
  emscripten::function("sampledWeights", &guarded<&sampled_weights>::call);
  emscripten::function("flashWalk", &guarded<&flash_walk>::call);
  emscripten::function("sinusoidalEncoding", &guarded<&sinusoidal_encoding>::call);
  emscripten::function("softmaxBreakdown", &guarded<&softmax_breakdown>::call);
  emscripten::function("scalingStudy", &guarded<&scaling_study>::call);
  emscripten::function("normalMatrix", &guarded<&normal_matrix>::call);
  emscripten::function("linearAttention", &guarded<&linear_attention>::call);
  emscripten::function("retention", &guarded<&retention>::call);
  emscripten::function("sparsePattern", &guarded<&sparse_pattern>::call);
  emscripten::function("lowRankAttention", &guarded<&low_rank_attention>::call);
  emscripten::function("longLinearAttention", &guarded<&long_linear_attention>::call);
  emscripten::function("longRetention", &guarded<&long_retention>::call);
  emscripten::function("memoryStats", &memory_stats);
  emscripten::function("resetPeakMemory", &reset_peak_allocated_bytes);
  emscripten::function("simdArch", &simd_arch);
  emscripten::function("maxThreads", &kernels::max_threads);
  emscripten::function("limits", &limits_table);
  emscripten::function("stepIds", &step_ids);
  emscripten::function("errorCodes", &error_codes);
  emscripten::function("schema", &core_schema);
#ifdef ATTNLAB_RESULT_DOCS
  // The typings module (the core with the results' docs, not shipped): the learning and model
  // modules' results too, and every result's fields.
  register_learning_results();
  register_model_results();
  emscripten::function("results", &results);
#endif
}

}  // namespace attnlab::bindings
