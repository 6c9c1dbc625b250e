// Byte-pair encoding: training counts pairs over the distinct chunks of the corpus (each
// weighted by how often it occurs), and encoding applies the merges in the order learned.
#include "attnlab/tokenizer.hpp"

#include <algorithm>
#include <map>
#include <unordered_map>

#include "base/validate.hpp"

namespace attnlab {
namespace {

bool letter(unsigned char c) { return ((c | 0x20) >= 'a' && (c | 0x20) <= 'z') || c >= 0x80; }
bool digit(unsigned char c) { return c >= '0' && c <= '9'; }

// Every occurrence of (left, right) in word, left to right without overlap, becomes merged.
void apply_merge(std::vector<int>& word, Tokenizer::Merge pair, int merged) {
  std::size_t out = 0;
  for (std::size_t i = 0; i < word.size(); ++i)
    if (i + 1 < word.size() && word[i] == pair.first && word[i + 1] == pair.second) {
      word[out++] = merged;
      ++i;
    } else {
      word[out++] = word[i];
    }
  word.resize(out);
}

std::uint64_t key(int left, int right) {
  return (static_cast<std::uint64_t>(left) << 32) | static_cast<std::uint32_t>(right);
}

}  // namespace

std::vector<std::string_view> pretokenize(std::string_view text) {
  std::vector<std::string_view> chunks;
  std::size_t i = 0;
  while (i < text.size()) {
    const auto at = [&](std::size_t j) { return static_cast<unsigned char>(text[j]); };
    std::size_t end = i + 1;
    if (at(i) == ' ' && end < text.size() && letter(at(end))) ++end;
    if (letter(at(end - 1)))
      while (end < text.size() && letter(at(end))) ++end;
    else if (digit(at(i)))
      while (end < text.size() && digit(at(end))) ++end;
    chunks.push_back(text.substr(i, end - i));
    i = end;
  }
  return chunks;
}

Tokenizer::Tokenizer(std::vector<Merge> merges) : merges_(std::move(merges)) {
  for (int b = 0; b < 256; ++b) bytes_.push_back(std::string(1, static_cast<char>(b)));
  for (const Merge& m : merges_)
    bytes_.push_back(bytes_[static_cast<std::size_t>(m.first)] +
                     bytes_[static_cast<std::size_t>(m.second)]);
}

Tokenizer Tokenizer::train(std::string_view text, std::size_t merges) {
  std::map<std::string_view, std::size_t> counts;  // ordered: the same words in the same order
  for (std::string_view chunk : pretokenize(text)) ++counts[chunk];
  std::vector<std::vector<int>> words;
  std::vector<std::size_t> weights;
  for (const auto& [chunk, count] : counts) {
    if (chunk.size() < 2) continue;  // a single byte has no pair
    words.emplace_back(chunk.begin(), chunk.end());
    for (int& b : words.back()) b = static_cast<unsigned char>(b);
    weights.push_back(count);
  }
  std::vector<Merge> learned;
  std::unordered_map<std::uint64_t, std::size_t> pairs;
  while (learned.size() < merges) {
    pairs.clear();
    for (std::size_t w = 0; w < words.size(); ++w)
      for (std::size_t i = 0; i + 1 < words[w].size(); ++i)
        pairs[key(words[w][i], words[w][i + 1])] += weights[w];
    std::uint64_t best = 0;
    std::size_t best_count = 0;
    for (const auto& [pair, count] : pairs)
      if (count > best_count || (count == best_count && pair < best)) {
        best = pair;
        best_count = count;
      }
    if (best_count < 2) break;
    const Merge merge{static_cast<int>(best >> 32), static_cast<int>(best & 0xffffffffu)};
    const int merged = static_cast<int>(256 + learned.size());
    for (auto& word : words) apply_merge(word, merge, merged);
    learned.push_back(merge);
  }
  return Tokenizer(std::move(learned));
}

Result<Tokenizer> Tokenizer::from_merges(std::vector<Merge> merges) {
  for (std::size_t i = 0; i < merges.size(); ++i) {
    const int known = static_cast<int>(256 + i);
    if (merges[i].first < 0 || merges[i].first >= known || merges[i].second < 0 ||
        merges[i].second >= known)
      return validate::formatted(ErrorCode::invalid_argument,
                                 "merge %zu joins tokens %d and %d: only tokens 0 to %d exist "
                                 "before it",
                                 i, merges[i].first, merges[i].second, known - 1);
  }
  return Tokenizer(std::move(merges));
}

std::vector<int> Tokenizer::encode_chunk(std::string_view chunk) const {
  std::vector<int> word(chunk.begin(), chunk.end());
  for (int& b : word) b = static_cast<unsigned char>(b);
  // The merges in the order learned, as training applied them.
  for (std::size_t m = 0; m < merges_.size() && word.size() > 1; ++m)
    apply_merge(word, merges_[m], static_cast<int>(256 + m));
  return word;
}

std::vector<int> Tokenizer::encode(std::string_view text) const {
  std::unordered_map<std::string_view, std::vector<int>> seen;
  std::vector<int> tokens;
  for (std::string_view chunk : pretokenize(text)) {
    auto it = seen.find(chunk);
    if (it == seen.end()) it = seen.emplace(chunk, encode_chunk(chunk)).first;
    tokens.insert(tokens.end(), it->second.begin(), it->second.end());
  }
  return tokens;
}

Result<std::vector<int>> tokenize(const Tokenizer& tokenizer, std::string_view text) {
  if (text.size() > limits::tokenize_bytes)
    return validate::formatted(ErrorCode::too_large,
                               "the text has %zu bytes of UTF-8: tokenize() takes at most %zu",
                               text.size(), limits::tokenize_bytes);
  return tokenizer.encode(text);
}

Result<std::string> Tokenizer::decode(const std::vector<int>& tokens) const {
  std::string text;
  for (std::size_t i = 0; i < tokens.size(); ++i) {
    if (tokens[i] < 0 || static_cast<std::size_t>(tokens[i]) >= vocab())
      return validate::formatted(ErrorCode::invalid_argument,
                                 "token %zu is %d: token ids run from 0 to %zu", i, tokens[i],
                                 vocab() - 1);
    text += bytes(tokens[i]);
  }
  return text;
}

}  // namespace attnlab
