// attnlab-bench: times attention kernels on random N(0,1) inputs.
//
//   attnlab-bench --n 1024,4096 --d 64 --heads 8 --causal 0,1 --kernel naive,flash,blas
//                 [--window 0,256,1024] [--threads 2] [--repeat 3] [--json]
//
// `flash` is flash_attention (`tiled`, its older name, is accepted too), `naive`
// naive_attention, `blas` OpenBLAS matrix products around the same softmax. --window W
// (flash and naive only; 0 = none) lets query i see keys i − W … i + W (or … i when causal):
// flash's time then grows as n·W, not n². `linear` and `retention` are the long linear-attention
// (elu) and retention (γ = 0.99) kernels (long_linear.hpp): their GFLOP/s count their own
// multiply-adds, and they have no error column (not softmax); retention runs causal only.
//
// Every configuration runs in a child process, so its peak RSS is its own. Progress goes
// to stderr; results to stdout, as a table or (--json) one JSON object per line.
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <functional>
#include <random>
#include <sstream>
#include <string>
#include <thread>
#include <vector>

#include "attnlab/flash.hpp"
#include "attnlab/kernels.hpp"
#include "attnlab/long_linear.hpp"
#include "blas_attention.hpp"
#include "peak.hpp"
#include "sampled_error.hpp"

namespace {

using attnlab::Matrix;

struct Config {
  std::vector<std::size_t> n{1024};
  std::size_t d = 64;
  int heads = 8;
  std::vector<int> causal{0};
  std::vector<std::size_t> windows{0};
  std::vector<std::string> kernels{"flash"};
  std::size_t threads = 0;
  int repeat = 3;
  bool json = false;
};

struct Run {
  std::string kernel;
  std::size_t n;
  bool causal;
  std::size_t window;  // keys to each side; 0 = none
};

std::vector<std::string> split(const std::string& list) {
  std::vector<std::string> parts;
  std::stringstream in(list);
  for (std::string part; std::getline(in, part, ',');) parts.push_back(part);
  return parts;
}

[[noreturn]] void usage(const char* problem) {
  std::fprintf(
      stderr,
      "attnlab-bench: %s\nusage: attnlab-bench --n N[,N…] --d D --heads H --causal 0|1[,…] "
      "--kernel naive|flash|blas|linear|retention[,…] [--window W[,…]] [--threads T] [--repeat R] "
      "[--json]\n",
      problem);
  std::exit(2);
}

Config parse(int argc, char** argv) {
  Config c;
  for (int i = 1; i < argc; ++i) {
    const std::string flag = argv[i];
    if (flag == "--json") {
      c.json = true;
      continue;
    }
    if (i + 1 >= argc) usage(("missing value after " + flag).c_str());
    const std::string value = argv[++i];
    if (flag == "--n") {
      c.n.clear();
      for (const auto& s : split(value)) c.n.push_back(std::stoul(s));
    } else if (flag == "--d") {
      c.d = std::stoul(value);
    } else if (flag == "--heads") {
      c.heads = std::stoi(value);
    } else if (flag == "--causal") {
      c.causal.clear();
      for (const auto& s : split(value)) c.causal.push_back(std::stoi(s));
    } else if (flag == "--kernel") {
      c.kernels = split(value);
      for (auto& k : c.kernels) {
        if (k == "tiled") k = "flash";  // the kernel's older name, accepted on the command line
        if (k != "naive" && k != "flash" && k != "blas" && k != "linear" && k != "retention")
          usage(("unknown kernel " + k).c_str());
      }
    } else if (flag == "--window") {
      c.windows.clear();
      for (const auto& s : split(value)) c.windows.push_back(std::stoul(s));
    } else if (flag == "--threads") {
      c.threads = std::stoul(value);
    } else if (flag == "--repeat") {
      c.repeat = std::max(1, std::stoi(value));
    } else {
      usage(("unknown option " + flag).c_str());
    }
  }
  if (c.threads == 0) c.threads = std::max(1u, std::thread::hardware_concurrency());
  return c;
}

Matrix random_matrix(std::size_t rows, std::size_t cols, unsigned seed) {
  std::mt19937 rng(seed);
  std::normal_distribution<float> normal(0.0f, 1.0f);
  Matrix m(rows, cols);
  for (float& x : m.data) x = normal(rng);
  return m;
}

std::function<Matrix()> kernel(const Config& c, const Run& r, const Matrix& q, const Matrix& k,
                               const Matrix& v) {
  attnlab::LongAttentionOptions options;
  options.causal = r.causal;
  options.window = r.window > 0 ? attnlab::Window(r.window, r.window) : attnlab::Window();
  options.heads = c.heads;
  options.threads = c.threads;
  if (r.kernel == "blas")
    return [&, options] {
      return attnlab::bench::blas_attention(q, k, v, c.heads, r.causal, c.threads);
    };
  if (r.kernel == "linear" || r.kernel == "retention")
    return [&] {
      attnlab::LongLinearOptions linear;
      attnlab::LongRetentionOptions retention;
      for (attnlab::LongLayout* o : {static_cast<attnlab::LongLayout*>(&linear),
                                     static_cast<attnlab::LongLayout*>(&retention)})
        o->heads = c.heads, o->threads = c.threads;
      linear.causal = r.causal;
      retention.decay = 0.99f;
      auto result = r.kernel == "linear" ? attnlab::long_linear_attention(q, k, v, linear)
                                         : attnlab::long_retention(q, k, v, retention);
      if (!result) {
        std::fprintf(stderr, "attnlab-bench: %s\n", result.error().message.c_str());
        std::exit(1);
      }
      return std::move(result.value().output);
    };
  const auto run = r.kernel == "flash" ? attnlab::flash_attention : attnlab::naive_attention;
  return [&, options, run] {
    auto result = run(q, k, v, options);
    if (!result) {
      std::fprintf(stderr, "attnlab-bench: %s\n", result.error().message.c_str());
      std::exit(1);
    }
    return std::move(result.value().output);
  };
}

// Runs one configuration and prints its result line (in the child process). The FMA peak
// is measured right before, so a busy or throttled machine lowers both figures alike.
void measure(const Config& c, const Run& r) {
  const double peak_gflops =
      attnlab::bench::measure_fma_peak_gflops(c.threads, attnlab::kernels::simd_arch());
  const std::size_t width = c.d * static_cast<std::size_t>(c.heads);
  const Matrix q = random_matrix(r.n, width, 1), k = random_matrix(r.n, width, 2),
               v = random_matrix(r.n, width, 3);
  const auto attention = kernel(c, r, q, k, v);
  std::vector<double> ms;
  Matrix output;
  for (int i = 0; i < c.repeat; ++i) {
    const auto start = std::chrono::steady_clock::now();
    output = attention();
    ms.push_back(std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start)
                     .count());
  }
  std::sort(ms.begin(), ms.end());
  const double median = ms[ms.size() / 2];
  // 4·d per head and (query, key) pair it sees: a d-long FMA for Q·Kᵀ and one for P·V, two
  // flops each. Full: n² pairs; causal about half; a window about n·W (or twice, both sides).
  double pairs = 0;
  for (std::size_t i = 0; i < r.n; ++i) {
    const std::size_t first = r.window > 0 && i > r.window ? i - r.window : 0;
    const std::size_t last = r.causal       ? i
                             : r.window > 0 ? std::min(r.n - 1, i + r.window)
                                            : r.n - 1;
    pairs += double(last - first + 1);
  }
  const bool linear = r.kernel == "linear" || r.kernel == "retention";
  // The linear kernels per token and head: the state read and its update (d·d_v each), and
  // causal, the chunk's masked product (64 keys by d, then by d_v; long_linear.cpp).
  const double linear_mads = double(r.n) * c.heads * c.d * (2.0 * c.d + (r.causal ? 128.0 : 0.0));
  const double flops = linear ? 2.0 * linear_mads : 4.0 * pairs * double(c.d) * c.heads;
  const double gflops = flops / (median * 1e-3) / 1e9;
  const double error =
      linear ? -1.0
             : attnlab::bench::sampled_max_abs_error(q, k, v, c.heads, r.causal, r.window, output);
  rusage usage{};
  getrusage(RUSAGE_SELF, &usage);
  const double rss_mb = double(usage.ru_maxrss) / 1024.0;  // ru_maxrss is in KiB on Linux
  if (c.json)
    std::printf(
        "{\"kernel\":\"%s\",\"simd\":\"%s\",\"n\":%zu,\"d\":%zu,\"heads\":%d,\"causal\":%s,"
        "\"window\":%zu,\"threads\":%zu,"
        "\"ms_median\":%.3f,\"gflops\":%.2f,\"peak_gflops\":%.2f,\"pct_peak\":%.1f,"
        "\"max_abs_err\":%.3g,\"peak_rss_mb\":%.1f}\n",
        r.kernel.c_str(), attnlab::kernels::simd_arch(), r.n, c.d, c.heads,
        r.causal ? "true" : "false", r.window, c.threads, median, gflops, peak_gflops,
        100.0 * gflops / peak_gflops, error, rss_mb);
  else
    std::printf("%-6s %7zu %4zu %5d %6s %6zu %7zu %11.2f %8.2f %8.1f %6.1f%% %11.2e %9.1f\n",
                r.kernel.c_str(), r.n, c.d, c.heads, r.causal ? "yes" : "no", r.window, c.threads,
                median, gflops, peak_gflops, 100.0 * gflops / peak_gflops, error, rss_mb);
  std::fflush(stdout);
}

}  // namespace

