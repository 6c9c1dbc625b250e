// A tiny attention-only transformer, trained by the core on toy tasks, so a learner can watch
// heads learn a pattern. Token embedding E and learned positions P, 1 or 2 layers of causal
// multi-head attention (W_Q, W_K, W_V, W_O) added to the residual stream, unembedding W_U,
// cross-entropy on each task's target positions, Adam. Initialisation and data come from the
// core's seeded generators, so a seed gives the same loss curve natively and in wasm. Each
// step() also scores every head on an induction probe (head_scores.hpp's rule), so the step
// at which an induction head forms shows beside the loss.
#pragma once

#include <cstddef>
#include <cstdint>
#include <vector>

#include "attnlab/error.hpp"
#include "attnlab/matrix.hpp"

namespace attnlab {

// What is learned at each target position i of a sequence x (n = context, m = ⌈n/2⌉):
enum class TrainingTask {
  previous_token,  // "previous-token": random tokens; target x[i−1], i ≥ 1
  copy_first,      // "copy-first": random tokens; target x[0], i ≥ 1
  reverse,         // "reverse": a (m random tokens) then a reversed; target x[i+1], i ≥ m−1
  induction,       // "induction": a then a again; target x[i+1] in the repeat, i ≥ m
  // "induction-anywhere": p random tokens (2 ≤ p ≤ n−2, drawn per sequence), then them again:
  // x[i] = x[i−p]; target x[i+1] for i ≥ p. The copy's start varies, so no position gives it.
  induction_anywhere,
};

struct TrainingConfig {
  TrainingTask task = TrainingTask::previous_token;
  int layers = 1;  // 1 … limits::train_layers
  int heads = 1;   // 1 … limits::train_heads, dividing d_model (d_head = d_model / heads)
  std::size_t d_model = 16;
  std::size_t context_length = 8;  // tokens per sequence
  std::size_t vocab = 8;
  std::size_t batch = 16;  // sequences per step
  float learning_rate = 0.01f;
  std::uint64_t seed = 1;
};

struct TrainingProgress {
  std::size_t step;     // steps taken since construction
  float loss;           // the last step's training batch's mean cross-entropy
  float held_out_loss;  // the fixed evaluation batch's mean cross-entropy
  float accuracy;       // argmax = target on the fixed evaluation batch, 0 … 1
  // Every head's scores on the induction probe (training::make_probe), [layer][head], 0 … 1:
  // head_scores()'s previous_token and induction with the probe's period, averaged over the
  // probe's sequences.
  std::vector<std::vector<double>> previous_token, induction;
};

// The fixed sample sequence and every head's weights on it.
struct TrainingAttention {
  std::vector<int> token_ids;                // (context_length)
  std::vector<std::vector<Matrix>> weights;  // [layer][head]: (context_length, context_length) each
};

// One layer on the sample, as trace() takes it (heads·d_head = d_model): trace(x, W…) with
// causal: true gives that layer's weights of attention().
struct TrainedLayer {
  Matrix x;  // the residual stream entering the layer (layer 1: E[tokens] + P): (context, d_model)
  Matrix w_q, w_k, w_v;  // (d_model, heads·d_head)
  Matrix w_o;            // (heads·d_head, d_model)
  int heads;
  std::vector<int> token_ids;  // (context_length)
};

namespace training {

// Sequences with their targets, row by row: tokens and targets (count, context); a target of
// −1 is a position without one.
struct Batch {
  std::size_t count = 0;
  std::vector<int> tokens, targets;
};

// A seed's independent streams: index 0 the initialisation, 1 the evaluation batch, 2 the
// sample, 3 + s step s's batch, 2⁶⁴ − 1 (a step never reaches it) the probe.
std::uint64_t stream(std::uint64_t seed, std::uint64_t index);

// Every parameter in one flat vector, in this order: E (vocab, d_model), P (context, d_model),
// per layer W_Q, W_K, W_V (d_model, d_model) and W_O (d_model, d_model), W_U (d_model, vocab).
std::size_t parameter_count(const TrainingConfig& config);
// The seeded initial parameters.
std::vector<float> initial_parameters(const TrainingConfig& config);
// `count` sequences of the config's task from the token stream `stream`.
Batch make_batch(const TrainingConfig& config, std::size_t count, std::uint64_t stream);

// The induction probe of Olsson et al. 2022, for this task's vocabulary and context: `count`
// sequences of probe_period(config) distinct random tokens (⌊context_length / 2⌋, or vocab if
// fewer) repeated to fill the context; no targets.
std::size_t probe_period(const TrainingConfig& config);
Batch make_probe(const TrainingConfig& config, std::size_t count, std::uint64_t stream);
// The parameters' head scores on `probe` (TrainingProgress's previous_token and induction).
void score_heads(const TrainingConfig& config, const std::vector<float>& parameters,
                 const Batch& probe, TrainingProgress& progress);

// The batch's mean cross-entropy over its targets and, given `gradients` (resized here), its
// gradient with respect to every parameter. Float for training; float64 for the gradient
// checks.
template <class T>
T loss_and_gradients(const TrainingConfig& config, const std::vector<T>& parameters,
                     const Batch& batch, std::vector<T>* gradients);

}  // namespace training

class Trainer {
 public:
  // Errors: invalid_argument or too_large naming the field and its range (limits.hpp).
  static Result<Trainer> create(const TrainingConfig& config);

  // `count` Adam steps (1 … limits::train_steps), then the progress.
  Result<TrainingProgress> step(std::size_t count);
  TrainingAttention attention() const;
  // Layer `layer` (0 … layers − 1) on the sample. Errors: invalid_argument naming layer.
  Result<TrainedLayer> model(int layer = 0) const;

  const TrainingConfig& config() const { return config_; }
  const std::vector<float>& parameters() const { return parameters_; }

 private:
  explicit Trainer(const TrainingConfig& config);
  TrainingConfig config_;
  std::vector<float> parameters_, m_, v_;  // the parameters and Adam's moments
  float beta1_power_ = 1.0f, beta2_power_ = 1.0f;
  std::size_t steps_ = 0;
  training::Batch evaluation_, sample_, probe_;
};

}  // namespace attnlab
