// libFuzzer target for the learning module's trainer: the fuzz input is decoded into a
// trainer configuration (every field, in and beyond its range) and a few step(count) calls.
// Trainer::create and step must return a typed error or finite progress; the weights it
// shows and the layer it hands to the trace are finite, and that layer's backward trace and
// gradient check hold the trace fuzzer's rule. The layout: task, layers, heads, d_model,
// context, vocab, batch, learning rate (float32 bytes), seed, then per call a step count
// (at most three calls), then the gradient check's dOutput scale, parameter, row and col.
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <cstdlib>

#include "attnlab/trace.hpp"
#include "attnlab/trace_backward.hpp"
#include "attnlab/training.hpp"
#include "fuzz_reader.hpp"

namespace {

bool finite(const attnlab::Matrix& m) {
  for (float v : m.data)
    if (!std::isfinite(v)) return false;
  return true;
}

void require(bool holds) {
  if (!holds) std::abort();  // a value escaped the checks
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  attnlab::fuzz::Reader in(data, size);
  attnlab::TrainingConfig config;
  config.task = static_cast<attnlab::TrainingTask>(static_cast<int>(in.byte() % 6) - 1);
  config.layers = static_cast<int>(in.byte() % 5) - 1;
  config.heads = static_cast<int>(in.byte() % 7) - 1;
  config.d_model = in.dimension(40);
  config.context_length = in.dimension(20);
  config.vocab = in.dimension(40);
  config.batch = in.dimension(8);  // small: each step runs under ASan
  config.learning_rate = in.number();
  config.seed = in.byte();
  auto created = attnlab::Trainer::create(config);
  if (!created) {
    require(!created.error().message.empty());
    return 0;
  }
  attnlab::Trainer& trainer = created.value();
  for (int call = 0; call < 3; ++call) {
    const std::size_t count = in.dimension(4);  // 0 (refused) … 4
    const auto progress = trainer.step(count);
    if (!progress) {
      require(!progress.error().message.empty());
      continue;
    }
    require(std::isfinite(progress.value().loss) && progress.value().accuracy >= 0.0f &&
            progress.value().accuracy <= 1.0f);
  }
  for (const auto& layer : trainer.attention().weights)
    for (const auto& head : layer) require(finite(head));

  // The trained layer through the backward trace and the gradient check.
  // Any layer index, out of range included: a bad one must be refused with a message.
  const auto trained = trainer.model(static_cast<int>(in.byte() % 5) - 1);
  if (!trained) {
    require(!trained.error().message.empty());
    return 0;
  }
  const attnlab::TrainedLayer& layer = trained.value();
  attnlab::TraceInput input;
  input.source = attnlab::Projections{layer.x, layer.w_q, layer.w_k, layer.w_v};
  input.w_o = layer.w_o;
  input.heads = layer.heads;
  input.options.causal = true;
  input.d_output = attnlab::Matrix(layer.x.rows, layer.w_o.cols, in.number());
  const auto traced = attnlab::trace(input);
  if (traced) {
    for (const auto& step : traced.value().steps)
      for (float v : step.values.data)
        require(std::isfinite(v) || (step.id == attnlab::step::mask && v == -INFINITY));
  } else {
    require(!traced.error().message.empty());
  }
  static constexpr const char* parameters[] = {"X", "Q", "K", "V", "Wq", "Wk", "Wv", "Wo"};
  const auto check =
      attnlab::check_gradient(input, parameters[in.byte() % 8], in.dimension(20), in.dimension(40));
  if (check)
    require(std::isfinite(check.value().analytic) && std::isfinite(check.value().numeric));
  else
    require(!check.error().message.empty());
  return 0;
}
