#include "evaluation.hpp"

#include <algorithm>
#include <cmath>
#include <stdexcept>

#include "files.hpp"

namespace train_model {
namespace {

// The cross-entropy of each prediction in a window: (n − 1) values.
std::vector<double> position_losses(const attnlab::Matrix& logits, const std::vector<int>& tokens) {
  std::vector<double> out;
  for (std::size_t i = 0; i + 1 < tokens.size(); ++i) {
    const float* row = logits.row(i);
    const double top = *std::max_element(row, row + logits.cols);
    double z = 0;
    for (std::size_t j = 0; j < logits.cols; ++j) z += std::exp(row[j] - top);
    out.push_back(std::log(z) + top - row[tokens[i + 1]]);
  }
  return out;
}

template <class T>
T checked(attnlab::Result<T> r) {
  if (!r) throw std::runtime_error(r.error().message);
  return std::move(r).value();
}

std::string heads_json(const std::vector<std::vector<attnlab::HeadScores>>& layers) {
  std::string s = "[";
  for (std::size_t l = 0; l < layers.size(); ++l) {
    s += l ? ", [" : "[";
    for (std::size_t h = 0; h < layers[l].size(); ++h) {
      const auto& x = layers[l][h];
      s += std::string(h ? ", " : "") + "{ \"previous_token\": " + json_number(x.previous_token) +
           ", \"first_token\": " + json_number(x.first_token);
      if (x.induction)
        s += ", \"duplicate_token\": " + json_number(*x.duplicate_token) +
             ", \"induction\": " + json_number(*x.induction);
      s += " }";
    }
    s += "]";
  }
  return s + "]";
}

}  // namespace

Evaluation evaluate(const attnlab::Model& model, const std::vector<int>& held_out,
                    std::size_t windows, std::size_t threads, std::size_t step) {
  const std::size_t n = model.config.context_length;
  if (held_out.size() < n + windows) throw std::runtime_error("the held-out text is too short");
  std::vector<std::vector<double>> losses(windows);
  for_each_item(windows, threads, [&](std::size_t w) {
    const std::size_t offset = w * (held_out.size() - n) / windows;
    const std::vector<int> tokens(held_out.begin() + static_cast<std::ptrdiff_t>(offset),
                                  held_out.begin() + static_cast<std::ptrdiff_t>(offset + n));
    losses[w] = position_losses(checked(attnlab::forward(model, tokens)).logits, tokens);
  });
  Evaluation e;
  e.step = step;
  const std::size_t eighth = std::max<std::size_t>(1, (n - 1) / 8);
  double total = 0, early = 0, late = 0;
  for (const auto& w : losses) {
    for (double x : w) total += x;
    for (std::size_t i = 0; i < eighth; ++i) {
      early += w[i];
      late += w[w.size() - 1 - i];
    }
  }
  e.held_out_loss = total / static_cast<double>(windows * (n - 1));
  e.in_context = (late - early) / static_cast<double>(windows * eighth);
  const std::size_t period = n / 2;
  e.probe_heads = checked(attnlab::model_head_scores(
      model, attnlab::repeated_random_tokens(model.config.vocab, period, 1), period));
  constexpr std::size_t probe_period = 20, probe_seeds = 3;
  for (std::uint64_t seed = 1; seed <= probe_seeds; ++seed) {
    const auto probe = attnlab::repeated_random_tokens(model.config.vocab, probe_period, seed);
    const auto f = checked(attnlab::forward(model, probe));
    double best = 0;
    for (const auto& block : f.blocks)
      for (const auto& weights : block.attention)
        best = std::max(best, *checked(attnlab::head_scores(weights, probe_period)).induction);
    const auto loss = position_losses(f.logits, probe);  // loss[i] predicts token i + 1
    double first = 0, second = 0;
    for (std::size_t i = 0; i + 1 < probe_period; ++i) {
      first += loss[i];
      second += loss[probe_period + i];
    }
    e.probe_best_induction += best / probe_seeds;
    e.probe_first_copy_loss += first / static_cast<double>((probe_period - 1) * probe_seeds);
    e.probe_second_copy_loss += second / static_cast<double>((probe_period - 1) * probe_seeds);
  }
  e.text_heads = checked(attnlab::model_head_scores(
      model, std::vector<int>(held_out.begin(), held_out.begin() + static_cast<std::ptrdiff_t>(n)),
      0));
  return e;
}

std::string to_json(const Evaluation& e) {
  return "{ \"step\": " + std::to_string(e.step) +
         ", \"held_out_loss\": " + json_number(e.held_out_loss) +
         ", \"in_context\": " + json_number(e.in_context) +
         ",\n      \"probe_20\": { \"best_induction\": " + json_number(e.probe_best_induction) +
         ", \"first_copy_loss\": " + json_number(e.probe_first_copy_loss) +
         ", \"second_copy_loss\": " + json_number(e.probe_second_copy_loss) + " }" +
         ",\n      \"probe_heads\": " + heads_json(e.probe_heads) +
         ",\n      \"text_heads\": " + heads_json(e.text_heads) + " }";
}

}  // namespace train_model
