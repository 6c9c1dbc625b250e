// The trace's results, shared by the core module (bindings.cpp: the forward steps) and the
// learning module (learn_bindings.cpp: the backward steps too); its requests are read through
// requests.hpp.
#pragma once

#include <string>

#include "attnlab/attnlab.hpp"
#include "efficient_requests.hpp"  // feature_maps
#include "js_values.hpp"

namespace attnlab::bindings {

inline std::string feature_map_name(const FeatureMap& map) {
  return feature_maps[static_cast<int>(map)];
}

// The names as the typings' union: 'elu' | 'relu' | 'favor'.
template <std::size_t N>
const char* union_type(const char* const (&names)[N]) {
  static const std::string text = [&] {
    std::string out;
    for (const char* name : names) out += (out.empty() ? "'" : " | '") + std::string(name) + "'";
    return out;
  }();
  return text.c_str();
}

// Only the learning module computes the cheaper attentions' steps: the core module's download
// leaves out their fields, which the typings module (the core with the docs) lists.
#ifdef ATTNLAB_RESULT_DOCS
inline constexpr bool core_has_family_fields = true;
#else
inline constexpr bool core_has_family_fields = false;
#endif

// The trace's result types, declared once for both modules.
template <bool family_fields>
void register_trace_results() {
  result<BoolMatrix>("BoolMatrix")
      .field<&BoolMatrix::rows>("rows")
      .field<&BoolMatrix::cols>("cols")
      .field<&BoolMatrix::data>("data");

  // The package reshapes these (scripts/typings.mjs says how): each step and operand gains its
  // shape, an operand that is another step's result carries that step's values, and a group
  // lists its steps rather than their indices.
  result<Operand>("TraceOperand",
                  ATTNLAB_RESULT_DOC("What feeds a step. An operand that is another step's "
                                     "result has that step's very `values` array (the same "
                                     "object); inputs (X, Wq, …) and head slices of Q, K, V carry "
                                     "their own."))
      .field<&Operand::name>("name",
                             ATTNLAB_RESULT_DOC("The source step's id ('scores', 'project-q', …) "
                                                "or the input's name ('X', 'Q', 'Wq', 'Wo', …)."),
                             "StepId | 'X' | 'Q' | 'K' | 'V' | 'Wq' | 'Wk' | 'Wv' | 'Wo' | "
                             "'context' | 'alibi' | 'bias'")
      .field<&Operand::symbol>(
          "symbol", ATTNLAB_RESULT_DOC("Plain-text caption without a head index: 'X', 'X + PE', "
                                       "'W_Q', 'Q', 'S', 'S̃', 'A', 'V', 'O', 'C', 'W_O'."))
      .field<&Operand::head>(
          "head", ATTNLAB_RESULT_DOC("Zero-based head, on per-head operands when heads > 1."))
      .field<&Operand::step>("step")
      .field<&Operand::values>("values")
      .field<&Operand::past_rows>(
          "pastRows", ATTNLAB_RESULT_DOC("K and V with a pastKey: their first pastRows rows are "
                                         "the cache's, the rest the new tokens'."));
  result<TraceStep> step(
      "TraceStep",
      ATTNLAB_RESULT_DOC(
          "One step of the trace. Operands by step: encoding [] (PE itself); positional [X, "
          "encoding]; project-q/k/v [X (or positional), Wq/Wk/Wv] (project-k/v: [context, "
          "Wk/Wv] under cross-attention); rotate-q/k [Q/K head slice]; scores [Q, K] (head "
          "slices, or rotate-q/k); scale [scores]; bias [scale, alibi (the bias)]; mask [bias or "
          "scale]; softmax [mask, bias or scale]; dropout [softmax]; aggregate [dropout or "
          "softmax, V slice]; concat [aggregate of each head]; output-projection [concat (or "
          "aggregate with one head), Wo]. Backward (with dOutput): grad-output []; grad-wo "
          "[concat, grad-output]; grad-concat [grad-output, Wo]; grad-v [softmax, ∂O]; "
          "grad-weights [∂O, V slice]; grad-softmax [softmax, grad-weights]; grad-scores "
          "[grad-softmax]; grad-q [grad-scores, K slice]; grad-k [grad-scores, Q slice]; "
          "grad-wq/wk/wv [X (or positional), ∂Q/∂K/∂V over every head]; grad-x [∂Q, Wq, ∂K, Wk, "
          "∂V, Wv]. ∂O is grad-concat's (or grad-output's) head slice. The families (linear, "
          "retention; the learning module): feature-q/k [Q/K slice]; kv-state [feature-k, V "
          "slice] (retention: [K, V slices]); normalizer [feature-q, feature-k]; decay []; "
          "implied-weights [feature-q, feature-k, normalizer] (retention: [Q, K slices, decay]); "
          "aggregate [implied-weights, V slice]."));
  step.field<&TraceStep::id>("id", "", "StepId")
      .field<&TraceStep::head>(
          "head", ATTNLAB_RESULT_DOC("Zero-based head index, on per-head steps when heads > 1."))
      .field<&TraceStep::title>(
          "title",
          ATTNLAB_RESULT_DOC("Plain-language name, the same for every head (the head is `head`)."))
      .field<&TraceStep::formula>("formula", ATTNLAB_RESULT_DOC("TeX."))
      .field<&TraceStep::values>("values")
      .field<&TraceStep::row_totals>(
          "rowTotals", ATTNLAB_RESULT_DOC("The sum of each row of values, masked (-Infinity) "
                                          "entries left out: always finite (1 for every unmasked "
                                          "row of weights)."))
      .field<&TraceStep::operands>("operands")
      .field<&TraceStep::softmax, &SoftmaxParts::row_max>(
          "rowMax", ATTNLAB_RESULT_DOC("Softmax steps only; -Infinity for a fully masked row."))
      .field<&TraceStep::softmax, &SoftmaxParts::row_sum>(
          "rowSum", ATTNLAB_RESULT_DOC("Softmax steps only: each row's sum of exponentials."))
      .field<&TraceStep::softmax, &SoftmaxParts::exponentials>(
          "exponentials", ATTNLAB_RESULT_DOC("Softmax steps only: exp(logit − row max)."))
      .field<&TraceStep::scaling, &ScaleFactors::scale>(
          "scale", ATTNLAB_RESULT_DOC("Scale steps only: the option or the default 1/√d_k, "
                                      "temperature excluded."))
      .field<&TraceStep::scaling, &ScaleFactors::temperature>(
          "temperature", ATTNLAB_RESULT_DOC("Scale steps only."))
      .field<&TraceStep::scaling, &ScaleFactors::factor>(
          "factor",
          ATTNLAB_RESULT_DOC("Scale steps only: scale / temperature, what multiplies the scores."))
      .field<&TraceStep::scaling, &ScaleFactors::dk>(
          "dk", ATTNLAB_RESULT_DOC("Scale steps only: the head width d_k."))
      .field<&TraceStep::scaling, &ScaleFactors::default_scale>(
          "defaultScale", ATTNLAB_RESULT_DOC("Scale steps only: true when scale is the default "
                                             "1/√d_k (no scale option given)."))
      .field<&TraceStep::mask, &MaskCells::allowed, &boolean_rows>(
          "allowed",
          ATTNLAB_RESULT_DOC(
              "Mask steps only: (n_q, n_k), true where query i may attend to key j."),
          "boolean[][]")
      .field<&TraceStep::mask, &MaskCells::blocked_by>(
          "blockedBy",
          ATTNLAB_RESULT_DOC("Mask steps only: (n_q, n_k) bit flags of what blocks a cell (1 "
                             "causal, 2 key padding, 4 mask, 8 window, 16 a -Infinity bias); 0 = "
                             "allowed."),
          "number[][]")
      .field<&TraceStep::rotation, &Rotation::angles>(
          "angles", ATTNLAB_RESULT_DOC("rotate-q / rotate-k steps: (rows, d_k/2) angle of each "
                                       "pair, position · frequencies[i]."))
      .field<&TraceStep::rotation, &Rotation::frequencies>(
          "frequencies",
          ATTNLAB_RESULT_DOC("rotate-q / rotate-k steps: θ_i = ropeBase^(−2i/d_k), (d_k/2)."))
      .field<&TraceStep::rotation, &Rotation::base>(
          "ropeBase", ATTNLAB_RESULT_DOC("rotate-q / rotate-k steps."))
      .field<&TraceStep::slope>(
          "slope", ATTNLAB_RESULT_DOC("bias steps with ALiBi: the head's slope m_h (the bias "
                                      "matrix B is operand 1, named 'alibi', or 'bias' without "
                                      "ALiBi)."))
      .field<&TraceStep::softcap>("softcap", ATTNLAB_RESULT_DOC("softcap steps: the cap c."))
      .field<&TraceStep::dropout, &DropoutCells::keep, &boolean_rows>(
          "keep", ATTNLAB_RESULT_DOC("dropout steps: (n_q, n_k), true where the weight was kept."),
          "boolean[][]")
      .field<&TraceStep::dropout, &DropoutCells::rate>("rate",
                                                       ATTNLAB_RESULT_DOC("dropout steps: p."))
      .field<&TraceStep::dropout, &DropoutCells::keep_scale>(
          "keepScale", ATTNLAB_RESULT_DOC("dropout steps: 1 / (1 − p)."))
      .field<&TraceStep::jacobian, &SoftmaxJacobian::row_dot>(
          "rowDot", ATTNLAB_RESULT_DOC("grad-softmax steps only: rowsum(∂A ⊙ A) of every row, "
                                       "what the Jacobian subtracts."))
      .field<&TraceStep::jacobian, &SoftmaxJacobian::jacobian_rows>(
          "jacobianRows",
          ATTNLAB_RESULT_DOC("grad-softmax steps only: the rows whose Jacobian is in `jacobians`."))
      .field<&TraceStep::jacobian, &SoftmaxJacobian::jacobians>(
          "jacobians", ATTNLAB_RESULT_DOC("grad-softmax steps only: diag(a) − aaᵀ, (n_k, n_k), "
                                          "for each of jacobianRows."));
  if constexpr (family_fields)
    step.field<&TraceStep::family, &FamilyParts::feature_map, &feature_map_name>(
            "featureMap",
            ATTNLAB_RESULT_DOC("feature-q / feature-k steps: φ, entry by entry (elu: x > 0 ? x "
                               "+ 1 : eˣ; relu: max(x, 0)) or FAVOR+'s random features of the "
                               "whole row x (favor: exp(W·x − ‖x‖²/2)/√m), x = featureScale · "
                               "the input."),
            union_type(feature_maps))
        .field<&TraceStep::family, &FamilyParts::factor>(
            "featureScale", ATTNLAB_RESULT_DOC("feature-q / feature-k steps: what multiplies the "
                                               "input before φ (elu, relu: the scale for Q, 1 "
                                               "for K; favor: √scale for both)."))
        .field<&TraceStep::family, &FamilyParts::decay>(
            "decay", ATTNLAB_RESULT_DOC("retention's decay and kv-state steps: γ (kv-state: S_t "
                                        "= γ·S_{t−1} + k_tᵀv_t, from S_0 = 0)."))
        .field<&TraceStep::family, &FamilyParts::causal>(
            "causal", ATTNLAB_RESULT_DOC("linear attention's normalizer and implied-weights "
                                         "steps: whether query i sees keys j ≤ i only."));
  result<TraceGroup>("TraceGroup",
                     ATTNLAB_RESULT_DOC("One per distinct step id, in trace order; `steps` are the "
                                        "same objects as in Trace.steps."))
      .field<&TraceGroup::id>("id", "", "StepId")
      .field<&TraceGroup::title>("title")
      .field<&TraceGroup::steps>(
          "steps", ATTNLAB_RESULT_DOC("The step's entries, one per head in head order (one entry "
                                      "for whole-sequence steps)."));
  result<Trace> trace("Trace",
                      ATTNLAB_RESULT_DOC("trace(): every step of the computation, in order."));
  trace.field<&Trace::steps>("steps")
      .field<&Trace::groups>("groups")
      .field<&Trace::output>("output")
      .field<&Trace::fully_masked_rows>(
          "fullyMaskedRows", ATTNLAB_RESULT_DOC("Per head h: the queries of head h that may "
                                                "attend to no key (their weights are zeros)."));
  if constexpr (family_fields)
    trace.field<&Trace::random_features>(
        "randomFeatures",
        ATTNLAB_RESULT_DOC("Family 'linear' with featureMap 'favor': W, the m random rows (m, "
                           "d_k) drawn from the seed, the same for every head's feature-q and "
                           "feature-k."));
}

}  // namespace attnlab::bindings
