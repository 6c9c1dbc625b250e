#include "files.hpp"

#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <stdexcept>

#include "attnlab/float16.hpp"

namespace train_model {

std::vector<float> rounded_to_float16(const std::vector<float>& values) {
  std::vector<float> out(values.size());
  for (std::size_t i = 0; i < values.size(); ++i)
    out[i] = attnlab::from_float16(attnlab::to_float16(values[i]));
  return out;
}

std::string json_number(double value) {
  if (!std::isfinite(value)) throw std::runtime_error("a non-finite number in the training output");
  char text[32];
  for (int digits = 6; digits <= 17; ++digits) {
    std::snprintf(text, sizeof text, "%.*g", digits, value);
    if (std::strtod(text, nullptr) == value ||
        static_cast<float>(std::strtod(text, nullptr)) == static_cast<float>(value))
      break;
  }
  return text;
}

namespace {

std::ofstream open(const std::string& path, std::ios::openmode mode = std::ios::out) {
  std::ofstream out(path, mode);
  if (!out) throw std::runtime_error("cannot write " + path);
  return out;
}

}  // namespace

void write_model(const std::string& dir, const attnlab::ModelConfig& c,
                 const std::vector<float>& parameters, const attnlab::Tokenizer& tokenizer) {
  {
    auto out = open(dir + "/weights.bin", std::ios::binary);
    for (float x : parameters) {
      const std::uint16_t h = attnlab::to_float16(x);
      const char bytes[2] = {static_cast<char>(h & 0xff), static_cast<char>(h >> 8)};
      out.write(bytes, 2);
    }
  }
  auto model = open(dir + "/model.json");
  model << "{\n  \"format\": \"attnlab-model-1\",\n  \"config\": { \"vocab\": " << c.vocab
        << ", \"context\": " << c.context_length << ", \"d_model\": " << c.d_model
        << ", \"layers\": " << c.layers << ", \"heads\": " << c.heads
        << ", \"d_mlp\": " << c.d_mlp() << " },\n  \"weights\": { \"file\": \"weights.bin\", "
        << "\"dtype\": \"float16\", \"count\": " << parameters.size()
        << " },\n  \"tokenizer\": \"tokenizer.json\",\n  \"tensors\": [";
  const attnlab::ModelLayout layout(c);
  for (std::size_t i = 0; i < layout.tensors.size(); ++i) {
    const auto& t = layout.tensors[i];
    model << (i ? ",\n" : "\n") << "    { \"name\": \"" << t.name << "\", \"offset\": " << t.offset
          << ", \"rows\": " << t.rows << ", \"cols\": " << t.cols << " }";
  }
  model << "\n  ]\n}\n";
  auto tok = open(dir + "/tokenizer.json");
  tok << "{\n  \"kind\": \"byte-level BPE\",\n  \"bytes\": 256,\n  \"merges\": [";
  const auto& merges = tokenizer.merges();
  for (std::size_t i = 0; i < merges.size(); ++i)
    tok << (i ? (i % 8 ? ", " : ",\n    ") : "\n    ") << "[" << merges[i].first << ", "
        << merges[i].second << "]";
  tok << "\n  ]\n}\n";
}

}  // namespace train_model
