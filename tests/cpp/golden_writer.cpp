// Writes golden cases for the JavaScript tests: each case is a request in the package's
// JSON form plus every trace step the native (AVX-512/AVX2) build computes for it. The JS
// tests run the same requests through the wasm package and compare step by step. It also
// writes the trainer's loss curve over 200 steps (one step() at a time) for a few configs,
// which the wasm trainer must repeat.
// Usage: attnlab-golden <output.json>
#include <cmath>
#include <cstdio>
#include <random>
#include <string>
#include <vector>

#include "attnlab/attnlab.hpp"

namespace {

using attnlab::Matrix;

Matrix random_matrix(std::size_t rows, std::size_t cols, std::mt19937& rng) {
  std::normal_distribution<float> normal(0.0f, 1.0f);
  Matrix m(rows, cols);
  for (float& v : m.data) v = normal(rng);
  return m;
}

// JSON has no infinities; masked logits (-inf) are written as null.
std::string number(float v) {
  if (std::isinf(v)) return "null";
  char buffer[32];
  std::snprintf(buffer, sizeof buffer, "%.9g", v);
  return buffer;
}

template <class T>
std::string json(const attnlab::BasicMatrix<T>& m, bool as_bool = false) {
  std::string out = "[";
  for (std::size_t r = 0; r < m.rows; ++r) {
    out += r ? ",[" : "[";
    for (std::size_t c = 0; c < m.cols; ++c) {
      if (c) out += ",";
      out += as_bool ? (m(r, c) ? "true" : "false") : number(static_cast<float>(m(r, c)));
    }
    out += "]";
  }
  return out + "]";
}

std::string json(const attnlab::TraceInput& in) {
  std::string out = "{";
  if (const auto* p = std::get_if<attnlab::Projections>(&in.source))
    out += "\"X\":" + json(p->x) + ",\"Wq\":" + json(p->w_q) + ",\"Wk\":" + json(p->w_k) +
           ",\"Wv\":" + json(p->w_v);
  else {
    const auto& d = std::get<attnlab::DirectQKV>(in.source);
    out += "\"Q\":" + json(d.q) + ",\"K\":" + json(d.k) + ",\"V\":" + json(d.v);
  }
  if (in.w_o) out += ",\"Wo\":" + json(*in.w_o);
  out += ",\"heads\":" + std::to_string(in.heads);
  out += std::string(",\"positional\":") +
         (in.positional == attnlab::PositionalEncoding::sinusoidal ? "\"sinusoidal\"" : "\"none\"");
  const auto& o = in.options;
  out += std::string(",\"causal\":") + (o.causal ? "true" : "false");
  if (!o.key_padding.empty()) {
    out += ",\"keyPadding\":[";
    for (std::size_t i = 0; i < o.key_padding.size(); ++i)
      out += std::string(i ? "," : "") + (o.key_padding[i] ? "true" : "false");
    out += "]";
  }
  if (o.mask) out += ",\"mask\":" + json(*o.mask, true);
  if (o.scale) out += ",\"scale\":" + number(*o.scale);
  out += ",\"temperature\":" + number(o.temperature);
  return out + "}";
}

std::string json(const attnlab::Trace& t) {
  std::string out = "{\"steps\":[";
  for (std::size_t i = 0; i < t.steps.size(); ++i) {
    const auto& s = t.steps[i];
    out += std::string(i ? "," : "") + "{\"id\":\"" + s.id + "\"";
    if (s.head) out += ",\"head\":" + std::to_string(*s.head);
    out += ",\"values\":" + json(s.values) + "}";
  }
  out += "],\"fullyMaskedRows\":[";
  for (std::size_t h = 0; h < t.fully_masked_rows.size(); ++h) {
    out += std::string(h ? ",[" : "[");
    for (std::size_t i = 0; i < t.fully_masked_rows[h].size(); ++i)
      out += std::string(i ? "," : "") + std::to_string(t.fully_masked_rows[h][i]);
    out += "]";
  }
  return out + "]}";
}

struct Case {
  std::string name;
  attnlab::TraceInput input;
};

std::vector<Case> cases() {
  std::mt19937 rng(2017);
  std::vector<Case> out;
  const auto direct = [&](std::size_t n_q, std::size_t n_k, std::size_t d_k, std::size_t d_v) {
    return attnlab::DirectQKV{random_matrix(n_q, d_k, rng), random_matrix(n_k, d_k, rng),
                              random_matrix(n_k, d_v, rng)};
  };
  const auto projections = [&](std::size_t n, std::size_t d_model, std::size_t width) {
    return attnlab::Projections{random_matrix(n, d_model, rng), random_matrix(d_model, width, rng),
                                random_matrix(d_model, width, rng),
                                random_matrix(d_model, width, rng)};
  };

  attnlab::TraceInput tiny;
  tiny.source = attnlab::DirectQKV{Matrix::from_rows({{1, 0}, {0, 1}}),
                                   Matrix::from_rows({{1, 0}, {1, 1}, {0, 1}}),
                                   Matrix::from_rows({{1, 0}, {0, 2}, {1, 1}})};
  out.push_back({"tiny example (Q 2x2, K 3x2, V 3x2)", tiny});

  attnlab::TraceInput random;
  random.source = direct(9, 9, 7, 5);
  out.push_back({"random 9 tokens, d_k 7, d_v 5", random});

  attnlab::TraceInput cross;
  cross.source = direct(4, 11, 16, 3);
  cross.options.temperature = 0.5f;
  out.push_back({"cross-attention 4x11 with temperature 0.5", cross});

  attnlab::TraceInput causal;
  causal.source = direct(12, 12, 8, 8);
  causal.options.causal = true;
  out.push_back({"causal 12 tokens", causal});

  attnlab::TraceInput padded;
  padded.source = direct(6, 6, 3, 4);
  padded.options.key_padding = {false, false, false, false, true, true};
  padded.options.scale = 0.25f;
  out.push_back({"key padding of the last two keys, scale 0.25", padded});

  attnlab::TraceInput masked;
  masked.source = direct(5, 7, 4, 2);
  attnlab::BoolMatrix mask(5, 7, std::uint8_t{1});
  for (std::size_t j = 0; j < 7; ++j) mask(2, j) = 0;  // row 2 fully masked
  mask(0, 3) = mask(4, 6) = 0;
  masked.options.mask = mask;
  out.push_back({"boolean mask with a fully masked row", masked});

  attnlab::TraceInput heads;
  heads.source = projections(8, 6, 8);
  heads.heads = 2;
  heads.w_o = random_matrix(8, 6, rng);
  heads.options.causal = true;
  out.push_back({"two heads with W_O, causal", heads});

  attnlab::TraceInput positional;
  positional.source = projections(10, 4, 12);
  positional.heads = 3;
  positional.positional = attnlab::PositionalEncoding::sinusoidal;
  out.push_back({"three heads with sinusoidal positions", positional});
  return out;
}

// The trainer's configs, in the package's JSON form (every other field its default).
struct Curve {
  std::string request;
  attnlab::TrainingConfig config;
};

std::vector<Curve> curves() {
  using attnlab::TrainingTask;
  return {
      {"{}", {}},
      {R"({"task":"induction","layers":2,"heads":2,"contextLength":12,"seed":5})",
       {.task = TrainingTask::induction, .layers = 2, .heads = 2, .context_length = 12, .seed = 5}},
      {R"({"task":"reverse","heads":4,"dModel":32,"learningRate":0.02,"seed":9})",
       {.task = TrainingTask::reverse,
        .heads = 4,
        .d_model = 32,
        .learning_rate = 0.02f,
        .seed = 9}}};
}

// {"request":…,"losses":[…],"accuracy":…} of 200 steps, or an empty string on an error.
std::string json(const Curve& c) {
  auto trainer = attnlab::Trainer::create(c.config);
  if (!trainer) return "";
  std::string losses;
  float accuracy = 0;
  for (int s = 0; s < 200; ++s) {
    const auto p = trainer.value().step(1);
    if (!p) return "";
    losses += (s ? "," : "") + number(p.value().loss);
    accuracy = p.value().accuracy;
  }
  return "{\"request\":" + c.request + ",\"losses\":[" + losses +
         "],\"accuracy\":" + number(accuracy) + "}";
}

}  // namespace

