// What the trainer measures on the held-out text through the core's inference forward: the
// loss, the in-context-learning score and every head's scores.
#pragma once

#include <cstddef>
#include <string>
#include <vector>

#include "attnlab/head_scores.hpp"
#include "attnlab/model.hpp"

namespace train_model {

struct Evaluation {
  std::size_t step = 0;
  double held_out_loss = 0;
  // Mean loss of the last eighth of the context's predictions minus that of the first eighth
  // (Olsson et al. 2022): below 0 when later tokens are predicted better thanks to the context.
  double in_context = 0;
  std::vector<std::vector<attnlab::HeadScores>> probe_heads;  // on the repeated random probe
  std::vector<std::vector<attnlab::HeadScores>> text_heads;   // on the first held-out window
  // Issue 38's measure, on inductionProbe(20, seed) for seeds 1, 2, 3 (40 tokens: 20 random
  // tokens, then the same 20 again), means over the seeds: the best head's induction score,
  // and the mean loss of predicting tokens 1 … 19 of the first copy and tokens 21 … 39 (the
  // second copy's, after its first token: what copying can predict).
  double probe_best_induction = 0, probe_first_copy_loss = 0, probe_second_copy_loss = 0;
};

// Runs `item(i)` for i in [0, count) on `threads` threads, item i on thread i % threads: the
// results land where each item writes them, the same for any thread count.
template <class Item>
void for_each_item(std::size_t count, std::size_t threads, Item item);

// Windows of `context` tokens at evenly spaced offsets of the held-out stream.
Evaluation evaluate(const attnlab::Model& model, const std::vector<int>& held_out,
                    std::size_t windows, std::size_t threads, std::size_t step);

std::string to_json(const Evaluation& e);

}  // namespace train_model

#include <thread>

template <class Item>
void train_model::for_each_item(std::size_t count, std::size_t threads, Item item) {
  std::vector<std::thread> pool;
  for (std::size_t t = 1; t < threads && t < count; ++t)
    pool.emplace_back([&, t] {
      for (std::size_t i = t; i < count; i += threads) item(i);
    });
  for (std::size_t i = 0; i < count; i += threads) item(i);
  for (auto& th : pool) th.join();
}
