// Which keys a query may see under the causal rule and a sliding window: the one place these
// rules live, used by attention(), the trace's mask step, the flash and naive kernels, the
// sampled weights and the backward passes. Both rules keep a contiguous band of keys per
// query, which is what lets the flash kernel skip whole tiles outside it.
#pragma once

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <limits>

namespace attnlab {

// Where the queries sit among the keys: query i at key position i + offset(n_q, n_k), the one
// rule every path (attention, the trace and its ALiBi, flash, naive, sampled, decode and the
// WGSL plan) takes positions from. Top-left (the default) puts query 0 at key 0. Bottom-right
// puts it at key n_k − n_q: the queries are the last n_q of n_k tokens (PyTorch's
// causal_lower_right). at_key(p) puts it at key p, as ONNX's Attention does with a past cache
// of p = n_past rows. The three agree when n_q = n_k and p = 0.
struct CausalAlignment {
  enum class Kind : std::uint8_t { top_left, bottom_right, at_key };
  Kind kind = Kind::top_left;
  std::int64_t first_key = 0;  // at_key only: the key position of query 0

  static const CausalAlignment top_left, bottom_right;
  static constexpr CausalAlignment at_key(std::int64_t key) { return {Kind::at_key, key}; }

  // The key position of query 0 (negative when bottom-right with more queries than keys).
  constexpr std::int64_t offset(std::size_t n_q, std::size_t n_k) const {
    switch (kind) {
      case Kind::bottom_right:
        return static_cast<std::int64_t>(n_k) - static_cast<std::int64_t>(n_q);
      case Kind::at_key:
        return first_key;
      default:
        return 0;
    }
  }
  friend constexpr bool operator==(const CausalAlignment&, const CausalAlignment&) = default;
};
inline constexpr CausalAlignment CausalAlignment::top_left{CausalAlignment::Kind::top_left, 0};
inline constexpr CausalAlignment CausalAlignment::bottom_right{CausalAlignment::Kind::bottom_right,
                                                               0};

// A sliding window: the query at key position p may see keys p − left … p + right. A side
// left at `unbounded` does not limit. Built from one number w, it is the symmetric window
// |p − j| < w (0 = off), so left = right = w − 1.
struct Window {
  static constexpr std::size_t unbounded = std::numeric_limits<std::size_t>::max();
  std::size_t left = unbounded;
  std::size_t right = unbounded;

  constexpr Window() = default;
  constexpr Window(std::size_t symmetric)  // NOLINT: a number is the symmetric window
      : left(symmetric > 0 ? symmetric - 1 : unbounded),
        right(symmetric > 0 ? symmetric - 1 : unbounded) {}
  constexpr Window(std::size_t left_keys, std::size_t right_keys)
      : left(left_keys), right(right_keys) {}

  constexpr bool active() const { return left != unbounded || right != unbounded; }
  friend constexpr bool operator==(const Window&, const Window&) = default;
};

// The half-open range [begin, end) of keys one query sees; empty when begin >= end.
struct KeyRange {
  std::size_t begin = 0, end = 0;
  constexpr bool empty() const { return begin >= end; }
  constexpr bool contains(std::size_t key) const { return begin <= key && key < end; }
};

// The causal rule and the window for n_q queries over n_k keys.
class KeyBand {
 public:
  constexpr KeyBand(bool causal, CausalAlignment alignment, Window window, std::size_t n_q,
                    std::size_t n_k)
      : causal_(causal),
        window_(window),
        n_k_(static_cast<std::int64_t>(n_k)),
        offset_(alignment.offset(n_q, n_k)) {}

  // The key position of query i (CausalAlignment::offset).
  constexpr std::int64_t position(std::size_t query) const {
    return static_cast<std::int64_t>(query) + offset_;
  }
  // Key j comes after query i's position.
  constexpr bool causal_blocks(std::size_t query, std::size_t key) const {
    return causal_ && static_cast<std::int64_t>(key) > position(query);
  }
  // Key j lies outside query i's window.
  constexpr bool window_blocks(std::size_t query, std::size_t key) const {
    const std::int64_t p = position(query), j = static_cast<std::int64_t>(key);
    return (window_.left != Window::unbounded && j < p - side(window_.left)) ||
           (window_.right != Window::unbounded && j > p + side(window_.right));
  }
  // The keys query i sees under both rules.
  constexpr KeyRange range(std::size_t query) const {
    const std::int64_t p = position(query);
    std::int64_t begin = 0, end = n_k_;
    if (window_.left != Window::unbounded) begin = std::max(begin, p - side(window_.left));
    if (window_.right != Window::unbounded) end = std::min(end, p + side(window_.right) + 1);
    if (causal_) end = std::min(end, p + 1);
    // Clipped so that both ends only grow with i, also past an empty range: the flash kernel
    // walks the rows of a block as prefixes and suffixes of that order.
    begin = std::clamp<std::int64_t>(begin, 0, n_k_);
    end = std::clamp<std::int64_t>(end, begin, n_k_);
    return {static_cast<std::size_t>(begin), static_cast<std::size_t>(end)};
  }
  // Whether any rule limits a query (else every range is all of the keys).
  constexpr bool limits() const { return causal_ || window_.active(); }

 private:
  // A window side as a signed distance, capped far beyond any sequence (limits.hpp).
  static constexpr std::int64_t side(std::size_t keys) {
    return static_cast<std::int64_t>(std::min<std::uint64_t>(keys, std::uint64_t{1} << 40));
  }

  bool causal_;
  Window window_;
  std::int64_t n_k_, offset_;
};

}  // namespace attnlab
