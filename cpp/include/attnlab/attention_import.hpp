// Bring your own attention: a real model's attention weights (the Hugging Face
// `output_attentions` layout, read into matrices by the package) checked as every other input
// is, then scored head by head (head_scores.hpp) for the model view's grid.
#pragma once

#include <cstddef>
#include <vector>

#include "attnlab/error.hpp"
#include "attnlab/head_scores.hpp"
#include "attnlab/matrix.hpp"

namespace attnlab {

// The sizes an import may have: tokens and heads as the trace's (limits.hpp), layers and the
// values of all heads together at most these (lab.limits().importLayers, .importValues).
namespace limits {
inline constexpr std::size_t import_layers = 128;
inline constexpr std::size_t import_values = std::size_t{1} << 22;  // 16 MiB of float32
}  // namespace limits

// How far a row's sum may be from 1: exports in float16 or bfloat16 (3 significant digits)
// round each weight, so a row of a few hundred of them can sum to 1 ± a few thousandths.
inline constexpr double import_row_tolerance = 1e-2;

// attention[layer][head]: (n, n) weights over the n tokens, each row a query's softmax.
// Returns every head's scores (period 0) on success. Errors, naming the layer, head and row
// (1-based): empty (no layer, no head, no token), too-large (past the limits above, or more
// tokens or heads than the trace takes), shape-mismatch (a matrix not n × n for the n tokens,
// a layer with another head count), non-finite, invalid-argument (a weight below 0 or above 1,
// a row whose sum is not 1 within import_row_tolerance).
Result<std::vector<std::vector<HeadScores>>> check_attention_import(
    const std::vector<std::vector<Matrix>>& attention, std::size_t tokens);

}  // namespace attnlab
