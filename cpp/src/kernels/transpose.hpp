// An in-register transpose of a square tile of float batches (internal; only simd_arch.cpp's
// kernels include this): 16 × 16 with AVX-512, 8 × 8 with AVX and AVX2, in 4 · lanes
// shuffles, for the flash kernel's two transposes (Q into Qᵀ, Oᵀ back into O); copied one float
// at a time, they cost calls at n = 256 4-8% more time. Other instruction sets (SSE, wasm) have
// none: their callers keep the scalar copy.
#pragma once

#include <cstddef>
#include <xsimd/xsimd.hpp>
#if defined(__AVX__)
#include <immintrin.h>
#endif

namespace attnlab::simd {

// Whether this translation unit's instruction set transposes a tile of Batch.
template <class Batch>
constexpr bool tile_transpose_available() {
#if defined(__AVX512F__)
  if (Batch::size == 16) return true;
#endif
#if defined(__AVX__)
  if (Batch::size == 8) return true;
#endif
  return false;
}

// x[i] holds row i of a Batch::size-square tile; afterwards x[j] holds its column j. Each stage
// pairs rows: floats (unpack), then pairs of floats (unpack as doubles), then 128-bit lanes.
template <class Batch>
[[gnu::always_inline]] inline void transpose_tile([[maybe_unused]] Batch* x) {
  static_assert(tile_transpose_available<Batch>());
#if defined(__AVX512F__)
  if constexpr (Batch::size == 16) {
    __m512 t[16], r[16];
    for (int i = 0; i < 16; i += 2) {
      t[i] = _mm512_unpacklo_ps(x[i], x[i + 1]);
      t[i + 1] = _mm512_unpackhi_ps(x[i], x[i + 1]);
    }
    // r[4g + k]: column k + 4·lane of rows 4g … 4g + 3, in each 128-bit lane.
    for (int g = 0; g < 16; g += 4) {
      const __m512d ab_lo = _mm512_castps_pd(t[g]), ab_hi = _mm512_castps_pd(t[g + 1]);
      const __m512d cd_lo = _mm512_castps_pd(t[g + 2]), cd_hi = _mm512_castps_pd(t[g + 3]);
      r[g] = _mm512_castpd_ps(_mm512_unpacklo_pd(ab_lo, cd_lo));
      r[g + 1] = _mm512_castpd_ps(_mm512_unpackhi_pd(ab_lo, cd_lo));
      r[g + 2] = _mm512_castpd_ps(_mm512_unpacklo_pd(ab_hi, cd_hi));
      r[g + 3] = _mm512_castpd_ps(_mm512_unpackhi_pd(ab_hi, cd_hi));
    }
    // Column k + 4·lane gathers lane `lane` of r[k], r[4 + k], r[8 + k] and r[12 + k].
    for (int k = 0; k < 4; ++k) {
      const __m512 u0 = _mm512_shuffle_f32x4(r[k], r[4 + k], 0x44);
      const __m512 u1 = _mm512_shuffle_f32x4(r[k], r[4 + k], 0xEE);
      const __m512 u2 = _mm512_shuffle_f32x4(r[8 + k], r[12 + k], 0x44);
      const __m512 u3 = _mm512_shuffle_f32x4(r[8 + k], r[12 + k], 0xEE);
      x[k] = Batch(_mm512_shuffle_f32x4(u0, u2, 0x88));
      x[k + 4] = Batch(_mm512_shuffle_f32x4(u0, u2, 0xDD));
      x[k + 8] = Batch(_mm512_shuffle_f32x4(u1, u3, 0x88));
      x[k + 12] = Batch(_mm512_shuffle_f32x4(u1, u3, 0xDD));
    }
    return;
  }
#endif
#if defined(__AVX__)
  if constexpr (Batch::size == 8) {
    __m256 t[8], r[8];
    for (int i = 0; i < 8; i += 2) {
      t[i] = _mm256_unpacklo_ps(x[i], x[i + 1]);
      t[i + 1] = _mm256_unpackhi_ps(x[i], x[i + 1]);
    }
    for (int g = 0; g < 8; g += 4) {
      const __m256d ab_lo = _mm256_castps_pd(t[g]), ab_hi = _mm256_castps_pd(t[g + 1]);
      const __m256d cd_lo = _mm256_castps_pd(t[g + 2]), cd_hi = _mm256_castps_pd(t[g + 3]);
      r[g] = _mm256_castpd_ps(_mm256_unpacklo_pd(ab_lo, cd_lo));
      r[g + 1] = _mm256_castpd_ps(_mm256_unpackhi_pd(ab_lo, cd_lo));
      r[g + 2] = _mm256_castpd_ps(_mm256_unpacklo_pd(ab_hi, cd_hi));
      r[g + 3] = _mm256_castpd_ps(_mm256_unpackhi_pd(ab_hi, cd_hi));
    }
    for (int k = 0; k < 4; ++k) {
      x[k] = Batch(_mm256_permute2f128_ps(r[k], r[4 + k], 0x20));
      x[k + 4] = Batch(_mm256_permute2f128_ps(r[k], r[4 + k], 0x31));
    }
  }
#endif
}

}  // namespace attnlab::simd
