// The core's results of the long-sequence kernels and their plans (flashAttention(),
// naiveAttention(), longLinearAttention(), flashWalk(), flashPlan(), tilePlan(),
// sampledWeights()): registered by bindings.cpp, as attention_results.hpp.
#pragma once

#include "attnlab/attnlab.hpp"
#include "js_values.hpp"

namespace attnlab::bindings {

// The sampled weights, which of their cells the rules hide and how many keys each row sees.
struct SampledWeights {
  Matrix weights;
  SampledMask mask;
};

inline void register_long_results() {
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
}

}  // namespace attnlab::bindings
