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

// The flash kernel keeps O(n·d) memory: Q, K, V and the output, plus small tiles.
inline constexpr std::size_t flash_tokens = std::size_t{1} << 20;
inline constexpr std::size_t flash_features = 8192;

// Teaching views (softmax_breakdown.hpp, scaling_study.hpp): small on purpose, so every
// number can be shown and the study runs in a fraction of a second in the browser.
inline constexpr std::size_t softmax_row = 4096;          // entries of one breakdown row
inline constexpr std::size_t scaling_dims = 16;           // d_k values in one study
inline constexpr std::size_t scaling_max_dk = 512;        // largest d_k
inline constexpr std::size_t scaling_min_keys = 2;        // a softmax over one key is always 1
inline constexpr std::size_t scaling_max_keys = 64;       // keys per query
inline constexpr std::size_t scaling_max_samples = 2000;  // queries per d_k

// sinusoidal_encoding (positional.hpp): tokens and width, each 1 … this.
inline constexpr std::size_t sinusoidal_max = 4096;

// normal_matrix (random.hpp): rows·cols values, 64 MiB of float32 (65,536 x 256).
inline constexpr std::size_t normal_values = std::size_t{1} << 24;

// The flash kernel's head width d (tiling.hpp): 1 … this, so Bc ≥ 2 keeps tiles useful.
inline constexpr std::size_t max_head_width = 512;

// The FlashAttention tile walk (flash_walk.hpp): every tile visit is recorded for display.
inline constexpr std::size_t walk_tokens = 64;    // rows of Q, K, V
inline constexpr std::size_t walk_features = 64;  // columns of Q, K, V
inline constexpr std::size_t walk_tile = 16;      // rows of a query block or a key tile

// The limits as one value, for callers that quote them (the JS layer's messages, the docs).
struct Table {
  std::size_t trace_tokens = limits::trace_tokens;
  std::size_t trace_features = limits::trace_features;
  int max_heads = limits::max_heads;
  std::size_t attention_tokens = limits::attention_tokens;
  std::size_t attention_features = limits::attention_features;
  std::size_t flash_tokens = limits::flash_tokens;
  std::size_t flash_features = limits::flash_features;
  std::size_t max_head_width = limits::max_head_width;
  std::size_t softmax_row = limits::softmax_row;
  std::size_t scaling_dims = limits::scaling_dims;
  std::size_t scaling_max_dk = limits::scaling_max_dk;
  std::size_t scaling_min_keys = limits::scaling_min_keys;
  std::size_t scaling_max_keys = limits::scaling_max_keys;
  std::size_t scaling_max_samples = limits::scaling_max_samples;
  std::size_t sinusoidal_max = limits::sinusoidal_max;
  std::size_t normal_values = limits::normal_values;
  std::size_t walk_tokens = limits::walk_tokens;
  std::size_t walk_features = limits::walk_features;
  std::size_t walk_tile = limits::walk_tile;
};

}  // namespace attnlab::limits
