// The learning module's results (learn_bindings.cpp): registered by that module, and by the
// typings module (bindings.cpp built with ATTNLAB_RESULT_DOCS) for their docs in attnlab.d.ts.
#pragma once

#include "attnlab/trace_backward.hpp"
#include "attnlab/training.hpp"
#include "js_values.hpp"

namespace attnlab::bindings {

inline void register_learning_results() {
  result<GradientCheck>("GradientCheck",
                        ATTNLAB_RESULT_DOC("checkGradient(): one gradient entry against central "
                                           "finite differences."))
      .field<&GradientCheck::analytic>("analytic",
                                       ATTNLAB_RESULT_DOC("The trace's gradient entry (float32)."))
      .field<&GradientCheck::numeric>(
          "numeric", ATTNLAB_RESULT_DOC("(L(θ + ε) − L(θ − ε)) / 2ε by a float64 forward, L = Σ "
                                        "dOutput ⊙ Y."))
      .field<&GradientCheck::relative_error>(
          "relativeError", ATTNLAB_RESULT_DOC("|analytic − numeric| over the largest of "
                                              "|analytic|, |numeric| and the largest |entry| of "
                                              "the analytic gradient."))
      .field<&GradientCheck::epsilon>("epsilon", ATTNLAB_RESULT_DOC("ε = 1e-6 · max(1, |θ|)."));
  result<TrainingProgress>("TrainingProgress",
                           ATTNLAB_RESULT_DOC("A trainer's step(): where the training stands."))
      .field<&TrainingProgress::step>("step",
                                      ATTNLAB_RESULT_DOC("Steps taken since the trainer was made."))
      .field<&TrainingProgress::loss>(
          "loss", ATTNLAB_RESULT_DOC("The last step's batch: mean cross-entropy over its target "
                                     "positions."))
      .field<&TrainingProgress::held_out_loss>(
          "heldOutLoss", ATTNLAB_RESULT_DOC("The fixed evaluation batch: mean cross-entropy over "
                                            "its target positions."))
      .field<&TrainingProgress::accuracy>(
          "accuracy", ATTNLAB_RESULT_DOC("Argmax = target over the fixed evaluation batch's target "
                                         "positions, 0 … 1."))
      .field<&TrainingProgress::previous_token>(
          "previousToken",
          ATTNLAB_RESULT_DOC("previousToken[layer][head]: the head's mean weight "
                             "on the token before, on the induction probe "
                             "(HeadScores' previousToken), 0 … 1."),
          "number[][]")
      .field<&TrainingProgress::induction>(
          "induction",
          ATTNLAB_RESULT_DOC("induction[layer][head]: on the induction probe (distinct "
                             "random tokens, then the same again), the head's mean "
                             "weight from each token of the copy on the token after "
                             "its earlier occurrence (HeadScores' induction), 0 … 1."),
          "number[][]");
  result<TrainingAttention>(
      "TrainingAttention", ATTNLAB_RESULT_DOC("A trainer's attention(): the fixed sample and every "
                                              "head's weights on it."))
      .field<&TrainingAttention::token_ids>(
          "tokenIds", ATTNLAB_RESULT_DOC("The sample's token ids (contextLength)."))
      .field<&TrainingAttention::weights>(
          "weights", ATTNLAB_RESULT_DOC("weights[layer][head]: contextLength × contextLength."));
  result<TrainedLayer>("TrainedLayer",
                       ATTNLAB_RESULT_DOC("A trainer's model(layer): one layer on the sample, as "
                                          "trace() takes it (with causal: true)."))
      .field<&TrainedLayer::x>(
          "X", ATTNLAB_RESULT_DOC("The residual stream entering the layer (layer 1: E[tokenIds] + "
                                  "P): (contextLength, dModel)."))
      .field<&TrainedLayer::w_q>("Wq", ATTNLAB_RESULT_DOC("(dModel, dModel)."))
      .field<&TrainedLayer::w_k>("Wk", ATTNLAB_RESULT_DOC("(dModel, dModel)."))
      .field<&TrainedLayer::w_v>("Wv", ATTNLAB_RESULT_DOC("(dModel, dModel)."))
      .field<&TrainedLayer::w_o>("Wo", ATTNLAB_RESULT_DOC("(dModel, dModel)."))
      .field<&TrainedLayer::heads>("heads", ATTNLAB_RESULT_DOC("Heads per layer."))
      .field<&TrainedLayer::token_ids>(
          "tokenIds", ATTNLAB_RESULT_DOC("The sample's token ids (contextLength)."));
}

}  // namespace attnlab::bindings
