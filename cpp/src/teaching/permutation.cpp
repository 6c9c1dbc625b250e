#include "attnlab/permutation.hpp"

#include <algorithm>
#include <cmath>
#include <optional>
#include <string>
#include <vector>

namespace attnlab {
namespace {

// The first reason `order` is not a permutation of 0…n−1, if any.
std::optional<Error> check_order(std::span<const std::size_t> order, std::size_t n) {
  const auto fail = [](std::string message) {
    return Error{ErrorCode::invalid_argument, std::move(message)};
  };
  if (order.size() != n)
    return fail("order has " + std::to_string(order.size()) + " entries but X (" +
                std::to_string(n) + " tokens) needs " + std::to_string(n) +
                ": one per token, listing each of 0 to " + std::to_string(n - 1) + " once");
  std::vector<std::size_t> first_seen(n, n);  // n = not seen yet
  for (std::size_t i = 0; i < n; ++i) {
    const std::size_t token = order[i];
    if (token >= n)
      return fail("order[" + std::to_string(i) + "] = " + std::to_string(token) +
                  " is out of range: tokens are numbered 0 to " + std::to_string(n - 1));
    if (first_seen[token] != n)
      return fail("order lists token " + std::to_string(token) + " twice (order[" +
                  std::to_string(first_seen[token]) + "] and order[" + std::to_string(i) +
                  "]): a permutation lists each token once");
    first_seen[token] = i;
  }
  return std::nullopt;
}

// out: (m.rows, m.cols), out row i = m row order[i].
Matrix reorder_rows(const Matrix& m, std::span<const std::size_t> order) {
  Matrix out(m.rows, m.cols);
  for (std::size_t i = 0; i < m.rows; ++i) std::copy_n(m.row(order[i]), m.cols, out.row(i));
  return out;
}

double max_abs(const Matrix& m) {
  double largest = 0.0;
  for (float x : m.data) largest = std::max(largest, std::abs(static_cast<double>(x)));
  return largest;
}

}  // namespace

Result<PermutationCheck> permutation_check(const TraceInput& input,
                                           std::span<const std::size_t> order) {
  const auto* tokens = std::get_if<Projections>(&input.source);
  if (!tokens)
    return Error{ErrorCode::invalid_argument,
                 "the permutation check reorders the tokens X, so it needs X with Wq, Wk "
                 "and Wv; with Q, K and V given directly there are no tokens to reorder"};
  // An empty X gets trace()'s own message; there is no order to check against it yet.
  if (tokens->x.rows > 0)
    if (auto e = check_order(order, tokens->x.rows)) return *e;

  auto original = forward_trace(input);
  if (!original) return original.error();

  TraceInput reordered = input;
  Projections& source = std::get<Projections>(reordered.source);
  source.x = reorder_rows(source.x, order);
  auto permuted = forward_trace(reordered);
  if (!permuted) return permuted.error();

  PermutationCheck check;
  check.original = std::move(original.value().output);
  check.permuted = std::move(permuted.value().output);
  check.predicted = reorder_rows(check.original, order);
  for (std::size_t i = 0; i < check.permuted.data.size(); ++i) {
    const double difference = static_cast<double>(check.permuted.data[i]) - check.predicted.data[i];
    check.max_difference = std::max(check.max_difference, std::abs(difference));
  }
  check.tolerance = permutation_tolerance * std::max(1.0, max_abs(check.original));
  check.reordered_only = check.max_difference <= check.tolerance;
  return check;
}

}  // namespace attnlab
