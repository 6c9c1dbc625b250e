// The model module's results (model_bindings.cpp): registered by that module, and by the
// typings module (bindings.cpp built with ATTNLAB_RESULT_DOCS) for their docs in attnlab.d.ts.
#pragma once

#include "attnlab/head_scores.hpp"
#include "attnlab/model.hpp"
#include "js_values.hpp"

namespace attnlab::bindings {

inline void register_model_results() {
  result<ModelBlockForward>(
      "ModelBlock", ATTNLAB_RESULT_DOC("One block of the model on a text (n tokens, width dModel); "
                                       "norm1 is the X its attention takes."))
      .field<&ModelBlockForward::input>(
          "input", ATTNLAB_RESULT_DOC("The residual stream entering the block: (n, dModel)."))
      .field<&ModelBlockForward::norm1>("norm1",
                                        ATTNLAB_RESULT_DOC("LayerNorm(input): (n, dModel)."))
      .field<&ModelBlockForward::attention>(
          "attention", ATTNLAB_RESULT_DOC("Each head's weights (n × n), computed as trace() "
                                          "computes them for norm1 and the block's W_Q, W_K, W_V."))
      .field<&ModelBlockForward::attention_output>(
          "attentionOutput", ATTNLAB_RESULT_DOC("The heads concatenated times W_O: (n, dModel)."))
      .field<&ModelBlockForward::norm2>(
          "norm2", ATTNLAB_RESULT_DOC("LayerNorm(input + attentionOutput): (n, dModel)."))
      .field<&ModelBlockForward::mlp_output>(
          "mlpOutput", ATTNLAB_RESULT_DOC("GELU(norm2·W_fc + b_fc)·W_proj + b_proj: (n, dModel)."))
      .field<&ModelBlockForward::output>(
          "output", ATTNLAB_RESULT_DOC("input + attentionOutput + mlpOutput: (n, dModel)."));
  result<ModelForward>("ModelForward",
                       ATTNLAB_RESULT_DOC("A language model's forward(): the logits and every "
                                          "block's steps."))
      .field<&ModelForward::blocks>("blocks", ATTNLAB_RESULT_DOC("One per block, in order."))
      .field<&ModelForward::logits>(
          "logits", ATTNLAB_RESULT_DOC("(n, vocab): row i scores the token after token i."),
          "LogitRows");
  result<HeadScores>("HeadScores",
                     ATTNLAB_RESULT_DOC("A head's scores, each a mean attention weight 0 … 1 "
                                        "(head_scores.hpp)."))
      .field<&HeadScores::previous_token>("previousToken",
                                          ATTNLAB_RESULT_DOC("Attention to the token before."))
      .field<&HeadScores::first_token>("firstToken",
                                       ATTNLAB_RESULT_DOC("Attention to the first token."))
      .field<&HeadScores::duplicate_token>(
          "duplicateToken", ATTNLAB_RESULT_DOC("With a period (the tokens are a sequence "
                                               "repeated): attention to the earlier copy of the "
                                               "token."))
      .field<&HeadScores::induction>(
          "induction", ATTNLAB_RESULT_DOC("With a period: attention to the token after the earlier "
                                          "copy (Olsson et al. 2022)."))
      .field<&HeadScores::role>(
          "role",
          ATTNLAB_RESULT_DOC("The core's name for what the head does: of the scores "
                             "measured, the one furthest above what uniform causal "
                             "attention would score (as a ratio), if at least twice that; "
                             "else 'spread'."),
          "'previous-token' | 'first-token' | 'duplicate-token' | 'induction' | 'spread'")
      .field<&HeadScores::role_score>(
          "roleScore", ATTNLAB_RESULT_DOC("The score behind the role (for 'spread', the score "
                                          "closest to standing out)."));
  result<TokenDistribution>("TokenDistribution",
                            ATTNLAB_RESULT_DOC("nextTokenDistribution(): the kept token ids, "
                                               "likeliest first, and their probabilities."))
      .field<&TokenDistribution::token_ids>(
          "tokenIds", ATTNLAB_RESULT_DOC("The kept token ids, likeliest first."))
      .field<&TokenDistribution::probabilities>(
          "probabilities", ATTNLAB_RESULT_DOC("Each one's probability: softmax(logits / "
                                              "temperature) over the kept ones."));
  result<ModelHeadWeights>("ModelHeadWeights",
                           ATTNLAB_RESULT_DOC("headWeights(): one head's columns of its layer's "
                                              "W_Q, W_K and W_V."))
      .field<&ModelHeadWeights::w_q>("Wq", ATTNLAB_RESULT_DOC("(dModel, dModel / heads)."))
      .field<&ModelHeadWeights::w_k>("Wk", ATTNLAB_RESULT_DOC("(dModel, dModel / heads)."))
      .field<&ModelHeadWeights::w_v>("Wv", ATTNLAB_RESULT_DOC("(dModel, dModel / heads)."));
}

}  // namespace attnlab::bindings
