// The core's results of the softmax and scaling studies (softmaxBreakdown(), scalingStudy()):
// registered by bindings.cpp, as attention_results.hpp.
#pragma once

#include "attnlab/attnlab.hpp"
#include "js_values.hpp"

namespace attnlab::bindings {

inline void register_teaching_results() {
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
}

}  // namespace attnlab::bindings
