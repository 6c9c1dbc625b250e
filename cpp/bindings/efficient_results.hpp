// The core's results of the cheaper attentions (linearAttention(), retention(),
// lowRankAttention(), sparsePattern()): registered by bindings.cpp, as attention_results.hpp.
#pragma once

#include <cstdint>

#include "attnlab/attnlab.hpp"
#include "js_values.hpp"

namespace attnlab::bindings {

// A pattern's mask as { rows, cols, data: Uint8Array }, which the wrapper turns into boolean[][]
// (one copy out of the heap, where a val per cell costs a call each).
inline val flat_mask(const BasicMatrix<std::uint8_t>& m) {
  val out = val::object();
  out.set("rows", static_cast<double>(m.rows));
  out.set("cols", static_cast<double>(m.cols));
  out.set("data", to_js(m.data));
  return out;
}

inline void register_efficient_results() {
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
}

}  // namespace attnlab::bindings
