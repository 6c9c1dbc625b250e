#include "attnlab/head_scores.hpp"

#include "attnlab/random.hpp"
#include "base/validate.hpp"

namespace attnlab {
namespace {

// The mean over queries first … last − 1 of 1 / (i + 1): what any one key's score would be if
// each causal query spread its weight evenly over its i + 1 keys.
double uniform_score(std::size_t first, std::size_t last) {
  double total = 0;
  for (std::size_t i = first; i < last; ++i) total += 1.0 / static_cast<double>(i + 1);
  return total / static_cast<double>(last - first);
}

void name_role(HeadScores& s, std::size_t n, std::size_t period) {
  struct Candidate {
    const char* role;
    double score, uniform;
  };
  std::vector<Candidate> candidates{{"previous-token", s.previous_token, uniform_score(1, n)},
                                    {"first-token", s.first_token, uniform_score(1, n)}};
  if (period > 0) {
    const double repeat = uniform_score(period, 2 * period);
    candidates.push_back({"duplicate-token", *s.duplicate_token, repeat});
    candidates.push_back({"induction", *s.induction, repeat});
  }
  const Candidate* best = &candidates[0];
  for (const Candidate& c : candidates)
    if (c.score / c.uniform > best->score / best->uniform) best = &c;
  s.role = best->score >= role_factor * best->uniform ? best->role : "spread";
  s.role_score = best->score;
}

}  // namespace

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
  name_role(s, a.rows, period);
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
