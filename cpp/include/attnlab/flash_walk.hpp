// The FlashAttention tile walk, for a learner to step through: the same online softmax as
// the flash kernel (flash.cpp), run plainly on a small problem with small tiles, recording
// what each tile visit does. The n×n score matrix is never formed, only one tile at a time.
#pragma once

#include <cstddef>
#include <optional>
#include <vector>

#include "attnlab/error.hpp"
#include "attnlab/matrix.hpp"

namespace attnlab {

struct WalkOptions {
  bool causal = false;         // query i may not attend to key j > i
  std::optional<float> scale;  // default 1/sqrt(d)
  std::size_t query_rows = 2;  // Br: queries per block (a WebGPU workgroup's rows)
  std::size_t key_rows = 2;    // Bc: keys per K/V tile
};

// One visit of a query block to a key tile, or the end of a query block.
struct WalkEvent {
  enum class Kind { tile, finish };
  Kind kind = Kind::tile;
  std::size_t query_block = 0, key_block = 0;  // the tile's coordinates
  std::size_t first_query = 0, first_key = 0;  // its first query row and key row
  std::size_t queries = 0, keys = 0;           // its extent (the last tiles may be short)
  Matrix scores;               // (queries, keys): scaled scores of the tile, -inf where masked
  std::vector<float> old_max;  // (queries): m before this tile
  std::vector<float> new_max;  // (queries): m after it
  std::vector<float> rescale;  // (queries): exp(old_max − new_max), what the sum and acc shrink by
  std::vector<float> sum;      // (queries): l after the tile
  Matrix acc;                  // (queries, d_v): the unnormalised output after the tile
  Matrix output;               // finish only: (queries, d_v) = acc / l
};

struct FlashWalk {
  std::vector<WalkEvent> events;  // in order: each query block visits its key tiles, then finishes
  Matrix output;                  // (n_q, d_v): every block's finished rows
  std::size_t tile_floats = 0;    // floats held at once: the Q, K, V, score tiles and m, l, acc
  std::size_t matrix_floats = 0;  // floats of the n_q × n_k score matrix the walk never forms
};

// q: (n_q, d), k: (n_k, d), v: (n_k, d_v); at most limits::walk_tokens rows and
// limits::walk_features columns, tiles of 1 … limits::walk_tile rows.
Result<FlashWalk> flash_walk(const Matrix& q, const Matrix& k, const Matrix& v,
                             const WalkOptions& options = {});

}  // namespace attnlab
