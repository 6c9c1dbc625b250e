// Embind bindings: the JavaScript boundary of the core, described once.
//
// Results: every result struct of the core is registered below as an Embind value_object,
// each field named once, so it reaches JavaScript as a plain object (no handle, nothing to
// .delete()). Field values convert by kind (to_js): a Matrix becomes { rows, cols, data:
// Float32Array } (a BoolMatrix: Uint8Array data), a std::vector<float> a Float32Array, other
// vectors arrays, an empty std::optional `undefined`, an ErrorCode its spelling. A result the
// package hands to users is registered with a line of doc per field (ATTNLAB_RESULT_DOC): the
// typings module (this file built with the docs) exports them as results(), and
// scripts/typings.mjs writes attnlab.d.ts's result interfaces from them.
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
#include "attnlab/attention_import.hpp"  // its limits, for limits()
#include "attnlab/attnlab.hpp"
#include "attnlab/tokenizer.hpp"  // its limit, for limits()
#include "js_values.hpp"
#include "learn_results.hpp"  // the typings module registers them too
#include "model_results.hpp"  // the same
#include "requests.hpp"
#include "schema.hpp"
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

// The sampled weights, which of their cells the rules hide and how many keys each row sees.
struct SampledWeights {
  Matrix weights;
  SampledMask mask;
};

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

