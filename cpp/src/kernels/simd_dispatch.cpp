// Picks the kernel table at run time: the best instruction set this CPU runs among those the
// build compiled simd_arch.cpp for, or the one ATTNLAB_SIMD_ARCH or force_simd_arch names.
#include <array>
#include <atomic>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <xsimd/xsimd.hpp>

#include "attnlab/kernels.hpp"
#include "kernels/simd_kernels.hpp"

namespace attnlab {
namespace {

// The instruction sets simd_arch.cpp is compiled for, best first; cpp/CMakeLists.txt holds
// each one's flags. On x86-64, AVX-512 down to SSE2, which every x86-64 CPU has; elsewhere
// (wasm) the one set the target's flags enable. AVX-512 is xsimd's avx512bw (F, CD, DQ and
// BW): xsimd 8.1's float kernels for avx512f use DQ instructions, and its avx512cd and
// avx512dq need BW to compile.
#ifdef ATTNLAB_SIMD_DISPATCH
using Compiled =
    xsimd::arch_list<xsimd::avx512bw, xsimd::fma3<xsimd::avx2>, xsimd::sse4_2, xsimd::sse2>;
#else
using Compiled = xsimd::arch_list<xsimd::default_arch>;
#endif

struct Entry {
  simd::Kernels kernels;
  bool available;  // this CPU runs it
};

template <class... Arch>
std::array<Entry, sizeof...(Arch)> entries_of(xsimd::arch_list<Arch...>) {
  // xsimd::dispatch's rule: the CPU runs every set up to the best version it reports. A set
  // the whole build already assumes (wasm's) needs no check.
  const unsigned best = xsimd::available_architectures().best;
  return {Entry{simd::kernels_for(Arch{}), Arch::supported() || Arch::version() <= best}...};
}

const auto& entries() {
  static const auto list = entries_of(Compiled{});
  return list;
}

std::string names(bool available_only) {
  std::string list;
  for (const Entry& e : entries())
    if (e.available || !available_only)
      list += (list.empty() ? "" : ", ") + std::string(e.kernels.name);
  return list;
}

Result<const simd::Kernels*> find(std::string_view name) {
  for (const Entry& e : entries()) {
    if (name != e.kernels.name) continue;
    if (!e.available)
      return Error{ErrorCode::invalid_argument,
                   "this CPU lacks " + std::string(name) + ": it runs " + names(true)};
    return &e.kernels;
  }
  return Error{ErrorCode::invalid_argument,
               "no SIMD kernels for '" + std::string(name) + "': this build has " + names(false)};
}

// xsimd::dispatch's choice for this CPU, unless the environment names another set.
const simd::Kernels* initial() {
  const char* best = xsimd::dispatch<Compiled>([](auto arch) { return arch.name(); })();
  const char* wanted = std::getenv("ATTNLAB_SIMD_ARCH");
  const Result<const simd::Kernels*> chosen = find(wanted && *wanted ? wanted : best);
  if (chosen) return chosen.value();
  // No call can return this error: say it once and keep the best set.
  std::fprintf(stderr, "attnlab: ignoring ATTNLAB_SIMD_ARCH: %s\n", chosen.error().message.c_str());
  return find(best).value();
}

std::atomic<const simd::Kernels*>& current() {
  static std::atomic<const simd::Kernels*> kernels{initial()};
  return kernels;
}

}  // namespace

const simd::Kernels& simd::active() { return *current().load(); }

const char* kernels::simd_arch() { return simd::active().name; }

std::vector<kernels::SimdArch> kernels::simd_arches() {
  std::vector<SimdArch> list;
  for (const Entry& e : entries()) list.push_back({e.kernels.name, e.available});
  return list;
}

std::optional<Error> kernels::force_simd_arch(std::string_view name) {
  const Result<const simd::Kernels*> chosen = find(name);
  if (!chosen) return chosen.error();
  current().store(chosen.value());
  return std::nullopt;
}

}  // namespace attnlab