int main(int argc, char** argv) {
  const Config c = parse(argc, argv);
  std::vector<Run> runs;
  for (const auto& kernel : c.kernels)
    for (int causal : c.causal)
      for (std::size_t window : c.windows)
        for (std::size_t n : c.n) {
          if (window > 0 && kernel != "flash" && kernel != "naive")
            usage(("the " + kernel + " kernel takes no window").c_str());
          if (kernel == "retention" && causal == 0) continue;  // retention is causal
          runs.push_back({kernel, n, causal != 0, window});
        }

  // The instruction set attnlab's kernels run with (ATTNLAB_SIMD_ARCH can choose another);
  // JSON rows carry it as "simd".
  if (!c.json) {
    std::printf("attnlab SIMD: %s\n", attnlab::kernels::simd_arch());
    std::printf("%-6s %7s %4s %5s %6s %6s %7s %11s %8s %8s %7s %11s %9s\n", "kernel", "n", "d",
                "heads", "causal", "window", "threads", "ms(median)", "GFLOP/s", "peak", "%peak",
                "max|err|", "RSS(MB)");
  }
  std::fflush(stdout);
  int failures = 0;
  for (std::size_t i = 0; i < runs.size(); ++i) {
    const Run& r = runs[i];
    std::fprintf(stderr, "[%zu/%zu] %s n=%zu causal=%d\n", i + 1, runs.size(), r.kernel.c_str(),
                 r.n, int(r.causal));
    const pid_t child = fork();
    if (child == 0) {
      measure(c, r);
      std::_Exit(0);
    }
    int status = 0;
    waitpid(child, &status, 0);
    if (!WIFEXITED(status) || WEXITSTATUS(status) != 0) {
      std::fprintf(stderr, "attnlab-bench: %s n=%zu failed\n", r.kernel.c_str(), r.n);
      ++failures;
    }
  }
  return failures == 0 ? 0 : 1;
}