// A pattern's mask as { rows, cols, data: Uint8Array }, which the wrapper turns into boolean[][]
// (one copy out of the heap, where a val per cell costs a call each).
val flat_mask(const BasicMatrix<std::uint8_t>& m) {
  val out = val::object();
  out.set("rows", static_cast<double>(m.rows));
  out.set("cols", static_cast<double>(m.cols));
  out.set("data", to_js(m.data));
  return out;
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
  result<AttentionResult>("AttentionResult",
                          ATTNLAB_RESULT_DOC("attention(): every intermediate of softmax(Q·Kᵀ · "
                                             "factor)·V."))
      .field<&AttentionResult::scores>("scores", ATTNLAB_RESULT_DOC("Q·Kᵀ: (n_q, n_k)."))
      .field<&AttentionResult::scale>(
          "scale", ATTNLAB_RESULT_DOC("options.scale or the default 1/√d_k, temperature excluded."))
      .field<&AttentionResult::temperature>("temperature",
                                            ATTNLAB_RESULT_DOC("options.temperature (default 1)."))
      .field<&AttentionResult::factor>(
          "factor", ATTNLAB_RESULT_DOC("scale / temperature: what multiplies the scores."))
      .field<&AttentionResult::scaled>("scaled", ATTNLAB_RESULT_DOC("scores · factor."))
      .field<&AttentionResult::logits>("logits",
                                       ATTNLAB_RESULT_DOC("scaled, -Infinity where masked."))
      .field<&AttentionResult::softmax, &kernels::Softmax::row_max>(
          "rowMax", ATTNLAB_RESULT_DOC("Each row's max logit; -Infinity for a fully masked row."))
      .field<&AttentionResult::softmax, &kernels::Softmax::row_sum>(
          "rowSum", ATTNLAB_RESULT_DOC("Each row's sum of exponentials."))
      .field<&AttentionResult::softmax, &kernels::Softmax::exponentials>(
          "exponentials", ATTNLAB_RESULT_DOC("exp(logit − row max)."))
      .field<&AttentionResult::softmax, &kernels::Softmax::weights>(
          "weights", ATTNLAB_RESULT_DOC("softmax rows: (n_q, n_k)."))
      .field<&AttentionResult::output>("output", ATTNLAB_RESULT_DOC("weights · V: (n_q, d_v)."))
      .field<&AttentionResult::fully_masked_rows>(
          "fullyMaskedRows", ATTNLAB_RESULT_DOC("The rows whose query sees no key: their weights "
                                                "and output are zeros."));

  register_trace_results<core_has_family_fields>();
  result<DecodeHead>("DecodeHead",
                     ATTNLAB_RESULT_DOC("One head at one position of decode(): only the new rows "
                                        "are computed; the cache grows."))
      .field<&DecodeHead::q>("q", ATTNLAB_RESULT_DOC("The new row (1, d_k), rotated under RoPE."))
      .field<&DecodeHead::k>("k", ATTNLAB_RESULT_DOC("The new row (1, d_k), rotated under RoPE."))
      .field<&DecodeHead::v>("v", ATTNLAB_RESULT_DOC("The new row (1, d_v)."))
      .field<&DecodeHead::keys>(
          "keys", ATTNLAB_RESULT_DOC("The cache after adding them: (t+1, d_k) (the head's K/V "
                                     "group's; a given pastKey's rows first)."))
      .field<&DecodeHead::values>("values",
                                  ATTNLAB_RESULT_DOC("The cache after adding them: (t+1, d_v)."))
      .field<&DecodeHead::scores>(
          "scores", ATTNLAB_RESULT_DOC("(1, t+1): q·Kᵀ·scale/temperature, plus the ALiBi bias, "
                                       "-Infinity where the window, mask or padding blocks a key."))
      .field<&DecodeHead::weights>("weights", ATTNLAB_RESULT_DOC("(1, t+1)."))
      .field<&DecodeHead::output>("output", ATTNLAB_RESULT_DOC("(1, d_v)."));
  result<DecodeStep>("DecodeStep",
                     ATTNLAB_RESULT_DOC("One token of decode(): its position and every head's new "
                                        "rows."))
      .field<&DecodeStep::position>(
          "position", ATTNLAB_RESULT_DOC("t: the token's row, after the n_past rows of a given "
                                         "pastKey."))
      .field<&DecodeStep::heads>("heads", ATTNLAB_RESULT_DOC("Each head's rows at this position."))
      .field<&DecodeStep::output>(
          "output", ATTNLAB_RESULT_DOC("(1, d_out): the heads side by side, times Wo when given."));
  result<DecodeTrace>("DecodeTrace", ATTNLAB_RESULT_DOC("decode(): the steps token by token."))
      .field<&DecodeTrace::steps>("steps", ATTNLAB_RESULT_DOC("One per token."))
      .field<&DecodeTrace::output>(
          "output", ATTNLAB_RESULT_DOC("(n, d_out): the steps' output rows stacked; equals trace({ "
                                       "...request, causal: true }).output."));

  result<PermutationCheck>("PermutationCheck",
                           ATTNLAB_RESULT_DOC("Self-attention traced on tokens X as given and "
                                              "reordered: see AttnLab.permutationCheck."))
      .field<&PermutationCheck::original>("original",
                                          ATTNLAB_RESULT_DOC("trace(request).output: (n, d_out)."))
      .field<&PermutationCheck::permuted>(
          "permuted", ATTNLAB_RESULT_DOC("The output when row i of X is the original token "
                                         "order[i]: (n, d_out)."))
      .field<&PermutationCheck::predicted>(
          "predicted", ATTNLAB_RESULT_DOC("original's rows reordered the same way: what "
                                          "equivariance predicts for permuted."))
      .field<&PermutationCheck::max_difference>("maxDifference",
                                                ATTNLAB_RESULT_DOC("max |permuted − predicted|."))
      .field<&PermutationCheck::tolerance>(
          "tolerance", ATTNLAB_RESULT_DOC("How far float rounding alone may move it: 1e-5 · max(1, "
                                          "max |original|)."))
      .field<&PermutationCheck::reordered_only>(
          "reorderedOnly", ATTNLAB_RESULT_DOC("maxDifference ≤ tolerance: the same rows, just "
                                              "reordered."));

  result<WalkEvent>("WalkEvent",
                    ATTNLAB_RESULT_DOC("One step of the tile walk: a query block's visit to a key "
                                       "tile, or the block's end."))
      .field<&WalkEvent::kind>("kind", ATTNLAB_RESULT_DOC("A tile visit or the block's finish."),
                               "'tile' | 'finish'")
      .field<&WalkEvent::query_block>("queryBlock")
      .field<&WalkEvent::key_block>("keyBlock")
      .field<&WalkEvent::first_query>("firstQuery")
      .field<&WalkEvent::first_key>("firstKey")
      .field<&WalkEvent::queries>("queries")
      .field<&WalkEvent::keys>("keys")
      .field<&WalkEvent::scores>(
          "scores", ATTNLAB_RESULT_DOC("(queries, keys): the tile's scaled scores, -Infinity where "
                                       "masked (tile events)."))
      .field<&WalkEvent::old_max>("oldMax")
      .field<&WalkEvent::new_max>("newMax")
      .field<&WalkEvent::rescale>(
          "rescale", ATTNLAB_RESULT_DOC("exp(oldMax − newMax): what the running sum and "
                                        "accumulator shrink by."))
      .field<&WalkEvent::sum>("sum")
      .field<&WalkEvent::acc>("acc")
      .field<&WalkEvent::output>(
          "output", ATTNLAB_RESULT_DOC("finish events: acc / sum, the block's rows of the "
                                       "output."));
  result<AttentionGradients>("AttentionGradients",
                             ATTNLAB_RESULT_DOC("The gradients of a loss L through attention(); "
                                                "masked cells pass none."))
      .field<&AttentionGradients::dq>("dQ", ATTNLAB_RESULT_DOC("∂L/∂Q: (n_q, d_k)."))
      .field<&AttentionGradients::dk>("dK", ATTNLAB_RESULT_DOC("∂L/∂K: (n_k, d_k)."))
      .field<&AttentionGradients::dv>("dV", ATTNLAB_RESULT_DOC("∂L/∂V: (n_k, d_v)."));
  result<FlashWalk>("FlashWalk",
                    ATTNLAB_RESULT_DOC("flashWalk(): the walk's events and its output."))
      .field<&FlashWalk::events>("events")
      .field<&FlashWalk::output>("output")
      .field<&FlashWalk::tile_floats>(
          "tileFloats", ATTNLAB_RESULT_DOC("Floats held at once: the Q, K, V and score tiles, and "
                                           "m, l and acc."))
      .field<&FlashWalk::matrix_floats>(
          "matrixFloats", ATTNLAB_RESULT_DOC("Floats of the n_q × n_k score matrix the walk never "
                                             "forms."));
  result<LongAttentionResult>("LongAttentionResult",
                              ATTNLAB_RESULT_DOC("flashAttention() and naiveAttention(): the "
                                                 "output, flat."))
      .field<&LongAttentionResult::output>("output", ATTNLAB_RESULT_DOC("(n_q, heads·d_v), flat."))
      .field<&LongAttentionResult::fully_masked_rows>(
          "fullyMaskedRows", ATTNLAB_RESULT_DOC("Rows whose query sees no key under the causal "
                                                "rule and the window, or only padding or −∞-biased "
                                                "keys (their output is zeros)."));
  result<LongLinearResult>("LongLinearResult",
                           ATTNLAB_RESULT_DOC("longLinearAttention() and longRetention(): the "
                                              "output, flat."))
      .field<&LongLinearResult::output>("output", ATTNLAB_RESULT_DOC("(n_q, heads·d_v), flat."))
      .field<&LongLinearResult::zero_normalizer_rows>(
          "zeroNormalizerRows", ATTNLAB_RESULT_DOC("Rows where some head's normaliser is 0: "
                                                   "that head's columns are zeros (linear "
                                                   "attention only)."));
  result<SampledWeights>(
      "SampledCells", ATTNLAB_RESULT_DOC("lab.sampledCells(): the sampled weights and what hides "
                                         "each cell."))
      .field<&SampledWeights::weights>(
          "weights", ATTNLAB_RESULT_DOC("The weights of the sampled rows (each normalised over all "
                                        "keys) at the sampled columns."))
      .field<&SampledWeights::mask, &SampledMask::hidden, &boolean_rows>(
          "hidden",
          ATTNLAB_RESULT_DOC("true where the causal rule, the window, a padding key or a "
                             "−∞ bias hides key cols[c] from query rows[r] (its weight "
                             "is 0)."),
          "boolean[][]")
      .field<&SampledWeights::mask, &SampledMask::visible_keys>(
          "visibleKeys", ATTNLAB_RESULT_DOC("The keys each sampled query row sees: its weights sum "
                                            "to 1 over them."));
  result<FlashPlan>("FlashPlan",
                    ATTNLAB_RESULT_DOC("lab.flashPlan(): the flash kernel's own rules for a "
                                       "request, for a pass run elsewhere (attnlab/webgpu)."))
      .field<&FlashPlan::head_width>(
          "headWidth", ATTNLAB_RESULT_DOC("d: each query head's slice of Q's columns (and its K/V "
                                          "head's of K)."))
      .field<&FlashPlan::value_width>("valueWidth",
                                      ATTNLAB_RESULT_DOC("d_v: each head's slice of V's columns."))
      .field<&FlashPlan::scale>(
          "scale", ATTNLAB_RESULT_DOC("The scale: the request's, or 1/√d (the temperature "
                                      "excluded)."))
      .field<&FlashPlan::factors>(
          "factors", ATTNLAB_RESULT_DOC("What multiplies each query head's scores q·k: the scale "
                                        "over the temperature."))
      .field<&FlashPlan::may_overflow>(
          "mayOverflow", ATTNLAB_RESULT_DOC("Whether some score q·k·scale could pass float32 by "
                                            "the kernel's bound (d · max|q| · max|k| · max(1, "
                                            "scale)), so each score must be checked."))
      .field<&FlashPlan::key_bands>(
          "keyBands", ATTNLAB_RESULT_DOC("(n_q·2): the keys [begin, end) each query of a sequence "
                                         "sees under the causal rule, its alignment and the "
                                         "window; both ends grow with the query, so a block of "
                                         "queries sees from its first query's begin to its last "
                                         "query's end."))
      .field<&FlashPlan::position_offset>(
          "positionOffset", ATTNLAB_RESULT_DOC("Query i sits at key i + positionOffset (n_k − n_q "
                                               "bottom-right, else 0): ALiBi's distances."))
      .field<&FlashPlan::slopes>(
          "slopes", ATTNLAB_RESULT_DOC("ALiBi's slope m_h of each query head; empty without "
                                       "ALiBi."))
      .field<&FlashPlan::bias_per_head>(
          "biasPerHead", ATTNLAB_RESULT_DOC("Whether the bias is one per head (heads·n_q rows) "
                                            "rather than one for every head."))
      .field<&FlashPlan::fully_masked_rows>(
          "fullyMaskedRows", ATTNLAB_RESULT_DOC("The rows of Q that see no key in any head "
                                                "(flashAttention's fullyMaskedRows)."))
      .field<&FlashPlan::kv_group>(
          "kvGroup", ATTNLAB_RESULT_DOC("Query heads per K/V head: query head h reads K/V head ⌊h "
                                        "/ kvGroup⌋ (1 without kvHeads)."));
  result<tiling::TilePlan>(
      "TilePlan", ATTNLAB_RESULT_DOC("Br query rows per workgroup, Bc keys per K/V tile, d the "
                                     "head width."))
      .field<&tiling::TilePlan::query_rows>("queryRows")
      .field<&tiling::TilePlan::key_rows>("keyRows")
      .field<&tiling::TilePlan::head_width>("headWidth")
      .field<&tiling::TilePlan::cpu_key_rows>("cpuKeyRows")
      .field<&tiling::TilePlan::workgroup_storage_bytes>("workgroupStorageBytes");

  result<SoftmaxWithoutMax>(
      "SoftmaxWithoutMax", ATTNLAB_RESULT_DOC("The same row's softmax without subtracting the max, "
                                              "in float32: what goes wrong."))
      .field<&SoftmaxWithoutMax::exponentials>(
          "exponentials", ATTNLAB_RESULT_DOC("exp(scaled): Infinity past ≈ 88.72, 0 below ≈ "
                                             "−103.97."))
      .field<&SoftmaxWithoutMax::sum>("sum")
      .field<&SoftmaxWithoutMax::weights>(
          "weights", ATTNLAB_RESULT_DOC("exponentials / sum: NaN for ∞/∞ and 0/0, 0 for finite/∞."))
      .field<&SoftmaxWithoutMax::overflowed>("overflowed", ATTNLAB_RESULT_DOC("sum is Infinity."))
      .field<&SoftmaxWithoutMax::term_overflowed>(
          "termOverflowed", ATTNLAB_RESULT_DOC("Some exponentials entry is Infinity itself (not "
                                               "only their sum)."))
      .field<&SoftmaxWithoutMax::underflowed>(
          "underflowed", ATTNLAB_RESULT_DOC("sum is 0 (every term underflowed)."));
  result<SoftmaxBreakdown>("SoftmaxBreakdown",
                           ATTNLAB_RESULT_DOC("One row of softmax, stage by stage, in float32."))
      .field<&SoftmaxBreakdown::temperature>("temperature")
      .field<&SoftmaxBreakdown::scaled>("scaled", ATTNLAB_RESULT_DOC("scores / temperature."))
      .field<&SoftmaxBreakdown::max>("max", ATTNLAB_RESULT_DOC("The largest scaled entry."))
      .field<&SoftmaxBreakdown::shifted>("shifted", ATTNLAB_RESULT_DOC("scaled − max, all ≤ 0."))
      .field<&SoftmaxBreakdown::exponentials>("exponentials",
                                              ATTNLAB_RESULT_DOC("exp(shifted), in (0, 1]."))
      .field<&SoftmaxBreakdown::sum>("sum", ATTNLAB_RESULT_DOC("Σ exponentials, ≥ 1."))
      .field<&SoftmaxBreakdown::weights>("weights", ATTNLAB_RESULT_DOC("exponentials / sum."))
      .field<&SoftmaxBreakdown::without_max>("withoutMax");

  result<ScalingPoint>("ScalingPoint", ATTNLAB_RESULT_DOC("One d_k of scalingStudy()."))
      .field<&ScalingPoint::dk>("dk")
      .field<&ScalingPoint::score_std>(
          "scoreStd", ATTNLAB_RESULT_DOC("Standard deviation of the raw scores q·k (over samples × "
                                         "keys)."))
      .field<&ScalingPoint::sqrt_dk>("sqrtDk")
      .field<&ScalingPoint::max_weight_scaled>(
          "maxWeightScaled", ATTNLAB_RESULT_DOC("Mean largest weight of softmax(q·k/√d_k)."))
      .field<&ScalingPoint::max_weight_unscaled>(
          "maxWeightUnscaled", ATTNLAB_RESULT_DOC("Mean largest weight of softmax(q·k)."))
      .field<&ScalingPoint::entropy_scaled>(
          "entropyScaled", ATTNLAB_RESULT_DOC("Mean entropy −Σ w ln w (nats) of the scaled rows."))
      .field<&ScalingPoint::entropy_unscaled>(
          "entropyUnscaled", ATTNLAB_RESULT_DOC("Mean entropy −Σ w ln w (nats) of the unscaled "
                                                "rows."))
      .field<&ScalingPoint::example_scores>(
          "exampleScores", ATTNLAB_RESULT_DOC("The first query's row: raw scores, (keys)."))
      .field<&ScalingPoint::example_weights_scaled>(
          "exampleWeightsScaled", ATTNLAB_RESULT_DOC("The first query's row: softmax(q·k/√d_k), "
                                                     "(keys)."))
      .field<&ScalingPoint::example_weights_unscaled>(
          "exampleWeightsUnscaled", ATTNLAB_RESULT_DOC("The first query's row: softmax(q·k), "
                                                       "(keys)."));
  result<ScalingStudy>("ScalingStudy", ATTNLAB_RESULT_DOC("scalingStudy(): why 1/√d_k, per d_k."))
      .field<&ScalingStudy::keys>("keys")
      .field<&ScalingStudy::samples>("samples")
      .field<&ScalingStudy::max_entropy>(
          "maxEntropy", ATTNLAB_RESULT_DOC("ln(keys): the entropy of uniform weights."))
      .field<&ScalingStudy::points>("points",
                                    ATTNLAB_RESULT_DOC("One per requested d_k, in order."));

  result<LinearAttentionResult>(
      "LinearAttentionResult",
      ATTNLAB_RESULT_DOC("linearAttention(): φ(q)ᵀφ(k) in place of exp(q·k), so the sum over keys "
                         "regroups into a d_k × d_v state (Katharopoulos et al. 2020)."))
      .field<&LinearAttentionResult::scale>(
          "scale", ATTNLAB_RESULT_DOC("request.scale or its default 1: multiplies Q before φ."))
      .field<&LinearAttentionResult::feature_q>(
          "featureQ", ATTNLAB_RESULT_DOC("φ(scale·Q): (n_q, d_k); 'favor': φ(√scale·Q), (n_q, m)."))
      .field<&LinearAttentionResult::feature_k>(
          "featureK", ATTNLAB_RESULT_DOC("φ(K): (n_k, d_k); 'favor': φ(√scale·K), (n_k, m)."))
      .field<&LinearAttentionResult::random_features>(
          "randomFeatures", ATTNLAB_RESULT_DOC("'favor': W, the m random rows w_l (orthogonal in "
                                               "blocks of d_k, chi-distributed lengths): (m, d_k); "
                                               "φ(x) = exp(W·x − ‖x‖²/2)/√m."))
      .field<&LinearAttentionResult::kv_state>(
          "kvState", ATTNLAB_RESULT_DOC("φ(K)ᵀV = Σ_j φ(k_j)v_jᵀ over every key: (d_k, d_v), "
                                        "the recurrent form's state after the last key."))
      .field<&LinearAttentionResult::key_sum>(
          "keySum", ATTNLAB_RESULT_DOC("Σ_j φ(k_j): (d_k), the normaliser's state after the "
                                       "last key."))
      .field<&LinearAttentionResult::normalizer>(
          "normalizer", ATTNLAB_RESULT_DOC("φ(q_i)·Σφ(k_j) over the keys query i sees: (n_q)."))
      .field<&LinearAttentionResult::kernel>(
          "kernel", ATTNLAB_RESULT_DOC("φ(q_i)·φ(k_j), unnormalised, 0 where causal hides the "
                                       "key ('favor': the estimate of exp(q_i·k_j·scale)): "
                                       "(n_q, n_k); absent past limits().traceScores."))
      .field<&LinearAttentionResult::weights>(
          "weights", ATTNLAB_RESULT_DOC("The implied weights, kernel rows over their "
                                        "normalizer: (n_q, n_k); absent past "
                                        "limits().traceScores."))
      .field<&LinearAttentionResult::output>("output", ATTNLAB_RESULT_DOC("(n_q, d_v)."))
      .field<&LinearAttentionResult::zero_normalizer_rows>(
          "zeroNormalizerRows", ATTNLAB_RESULT_DOC("Queries whose normalizer is 0 (relu features "
                                                   "that meet no key's, or features underflowing "
                                                   "to 0): their weights and output are zeros."));
  result<SparsePattern>("SparsePattern",
                        ATTNLAB_RESULT_DOC("sparsePattern(): which keys each query may attend to, "
                                           "as attention()'s mask takes it."))
      .field<&SparsePattern::mask, &flat_mask>(
          "mask",
          ATTNLAB_RESULT_DOC("(n_q, n_k): true where query i may attend to key j; "
                             "attention({ mask }) and trace({ mask }) take it as it is."),
          "boolean[][]")
      .field<&SparsePattern::keys_per_query>(
          "keysPerQuery", ATTNLAB_RESULT_DOC("The keys each query may attend to: (n_q)."))
      .field<&SparsePattern::nonzeros>("nonzeros", ATTNLAB_RESULT_DOC("Allowed cells."))
      .field<&SparsePattern::density>("density", ATTNLAB_RESULT_DOC("nonzeros / (n_q·n_k)."))
      .field<&SparsePattern::flops>(
          "flops", ATTNLAB_RESULT_DOC("Attention's FLOPs under the pattern at headWidth d: 4·d "
                                      "per allowed cell (q·k and w·v, 2·d each)."))
      .field<&SparsePattern::dense_flops>(
          "denseFlops", ATTNLAB_RESULT_DOC("The same for every cell: 4·d·n_q·n_k."));
  result<RetentionResult>(
      "RetentionResult",
      ATTNLAB_RESULT_DOC("retention(): (Q·Kᵀ ⊙ D)·V, D_ij = γ^(i−j) for j ≤ i (RetNet, Sun et "
                         "al. 2023)."))
      .field<&RetentionResult::decay>("decay", ATTNLAB_RESULT_DOC("γ, request.decay."))
      .field<&RetentionResult::weights>(
          "weights", ATTNLAB_RESULT_DOC("Q·Kᵀ ⊙ D: (n, n), 0 above the diagonal; absent past "
                                        "limits().traceScores."))
      .field<&RetentionResult::state>(
          "state", ATTNLAB_RESULT_DOC("S_n = Σ_j γ^(n−1−j) k_jᵀv_j, the recurrent form's state "
                                      "after the last token: (d_k, d_v), whatever n."))
      .field<&RetentionResult::output>("output", ATTNLAB_RESULT_DOC("(n, d_v)."));
  result<LowRankResult>(
      "LowRankResult",
      ATTNLAB_RESULT_DOC("lowRankAttention(): softmax attention in k dimensions, by the SVD of A "
                         "or by Linformer's projections (Wang et al. 2020)."))
      .field<&LowRankResult::rank>("rank", ATTNLAB_RESULT_DOC("k, request.rank."))
      .field<&LowRankResult::scale>("scale",
                                    ATTNLAB_RESULT_DOC("request.scale or its default 1/√d_k."))
      .field<&LowRankResult::singular_values>(
          "singularValues", ATTNLAB_RESULT_DOC("svd: A's singular values σ_1 ≥ … ≥ 0, "
                                               "min(n_q, n_k) of them; empty for linformer."))
      .field<&LowRankResult::weights>(
          "weights",
          ATTNLAB_RESULT_DOC("output = weights·V: A_k (svd) or softmax(Q·(E·K)ᵀ·scale)·F "
                             "(linformer, rows need not sum to 1): (n_q, n_k); absent "
                             "past limits().traceScores."))
      .field<&LowRankResult::exact_weights>(
          "exactWeights", ATTNLAB_RESULT_DOC("A, attention()'s weights: (n_q, n_k); absent past "
                                             "limits().traceScores."))
      .field<&LowRankResult::output>("output", ATTNLAB_RESULT_DOC("(n_q, d_v)."))
      .field<&LowRankResult::exact_output>(
          "exactOutput", ATTNLAB_RESULT_DOC("A·V, attention()'s output: (n_q, d_v)."))
      .field<&LowRankResult::weights_error>(
          "weightsError", ATTNLAB_RESULT_DOC("‖A − weights‖_F, measured cell by cell."))
      .field<&LowRankResult::spectrum_error>(
          "spectrumError", ATTNLAB_RESULT_DOC("svd: sqrt(Σ_{i>k} σ_i²), the same error from the "
                                              "spectrum (Eckart–Young)."))
      .field<&LowRankResult::output_error>("outputError",
                                           ATTNLAB_RESULT_DOC("‖output − exactOutput‖_F."))
      .field<&LowRankResult::e>("E", ATTNLAB_RESULT_DOC("linformer: E as used, (rank, n_k)."))
      .field<&LowRankResult::f>("F", ATTNLAB_RESULT_DOC("linformer: F as used, (rank, n_k)."))
      .field<&LowRankResult::projected_weights>(
          "projectedWeights",
          ATTNLAB_RESULT_DOC("linformer: softmax(Q·(E·K)ᵀ·scale), the "
                             "weights over the k projected keys: (n_q, rank)."));

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
