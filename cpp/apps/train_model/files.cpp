#include "files.hpp"

#include <bit>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <stdexcept>

namespace train_model {

std::uint16_t to_float16(float x) {
  const std::uint32_t f = std::bit_cast<std::uint32_t>(x);
  const std::uint32_t sign = (f >> 16) & 0x8000u;
  const float a = std::fabs(x);
  if (!(a < 65520.0f)) return static_cast<std::uint16_t>(sign | 0x7bffu);  // saturate
  if (a < 6.103515625e-05f) {  // subnormal: a multiple of 2⁻²⁴, rounded to nearest even
    return static_cast<std::uint16_t>(sign |
                                      static_cast<std::uint32_t>(std::nearbyint(a * 16777216.0f)));
  }
  const std::uint32_t bits = std::bit_cast<std::uint32_t>(a);
  std::uint32_t mantissa = bits & 0x7fffffu;
  std::uint32_t exponent = (bits >> 23) - 127 + 15;
  const std::uint32_t dropped = mantissa & 0x1fffu;
  mantissa >>= 13;
  if (dropped > 0x1000u || (dropped == 0x1000u && (mantissa & 1u))) ++mantissa;
  if (mantissa == 0x400u) {
    mantissa = 0;
    ++exponent;
  }
  return static_cast<std::uint16_t>(sign | (exponent << 10) | mantissa);
}

float from_float16(std::uint16_t h) {
  const float sign = (h & 0x8000u) ? -1.0f : 1.0f;
  const int exponent = (h >> 10) & 0x1f;
  const int mantissa = h & 0x3ff;
  if (exponent == 0) return sign * std::ldexp(static_cast<float>(mantissa), -24);
  return sign * std::ldexp(static_cast<float>(mantissa + 1024), exponent - 25);
}

std::vector<float> rounded_to_float16(const std::vector<float>& values) {
  std::vector<float> out(values.size());
  for (std::size_t i = 0; i < values.size(); ++i) out[i] = from_float16(to_float16(values[i]));
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
      const std::uint16_t h = to_float16(x);
      const char bytes[2] = {static_cast<char>(h & 0xff), static_cast<char>(h >> 8)};
      out.write(bytes, 2);
    }
  }
  auto model = open(dir + "/model.json");
  model << "{\n  \"format\": \"attnlab-model-1\",\n  \"config\": { \"vocab\": " << c.vocab
        << ", \"context\": " << c.context << ", \"d_model\": " << c.d_model
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