int main(int argc, char** argv) {
  if (argc != 2) {
    std::fprintf(stderr, "usage: attnlab-golden <output.json>\n");
    return 2;
  }
  std::string out =
      "{\"simdArch\":\"" + std::string(attnlab::kernels::simd_arch()) + "\",\"cases\":[";
  bool first = true;
  for (const Case& c : cases()) {
    const auto t = attnlab::trace(c.input);
    if (!t) {
      std::fprintf(stderr, "%s: %s\n", c.name.c_str(), t.error().message.c_str());
      return 1;
    }
    out += std::string(first ? "" : ",") + "\n{\"name\":\"" + c.name +
           "\",\"request\":" + json(c.input) + ",\"expected\":" + json(t.value()) + "}";
    first = false;
  }
  out += "\n],\"trainingCurves\":[";
  first = true;
  for (const Curve& c : curves()) {
    const std::string curve = json(c);
    if (curve.empty()) {
      std::fprintf(stderr, "training %s failed\n", c.request.c_str());
      return 1;
    }
    out += std::string(first ? "" : ",") + "\n" + curve;
    first = false;
  }
  out += "\n]}\n";
  std::FILE* file = std::fopen(argv[1], "w");
  if (!file || std::fputs(out.c_str(), file) < 0 || std::fclose(file) != 0) {
    std::fprintf(stderr, "cannot write %s\n", argv[1]);
    return 1;
  }
  return 0;
}
