// The pieces of the model's inference forward shared by the whole-text pass (forward.cpp) and
// the token-by-token decoder with its KV cache (decoder.cpp).
#pragma once

#include "attnlab/model.hpp"

namespace attnlab::model_parts {

// LayerNorm of each row of x with the gain and bias at these parameter offsets.
Matrix layer_norm(const Model& m, const Matrix& x, std::size_t gain, std::size_t bias);
// a + b, entry by entry.
Matrix sum(const Matrix& a, const Matrix& b);
// The block's MLP on its input rows: GELU(norm2·W_fc + b_fc)·W_proj + b_proj.
Matrix mlp(const Model& m, const ModelLayout::Layer& l, const Matrix& norm2);
// The config's errors, or shape-mismatch when the parameter count does not fit it: what a
// Model made without Model::create may get wrong.
std::optional<Error> check_shape(const ModelConfig& config, std::size_t count);
// invalid-argument naming the first token id outside 0 … vocab − 1.
std::optional<Error> check_tokens(const Model& m, const std::vector<int>& tokens);
// E[token] + P[position] for each token, positions from `first`.
Matrix embed(const Model& m, const ModelLayout& layout, const std::vector<int>& tokens,
             std::size_t first);
// The final norm and the unembedding: (rows, vocab).
Matrix logits(const Model& m, const ModelLayout& layout, const Matrix& x);

}  // namespace attnlab::model_parts
