#include "base/caches.hpp"

#if defined(__linux__) && !defined(__EMSCRIPTEN__)
#include <fstream>
#include <string>

namespace attnlab {
namespace {

// The size of cpu0's data or unified cache of the given level, or of its highest level when
// `level` is 0, from /sys/devices/system/cpu/cpu0/cache/index*/ (its `level`, `type` and its
// `size` as "32768K"); 0 where none is listed. Not glibc's sysconf(_SC_LEVEL3_CACHE_SIZE): on
// a 2-vCPU slice of an EPYC it reported the whole package's 384 MiB, where /sys gives the
// 32 MiB this core shares.
std::size_t cache_bytes(int wanted) {
  int highest = 0;
  std::size_t bytes = 0;
  for (int index = 0; index < 16; ++index) {
    const std::string dir = "/sys/devices/system/cpu/cpu0/cache/index" + std::to_string(index);
    std::ifstream level_file(dir + "/level"), size_file(dir + "/size"), type_file(dir + "/type");
    int level = 0;
    std::size_t size = 0;
    std::string unit, type;
    if (!(level_file >> level) || !(size_file >> size)) break;
    size_file >> unit;  // "K" or "M" (read apart: `size` stops at the first letter)
    type_file >> type;  // "Data", "Instruction" or "Unified"
    const std::size_t scale = unit == "M" ? std::size_t{1} << 20 : unit == "K" ? 1024 : 1;
    if (type == "Instruction") continue;
    if (wanted == 0 ? level > highest : level == wanted) {
      highest = level;
      bytes = size * scale;
    }
  }
  return bytes;
}

std::size_t read_once(int level, std::size_t otherwise) {
  const std::size_t read = cache_bytes(level);
  return read > 0 ? read : otherwise;
}

}  // namespace

std::size_t shared_cache_bytes() {
  static const std::size_t bytes = read_once(0, measured_shared_cache_bytes);
  return bytes;
}

std::size_t core_cache_bytes() {
  static const std::size_t bytes = read_once(2, measured_core_cache_bytes);
  return bytes;
}

}  // namespace attnlab
#endif
