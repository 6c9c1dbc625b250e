// attnlab-peer: attnlab's native flash kernel as a child process of scripts/bench-peers.mjs,
// so it runs on exactly the inputs the other kernels see, in the same rounds. One command a
// line on stdin, one JSON line back on stdout:
//
//   simd [NAME]                                   → {"simd":…,"available":[…]}
//   peak THREADS                                  → {"peak_gflops":…}   (peak.cpp)
//   run INPUT N D HEADS CAUSAL THREADS OUTPUT [CALLS] → {"ms":…}
//
// `simd NAME` runs the kernels with that instruction set from then on (kernels::force_simd_arch,
// e.g. "fma3+avx2" on an AVX-512 CPU); `peak` measures the FMA peak of the set in use.
//
// INPUT holds Q, K, V one after the other, each (N, HEADS·D) float32 row-major; it is read
// once and kept while the next command names the same file. OUTPUT ("-" for none) receives
// the (N, HEADS·D) float32 output. Only the flash_attention calls are timed: CALLS of them
// back to back (1 when absent), "ms" their mean.
#include <chrono>
#include <cstdio>
#include <fstream>
#include <iostream>
#include <sstream>
#include <string>

#include "attnlab/flash.hpp"
#include "attnlab/kernels.hpp"
#include "peak.hpp"

namespace {

using attnlab::Matrix;

struct Inputs {
  std::string path;
  Matrix q, k, v;
};

bool load(Inputs& in, const std::string& path, std::size_t rows, std::size_t cols) {
  if (in.path == path && in.q.rows == rows && in.q.cols == cols) return true;
  std::ifstream file(path, std::ios::binary);
  for (Matrix* m : {&in.q, &in.k, &in.v}) {
    *m = Matrix(rows, cols);
    file.read(reinterpret_cast<char*>(m->data.data()),
              static_cast<std::streamsize>(m->data.size() * sizeof(float)));
  }
  in.path = file ? path : "";
  return static_cast<bool>(file);
}

void reply_error(const std::string& message) {
  std::printf("{\"error\":\"%s\"}\n", message.c_str());
}

void run(Inputs& in, std::istringstream& args) {
  std::string input, output;
  std::size_t n = 0, d = 0, threads = 0;
  int heads = 0, causal = 0, calls = 1;
  if (!(args >> input >> n >> d >> heads >> causal >> threads >> output) || heads < 1)
    return reply_error("usage: run INPUT N D HEADS CAUSAL THREADS OUTPUT [CALLS]");
  if (!(args >> calls)) calls = 1;
  if (calls < 1) return reply_error("CALLS must be at least 1");
  if (!load(in, input, n, d * static_cast<std::size_t>(heads)))
    return reply_error("cannot read the inputs from " + input);
  attnlab::LongAttentionOptions options;
  options.causal = causal != 0;
  options.heads = heads;
  options.threads = threads;
  const auto start = std::chrono::steady_clock::now();
  auto result = attnlab::flash_attention(in.q, in.k, in.v, options);
  for (int call = 1; call < calls && result; ++call)
    result = attnlab::flash_attention(in.q, in.k, in.v, options);
  const double ms =
      std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start).count() /
      calls;
  if (!result) return reply_error(result.error().message);
  if (output != "-") {
    const auto& data = result.value().output.data;
    std::ofstream(output, std::ios::binary)
        .write(reinterpret_cast<const char*>(data.data()),
               static_cast<std::streamsize>(data.size() * sizeof(float)));
  }
  std::printf("{\"ms\":%.4f}\n", ms);
}

// Chooses the kernels' instruction set when named; replies with the one in use and the
// ones this CPU runs.
void simd(std::istringstream& args) {
  std::string name;
  if (args >> name)
    if (auto error = attnlab::kernels::force_simd_arch(name)) return reply_error(error->message);
  std::string available;
  for (const auto& arch : attnlab::kernels::simd_arches())
    if (arch.available) available += (available.empty() ? "\"" : ",\"") + arch.name + "\"";
  std::printf("{\"simd\":\"%s\",\"available\":[%s]}\n", attnlab::kernels::simd_arch(),
              available.c_str());
}

}  // namespace

int main() {
  Inputs inputs;
  for (std::string line; std::getline(std::cin, line);) {
    std::istringstream args(line);
    std::string command;
    args >> command;
    std::size_t threads = 0;
    if (command == "peak" && args >> threads)
      std::printf("{\"peak_gflops\":%.3f}\n",
                  attnlab::bench::measure_fma_peak_gflops(threads, attnlab::kernels::simd_arch()));
    else if (command == "simd")
      simd(args);
    else if (command == "run")
      run(inputs, args);
    else
      reply_error("unknown command: " + line);
    std::fflush(stdout);
  }
}
