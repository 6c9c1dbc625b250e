// Documented size limits. Inputs beyond them get ErrorCode::too_large.
//
// Each bounds both the memory a call holds (far below the wasm heap's 2 GiB, see
// cpp/bindings/CMakeLists.txt) and its time: every call within them returns in about a second
// in the wasm build on one thread (tests/js/limits.test.js runs each entry at its limits).
// Where a call's cost grows with a product of sizes, the product has its own limit.
#pragma once

#include <cstddef>
#include <cstdint>
#include <limits>

namespace attnlab::limits {

// The step-by-step trace keeps every n x n intermediate of every head for display.
inline constexpr std::size_t trace_tokens = 512;    // rows of X, Q, K, V
inline constexpr std::size_t trace_features = 512;  // columns of any input matrix
inline constexpr int max_heads = 64;
inline constexpr std::size_t trace_scores = std::size_t{1} << 18;  // n_q · n_k · heads
// With d_output the trace adds ten products as large as its forward ones, and
// check_gradient() runs the network twice more in float64: at 512 they took 1.5–2.5 s and
// 5.6–7.6 s in wasm. Half the tokens and features cut their work eightfold.
inline constexpr std::size_t backward_tokens = 256;    // rows of X, Q, K, V with d_output
inline constexpr std::size_t backward_features = 256;  // columns of any input with d_output

// Plain attention() materialises its (n_q, n_k) intermediates; at least the trace's sizes, as
// the trace runs attention() head by head.
inline constexpr std::size_t attention_tokens = 512;
inline constexpr std::size_t attention_features = 512;
// lowRankAttention's SVD (low_rank.hpp): one-sided Jacobi rotates every pair of A's rows
// (or columns) in each sweep, about 2.5·n³ float64 operations, and takes 10 to 30 sweeps.
inline constexpr std::size_t low_rank_tokens = 256;  // rows of Q and of K

// The long-sequence kernels. The flash kernel keeps O(n·d) memory: Q, K, V and the output,
// plus small tiles; each input at most flash_values floats (64 MiB).
inline constexpr std::size_t flash_tokens = std::size_t{1} << 20;
inline constexpr std::size_t flash_features = 8192;
inline constexpr std::size_t flash_values = std::size_t{1} << 24;  // rows · cols of Q, K or V

// Their work: scores n_q · n_k · heads (each with its exponential) and multiply-adds
// n_q · n_k · (columns of Q + columns of V), causal or not. Bounded only in the wasm build,
// where a call runs on a page's thread; the native library runs these kernels on every core
// (the benchmarks time naive attention at 16,384 tokens). The naive kernel also holds three
// (n_q, n_k) matrices per head at once, and is slower per score.
inline constexpr bool bounded_work =
#if defined(__EMSCRIPTEN__)
    true;
#else
    false;
#endif
inline constexpr std::uint64_t unbounded = std::numeric_limits<std::uint64_t>::max();
inline constexpr std::uint64_t flash_scores = bounded_work ? std::uint64_t{1} << 24 : unbounded;
inline constexpr std::uint64_t flash_multiply_adds =
    bounded_work ? std::uint64_t{1} << 32 : unbounded;
inline constexpr std::uint64_t naive_scores = bounded_work ? std::uint64_t{1} << 23 : unbounded;
inline constexpr std::uint64_t naive_multiply_adds =
    bounded_work ? std::uint64_t{1} << 30 : unbounded;
// The long linear-attention and retention kernels (long_linear.hpp): the flash kernel's input
// limits, chunks of at most long_chunk tokens (each worker holds a chunk × chunk block), and
// in wasm at most this many multiply-adds, batch·heads·n·(chunk·(d + d_v) + 2·d·d_v).
inline constexpr std::size_t long_chunk = 1024;
inline constexpr std::uint64_t long_linear_multiply_adds =
    bounded_work ? std::uint64_t{1} << 32 : unbounded;

// sampled_weights (flash.hpp): each row's scores span every key, so rows are few.
inline constexpr std::size_t sampled_rows = 32;
inline constexpr std::size_t sampled_cols = 4096;

// Teaching views (softmax_breakdown.hpp, scaling_study.hpp): small on purpose, so every
// number can be shown and the study runs in a fraction of a second in the browser.
inline constexpr std::size_t softmax_row = 4096;          // entries of one breakdown row
inline constexpr std::size_t scaling_dims = 16;           // d_k values in one study
inline constexpr std::size_t scaling_max_dk = 512;        // largest d_k
inline constexpr std::size_t scaling_min_keys = 2;        // a softmax over one key is always 1
inline constexpr std::size_t scaling_max_keys = 64;       // keys per query
inline constexpr std::size_t scaling_max_samples = 2000;  // queries per d_k
// Normal draws of one study, samples · (keys + 1) · (the sum of dims): its cost.
inline constexpr std::size_t scaling_draws = std::size_t{1} << 24;

// linear_attention() with FAVOR+ (favor.hpp): m random features per call, and its work,
// m·(d_k·(4·d_k + n_q + n_k) + n_q·n_k) multiply-adds (orthogonalising W in scalar float64,
// counted 4 times; the features; the kernel), which keeps a call near a second in wasm: m =
// 1,024 at n = 512, d_k = 64 took 0.83 s through the package (2^30 allowed 2.3 s, and 20 s at
// d_k = 512 before W's term was weighted).
inline constexpr std::size_t favor_features = 4096;
inline constexpr std::uint64_t favor_multiply_adds = std::uint64_t{1} << 29;

// sparse_pattern() (sparse_pattern.hpp): its mask, n_q × n_k cells (1,024 × 1,024: 2,048 ×
// 2,048 took 2.2 s through the package, most of it the boolean[][]), each side at most
// sparse_tokens, so a long sequence's pattern can be drawn for a few queries.
inline constexpr std::size_t sparse_tokens = 65536;
inline constexpr std::size_t sparse_cells = std::size_t{1} << 20;

// sinusoidal_encoding (positional.hpp): positions and width, each 1 … this.
inline constexpr std::size_t sinusoidal_max = 2048;

// normal_matrix (random.hpp): rows·cols values, 64 MiB of float32 (65,536 x 256).
inline constexpr std::size_t normal_values = std::size_t{1} << 24;

// The flash kernel's head width d (tiling.hpp): 1 … this, so Bc ≥ 2 keeps tiles useful.
inline constexpr std::size_t max_head_width = 512;

// The FlashAttention tile walk (flash_walk.hpp): every tile visit is recorded for display.
inline constexpr std::size_t walk_tokens = 64;    // rows of Q, K, V
inline constexpr std::size_t walk_features = 64;  // columns of Q, K, V
inline constexpr std::size_t walk_tile = 16;      // rows of a query block or a key tile

// Sliding-window attention (AttentionOptions::global_tokens): global tokens are a handful
// (the [CLS] token, a question's words), and each masked cell looks them up.
inline constexpr std::size_t global_tokens = 64;

// decode() (variants.hpp) keeps each position's cached K and V rows for display: their count
// grows with the square of the tokens.
inline constexpr std::size_t decode_tokens = 64;
// decode() from a past cache: its rows plus the new tokens, each step keeping all of them.
inline constexpr std::size_t decode_keys = 128;

// kv_cache_bytes (variants.hpp): real configurations are far inside these, and their product
// (2 · layers · KV heads · head width · bytes) fits a 32-bit size_t.
inline constexpr std::size_t cache_layers = 256;
inline constexpr std::size_t cache_kv_heads = 256;
inline constexpr std::size_t cache_head_dim = 1024;
inline constexpr std::size_t cache_value_bytes = 8;  // fp8 … fp64
// The trainer (training.hpp): a tiny model, so a step(count) call within these returns in
// about a second in wasm (scalar loops, see training.cpp).
inline constexpr int train_layers = 2;
inline constexpr int train_heads = 4;
inline constexpr std::size_t train_d_model = 32;
inline constexpr std::size_t train_context = 16;  // tokens per sequence (at least 4)
inline constexpr std::size_t train_vocab = 32;
inline constexpr std::size_t train_batch = 32;  // sequences per step
inline constexpr std::size_t train_steps = 50;  // steps per step(count) call

// The trace runs attention() on each head and encodes X's positions with sinusoidal_encoding.
static_assert(attention_tokens >= trace_tokens && attention_features >= trace_features);
static_assert(sinusoidal_max >= trace_tokens && sinusoidal_max >= trace_features);
static_assert(decode_tokens <= trace_tokens);  // decode() checks its input as the trace does
static_assert(2 * cache_layers * cache_kv_heads * cache_head_dim * cache_value_bytes <=
              std::uint64_t{1} << 32);

}  // namespace attnlab::limits
