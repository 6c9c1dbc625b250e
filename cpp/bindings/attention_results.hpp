// The core's results of attention() and trace() and what is built on them (decode(),
// permutationCheck(), attentionBackward()): registered by bindings.cpp, with a doc line per
// field in the typings module (ATTNLAB_RESULT_DOCS).
#pragma once

#include "attnlab/attnlab.hpp"
#include "js_values.hpp"
#include "trace_values.hpp"

namespace attnlab::bindings {

inline void register_attention_results() {
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

  result<AttentionGradients>("AttentionGradients",
                             ATTNLAB_RESULT_DOC("The gradients of a loss L through attention(); "
                                                "masked cells pass none."))
      .field<&AttentionGradients::dq>("dQ", ATTNLAB_RESULT_DOC("∂L/∂Q: (n_q, d_k)."))
      .field<&AttentionGradients::dk>("dK", ATTNLAB_RESULT_DOC("∂L/∂K: (n_k, d_k)."))
      .field<&AttentionGradients::dv>("dV", ATTNLAB_RESULT_DOC("∂L/∂V: (n_k, d_v)."));
}

}  // namespace attnlab::bindings
