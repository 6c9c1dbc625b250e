// Sparse attention patterns: which keys each query may attend to, as attention()'s mask takes
// it (true = may attend), so exact attention computed under the pattern is the sparse model's.
//   BigBird (Zaheer et al. 2020): a sliding window, global tokens that see and are seen by
//     every position, and r random keys per query (or, with block_size b, r random key blocks
//     per query block, as BigBird's blocked implementation draws them).
//   The Sparse Transformer (Child et al. 2019): the strided pattern, key j for query i when
//     i − j is a multiple of the stride; its other half, the local one, is the window.
// The parts combine as a union: a key is allowed when any part allows it. Query i sits at key
// i (n_q and n_k may differ; the keys past the queries are simply more keys).
#pragma once

#include <cstddef>
#include <cstdint>
#include <optional>
#include <vector>

#include "attnlab/error.hpp"
#include "attnlab/matrix.hpp"

namespace attnlab {

struct SparsePatternOptions {
  std::size_t queries = 0;          // n_q: 1 … limits::sparse_tokens
  std::optional<std::size_t> keys;  // n_k: 1 … limits::sparse_tokens; absent: n_q
  std::size_t window = 0;           // key j when |i − j| < window (in blocks with block_size)
  std::vector<std::size_t> global_tokens;  // positions < max(n_q, n_k): whole row and column
  // Random keys per query: drawn uniformly, without repeats, among the keys that no other part
  // allows for it (with block_size: key blocks none of whose cells another part allows for
  // the block's queries that are not global); a query with fewer such keys gets them all.
  // Global queries already see every key and draw none.
  std::size_t random = 0;
  std::size_t block_size = 0;   // b: 0 (or 1) for single tokens; window and random count blocks
  std::size_t stride = 0;       // key j when i − j is a multiple of stride (0: off)
  std::uint64_t seed = 1;       // the random keys: the same seed, the same pattern everywhere
  std::size_t head_width = 64;  // d, for the FLOP counts only: 1 … limits::attention_features
};

struct SparsePattern {
  BasicMatrix<std::uint8_t> mask;             // (n_q, n_k): 1 where query i may attend to key j
  std::vector<std::uint32_t> keys_per_query;  // (n_q): the allowed keys of each query
  std::size_t nonzeros = 0;                   // allowed cells
  double density = 0;                         // nonzeros / (n_q·n_k)
  // Attention's FLOPs under the pattern and dense, at head_width d (d_k = d_v = d): 2·d for
  // the score q_i·k_j and 2·d for adding w_ij·v_j, per allowed cell (softmax's exps aside).
  double flops = 0, dense_flops = 0;
};

// Errors: invalid_argument (no part given; queries 0, keys 0, head_width 0; a global token
// past the positions; random above n_k), too_large (queries or keys above
// limits::sparse_tokens, n_q·n_k above limits::sparse_cells, head_width above its limit).
Result<SparsePattern> sparse_pattern(const SparsePatternOptions& options);

}  // namespace attnlab
