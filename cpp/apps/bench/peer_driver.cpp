// attnlab-peer: attnlab's native flash kernel as a child process of scripts/bench-peers.mjs,
// so it runs on exactly the inputs the other kernels see, in the same rounds. One command a
// line on stdin, one JSON line back on stdout:
//
//   simd [NAME]                                   → {"simd":…,"available":[…]}
//   peak THREADS                                  → {"peak_gflops":…}   (peak.cpp)
//   run INPUT N D HEADS CAUSAL THREADS OUTPUT [CALLS] → {"ms":…,"times":[…]}
//   profile (run's arguments)                     → {"ms":…,"phases":{…}}
//   bandwidth THREADS MIB                         → {"gb_per_s":…}
//
// `simd NAME` runs the kernels with that instruction set from then on (kernels::force_simd_arch,
// e.g. "fma3+avx2" on an AVX-512 CPU); `peak` measures the FMA peak of the set in use.
//
// INPUT holds Q, K, V one after the other, each (N, HEADS·D) float32 row-major; it is read
// once and kept while the next command names the same file. OUTPUT ("-" for none) receives
// the (N, HEADS·D) float32 output. Only the flash_attention calls are timed: CALLS of them
// back to back (1 when absent), "ms" their mean, "times" each one's. `profile` times them the same
// way with the kernel's phase timers on (attnlab::start_flash_profile), and adds each phase's
// seconds per call, summed over the workers (npm run bench:profile). `bandwidth` measures how fast
// THREADS threads read a buffer of MIB MiB each, GB/s in all (the roofline's memory roof).
#include <chrono>
#include <cstdio>
#include <fstream>
#include <iostream>
#include <sstream>
#include <string>
#include <thread>
#include <vector>
#include <xsimd/xsimd.hpp>

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

void run(Inputs& in, std::istringstream& args, bool profiled) {
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
  if (profiled) attnlab::start_flash_profile();
  std::vector<double> times;  // each call's milliseconds
  const auto timed_call = [&] {
    const auto start = std::chrono::steady_clock::now();
    auto r = attnlab::flash_attention(in.q, in.k, in.v, options);
    const auto end = std::chrono::steady_clock::now();
    times.push_back(std::chrono::duration<double, std::milli>(end - start).count());
    return r;
  };
  auto result = timed_call();
  while (result && times.size() < static_cast<std::size_t>(calls)) result = timed_call();
  double ms = 0;
  for (const double t : times) ms += t / static_cast<double>(times.size());
  const attnlab::FlashProfile phases =
      profiled ? attnlab::stop_flash_profile() : attnlab::FlashProfile{};
  if (!result) return reply_error(result.error().message);
  if (output != "-") {
    const auto& data = result.value().output.data;
    std::ofstream(output, std::ios::binary)
        .write(reinterpret_cast<const char*>(data.data()),
               static_cast<std::streamsize>(data.size() * sizeof(float)));
  }
  if (!profiled) {
    std::string list;
    for (const double t : times) list += (list.empty() ? "" : ",") + std::to_string(t);
    return (void)std::printf("{\"ms\":%.4f,\"times\":[%s]}\n", ms, list.c_str());
  }
  std::printf(
      "{\"ms\":%.4f,\"phases\":{\"transpose_in\":%.4g,\"scores\":%.4g,\"softmax\":%.4g,"
      "\"value\":%.4g,\"transpose_out\":%.4g}}\n",
      ms, phases.transpose_in / calls, phases.scores / calls, phases.softmax / calls,
      phases.value / calls, phases.transpose_out / calls);
}

// The sum of x[0, n) for n a multiple of four batches, four batches at a time: a read as fast
// as the memory gives it (-march=native's widest batch).
float sum_floats(const float* x, std::size_t n) {
  using Batch = xsimd::batch<float>;
  constexpr std::size_t lanes = Batch::size;
  Batch a(0.0f), b(0.0f), c(0.0f), d(0.0f);
  for (std::size_t i = 0; i + 4 * lanes <= n; i += 4 * lanes) {
    a += Batch::load_unaligned(x + i);
    b += Batch::load_unaligned(x + i + lanes);
    c += Batch::load_unaligned(x + i + 2 * lanes);
    d += Batch::load_unaligned(x + i + 3 * lanes);
  }
  return xsimd::hadd((a + b) + (c + d));
}

// GB/s of `threads` threads each summing its own buffer of `mib` MiB, five times over (the
// first pass faults the pages in and is not timed).
double read_bandwidth(std::size_t threads, std::size_t mib) {
  const std::size_t floats = mib << 18;
  std::vector<std::vector<float>> buffers(threads, std::vector<float>(floats, 1.0f));
  std::vector<double> sums(threads);
  const auto pass = [&](int times) {
    std::vector<std::thread> pool;
    for (std::size_t t = 0; t < threads; ++t)
      pool.emplace_back([&, t] {
        for (int i = 0; i < times; ++i) sums[t] += sum_floats(buffers[t].data(), floats);
      });
    for (auto& t : pool) t.join();
  };
  pass(1);
  const auto start = std::chrono::steady_clock::now();
  pass(5);
  const double seconds =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  volatile double keep = sums[0];
  (void)keep;
  return 5.0 * static_cast<double>(threads * floats * sizeof(float)) / seconds / 1e9;
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
    else if (command == "run" || command == "profile")
      run(inputs, args, command == "profile");
    else if (std::size_t mib = 0; command == "bandwidth" && args >> threads >> mib && threads > 0)
      std::printf("{\"gb_per_s\":%.3f}\n", read_bandwidth(threads, mib));
    else
      reply_error("unknown command: " + line);
    std::fflush(stdout);
  }
}
