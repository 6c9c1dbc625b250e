// The byte-pair tokenizer: chunks, merges learned by frequency, lossless round trips.
#include <catch2/catch.hpp>
#include <map>

#include "attnlab/tokenizer.hpp"

using namespace attnlab;

TEST_CASE("pretokenize keeps a word with its leading space", "[model-tokenizer]") {
  const auto chunks = pretokenize("In 1790, the  Union's caf\xc3\xa9.\n");
  const std::vector<std::string_view> expected{
      "In", " ", "1790", ",", " the", " ", " Union", "'", "s", " caf\xc3\xa9", ".", "\n"};
  CHECK(chunks == expected);
}

TEST_CASE("the first merge is the most frequent pair within chunks", "[model-tokenizer]") {
  const std::string text = "the theme, then the other thesis; these three there.";
  // Counted here by brute force over the chunks.
  std::map<std::pair<int, int>, int> pairs;
  for (std::string_view chunk : pretokenize(text))
    for (std::size_t i = 0; i + 1 < chunk.size(); ++i)
      ++pairs[{static_cast<unsigned char>(chunk[i]), static_cast<unsigned char>(chunk[i + 1])}];
  auto best = pairs.begin();
  for (auto it = pairs.begin(); it != pairs.end(); ++it)
    if (it->second > best->second) best = it;
  const Tokenizer t = Tokenizer::train(text, 20);
  REQUIRE(!t.merges().empty());
  CHECK(t.merges()[0] == best->first);
  CHECK(t.bytes(256) == "th");
  CHECK(t.vocab() == 256 + t.merges().size());
}

TEST_CASE("encode then decode gives the text back; tokens stay inside chunks",
          "[model-tokenizer]") {
  const std::string corpus =
      "We the People of the United States, in Order to form a more perfect Union, establish "
      "Justice, insure domestic Tranquility, provide for the common defence, promote the "
      "general Welfare, and secure the Blessings of Liberty to ourselves and our Posterity.";
  const Tokenizer t = Tokenizer::train(corpus, 60);
  CHECK(t.merges().size() > 20);
  const std::string text = "the People of the Union, 1787: \xe2\x80\x94 unseen words";
  const auto tokens = t.encode(text);
  CHECK(tokens.size() < text.size());  // merges were used
  CHECK(t.decode(tokens).value() == text);
  for (int token : tokens)
    if (t.bytes(token).size() > 1) CHECK(pretokenize(t.bytes(token)).size() == 1);
}

TEST_CASE("the tokenizer refuses bad merges and bad ids", "[model-tokenizer]") {
  auto e = Tokenizer::from_merges({{104, 101}, {256, 257}});
  REQUIRE(!e.ok());
  CHECK(e.error().message ==
        "merge 1 joins tokens 256 and 257: only tokens 0 to 256 exist before it");
  const Tokenizer t = Tokenizer::from_merges({{104, 101}}).value();
  CHECK(t.encode("the") == std::vector<int>{'t', 256});
  CHECK(t.decode({'t', 257}).error().message == "token 1 is 257: token ids run from 0 to 256");
}

TEST_CASE("tokenize() takes at most limits::tokenize_bytes bytes of text", "[model-tokenizer]") {
  const Tokenizer none = Tokenizer::from_merges({}).value();  // every byte its own token
  const std::string text(limits::tokenize_bytes, 'a');
  CHECK(tokenize(none, text).value().size() == limits::tokenize_bytes);
  const auto more = tokenize(none, text + "a");
  REQUIRE_FALSE(more.ok());
  CHECK(more.error().code == ErrorCode::too_large);
  CHECK(more.error().message ==
        "the text has 65537 bytes of UTF-8: tokenize() takes at most 65536");
}
