#include "attnlab/sparse_pattern.hpp"

#include <algorithm>
#include <numeric>

#include "attnlab/limits.hpp"
#include "attnlab/random.hpp"
#include "base/validate.hpp"

namespace attnlab {
namespace {

using validate::Problem;

Problem check(const SparsePatternOptions& o, std::size_t n_k) {
  if (auto p = validate::count_within("queries", o.queries, 1, limits::sparse_tokens)) return p;
  if (auto p = validate::count_within("keys", n_k, 1, limits::sparse_tokens)) return p;
  if (o.queries > limits::sparse_cells / n_k)
    return validate::formatted(ErrorCode::too_large,
                               "queries × keys: a pattern of %zu × %zu has more than %zu cells",
                               o.queries, n_k, limits::sparse_cells);
  if (auto p = validate::count_within("headWidth", o.head_width, 1, limits::attention_features))
    return p;
  if (o.window == 0 && o.global_tokens.empty() && o.random == 0 && o.stride == 0)
    return Error{ErrorCode::invalid_argument,
                 "the pattern is empty: give at least one of window, globalTokens, random and "
                 "stride"};
  if (o.global_tokens.size() > limits::global_tokens)
    return validate::formatted(ErrorCode::too_large, "globalTokens: %zu positions, at most %zu",
                               o.global_tokens.size(), limits::global_tokens);
  const std::size_t positions = std::max(o.queries, n_k);
  for (const std::size_t g : o.global_tokens)
    if (g >= positions)
      return validate::formatted(ErrorCode::invalid_argument,
                                 "globalTokens: position %zu is past the %zu positions", g,
                                 positions);
  const std::size_t b = std::max<std::size_t>(o.block_size, 1), key_blocks = (n_k + b - 1) / b;
  if (o.random > key_blocks)
    return validate::formatted(ErrorCode::invalid_argument,
                               "random: %zu random %s per query%s, but there are %zu", o.random,
                               b > 1 ? "key blocks" : "keys", b > 1 ? " block" : "", key_blocks);
  return std::nullopt;
}

// Uniform whole numbers from splitmix64 (the generator's bits): below n, by multiply-shift.
class Draws {
 public:
  explicit Draws(std::uint64_t seed) : state_(seed) {}
  std::size_t below(std::size_t n) {
    const std::uint64_t bits = splitmix64_mix(state_ += 0x9e3779b97f4a7c15ULL) >> 32;
    return static_cast<std::size_t>((bits * n) >> 32);
  }

 private:
  std::uint64_t state_;
};

}  // namespace

Result<SparsePattern> sparse_pattern(const SparsePatternOptions& o) {
  const std::size_t n_q = o.queries, n_k = o.keys.value_or(o.queries);
  if (auto p = check(o, n_k)) return *p;
  const std::size_t b = std::max<std::size_t>(o.block_size, 1);
  const auto block = [b](std::size_t i) { return i / b; };
  std::vector<std::uint8_t> global(std::max(n_q, n_k), 0);
  for (const std::size_t g : o.global_tokens) global[g] = 1;

  // The fixed parts: the window (in blocks), the global rows and columns, the stride.
  SparsePattern r;
  r.mask = BasicMatrix<std::uint8_t>(n_q, n_k);
  for (std::size_t i = 0; i < n_q; ++i)
    for (std::size_t j = 0; j < n_k; ++j) {
      const std::size_t gap = i > j ? i - j : j - i,
                        blocks = block(std::max(i, j)) - block(std::min(i, j));
      r.mask(i, j) = (o.window && blocks < o.window) || global[i] || global[j] ||
                     (o.stride && gap % o.stride == 0);
    }

  // The random keys: per query block, r key blocks none of whose cells the fixed parts allow
  // for the block's non-global queries, drawn by a partial Fisher–Yates shuffle.
  if (o.random) {
    Draws draws(o.seed);
    const std::size_t key_blocks = (n_k + b - 1) / b;
    std::vector<std::size_t> free;
    for (std::size_t first = 0; first < n_q; first += b) {
      const std::size_t last = std::min(first + b, n_q);
      free.clear();
      for (std::size_t kb = 0; kb < key_blocks; ++kb) {
        bool open = false, taken = false;
        for (std::size_t i = first; i < last && !taken; ++i) {
          if (global[i]) continue;
          open = true;
          for (std::size_t j = kb * b; j < std::min(kb * b + b, n_k) && !taken; ++j)
            taken = r.mask(i, j);
        }
        if (open && !taken) free.push_back(kb);
      }
      const std::size_t count = std::min(o.random, free.size());
      for (std::size_t t = 0; t < count; ++t) {
        std::swap(free[t], free[t + draws.below(free.size() - t)]);
        for (std::size_t i = first; i < last; ++i)
          for (std::size_t j = free[t] * b; j < std::min(free[t] * b + b, n_k); ++j)
            r.mask(i, j) = 1;  // global rows are all ones already
      }
    }
  }

  r.keys_per_query.assign(n_q, 0);
  for (std::size_t i = 0; i < n_q; ++i)
    r.keys_per_query[i] = static_cast<std::uint32_t>(
        std::accumulate(r.mask.row(i), r.mask.row(i) + n_k, std::size_t{0}));
  r.nonzeros = std::accumulate(r.keys_per_query.begin(), r.keys_per_query.end(), std::size_t{0});
  const double cells = double(n_q) * double(n_k), per_cell = 4.0 * double(o.head_width);
  r.density = double(r.nonzeros) / cells;
  r.flops = per_cell * double(r.nonzeros);
  r.dense_flops = per_cell * cells;
  return r;
}

}  // namespace attnlab
