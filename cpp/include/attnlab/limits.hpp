// Documented size limits. Inputs beyond them get ErrorCode::too_large.
#pragma once

#include <cstddef>

namespace attnlab::limits {

// The step-by-step trace keeps every n x n intermediate for display.
inline constexpr std::size_t trace_tokens = 512;    // rows of X, Q, K, V
inline constexpr std::size_t trace_features = 512;  // columns of any input matrix
inline constexpr int max_heads = 64;

// Plain attention() materialises three (n_q, n_k) matrices (scores, logits, weights).
inline constexpr std::size_t attention_tokens = 4096;
inline constexpr std::size_t attention_features = 4096;

// The tiled kernel keeps O(n·d) memory: Q, K, V and the output, plus small tiles.
inline constexpr std::size_t flash_tokens = std::size_t{1} << 20;
inline constexpr std::size_t flash_features = 8192;

}  // namespace attnlab::limits
