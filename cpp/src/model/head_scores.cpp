#include "attnlab/head_scores.hpp"

#include "attnlab/random.hpp"
#include "base/validate.hpp"

namespace attnlab {

Result<HeadScores> head_scores(const Matrix& a, std::size_t period) {
  if (a.rows != a.cols)
    return Error{ErrorCode::shape_mismatch, "attention weights (" + shape_string(a) +
                                                ") must be square: one row per query, "
                                                "one column per key"};
  if (a.rows < 2)
    return Error{
        ErrorCode::invalid_argument,
        "attention weights need at least 2 tokens to score a head, got " + std::to_string(a.rows)};
  if (2 * period > a.rows)
    return validate::formatted(ErrorCode::invalid_argument,
                               "a period of %zu tokens repeats past the %zu tokens of the weights",
                               period, a.rows);
  HeadScores s;
  for (std::size_t i = 1; i < a.rows; ++i) {
    s.previous_token += a(i, i - 1);
    s.first_token += a(i, 0);
  }
  s.previous_token /= static_cast<double>(a.rows - 1);
  s.first_token /= static_cast<double>(a.rows - 1);
  if (period > 0) {
    double duplicate = 0, induction = 0;
    for (std::size_t i = period; i < 2 * period; ++i) {
      duplicate += a(i, i - period);
      induction += a(i, i - period + 1);
    }
    s.duplicate_token = duplicate / static_cast<double>(period);
    s.induction = induction / static_cast<double>(period);
  }
  return s;
}

std::vector<int> repeated_random_tokens(std::size_t vocab, std::size_t period, std::uint64_t seed) {
  std::vector<int> choices;
  for (std::size_t t = 32; t < 127 && t < vocab; ++t) choices.push_back(static_cast<int>(t));
  for (std::size_t t = 256; t < vocab; ++t) choices.push_back(static_cast<int>(t));
  for (std::size_t t = 0; choices.empty() && t < vocab; ++t) choices.push_back(static_cast<int>(t));
  std::vector<int> tokens(2 * period);
  for (std::size_t i = 0; i < period; ++i)
    tokens[i] = tokens[i + period] =
        choices[splitmix64_mix(seed + i * 0x9e3779b97f4a7c15ULL) % choices.size()];
  return tokens;
}

Result<std::vector<std::vector<HeadScores>>> model_head_scores(const Model& model,
                                                               const std::vector<int>& tokens,
                                                               std::size_t period) {
  auto f = forward(model, tokens);
  if (!f) return f.error();
  std::vector<std::vector<HeadScores>> scores;
  for (const ModelBlockForward& b : f.value().blocks) {
    scores.emplace_back();
    for (const Matrix& weights : b.attention) {
      auto s = head_scores(weights, period);
      if (!s) return s.error();
      scores.back().push_back(s.value());
    }
  }
  return scores;
}

}  // namespace attnlab
