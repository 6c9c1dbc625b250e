// The model's tokenizer: byte-level byte-pair encoding. Every byte is a token (ids 0 … 255);
// each merge, learned from the corpus by the core, makes one more token from two (ids 256 …).
// Merges never cross a chunk boundary (pretokenize), so a token is a piece of a word, a word
// with its leading space, a run of digits or one other byte: a learner can read them.
#pragma once

#include <cstddef>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "attnlab/error.hpp"

namespace attnlab {

namespace limits {
// The bytes of UTF-8 one tokenize() takes (lab.limits().tokenizeBytes): each merge is a pass
// over a chunk, so a text of a million letters took 7 s; at this limit, well under a second.
inline constexpr std::size_t tokenize_bytes = 65536;
}  // namespace limits

// The text cut into chunks: a space followed by letters (bytes ≥ 0x80 count as letters, so
// UTF-8 stays whole), a run of letters, a run of digits, or any other single byte.
std::vector<std::string_view> pretokenize(std::string_view text);

class Tokenizer {
 public:
  using Merge = std::pair<int, int>;  // the two tokens merged, left then right

  // Learns up to `merges` merges from text: each the most frequent adjacent pair within
  // chunks (ties to the smallest pair), until no pair occurs twice.
  static Tokenizer train(std::string_view text, std::size_t merges);
  // Errors: invalid_argument naming a merge whose tokens do not exist before it.
  static Result<Tokenizer> from_merges(std::vector<Merge> merges);

  std::vector<int> encode(std::string_view text) const;
  // Errors: invalid_argument naming a token id out of range.
  Result<std::string> decode(const std::vector<int>& tokens) const;

  std::size_t vocab() const { return bytes_.size(); }
  const std::string& bytes(int token) const { return bytes_[static_cast<std::size_t>(token)]; }
  const std::vector<Merge>& merges() const { return merges_; }

 private:
  explicit Tokenizer(std::vector<Merge> merges);
  std::vector<int> encode_chunk(std::string_view chunk) const;
  std::vector<Merge> merges_;
  std::vector<std::string> bytes_;  // each token's bytes
};

// tokenizer.encode(text) for a text from outside: too_large past limits::tokenize_bytes.
Result<std::vector<int>> tokenize(const Tokenizer& tokenizer, std::string_view text);

}  // namespace attnlab
