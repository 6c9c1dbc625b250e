// The requests of the cheaper attentions (linearAttention(), retention(), their long-sequence
// kernels, lowRankAttention(), sparsePattern()), declared as requests.hpp declares the rest: a
// row a field. requests.hpp places them in its entries; trace() reads some of the rows too.
#pragma once

#include "attnlab/attnlab.hpp"
#include "request_reader.hpp"

namespace attnlab::bindings {

#define F ATTNLAB_FIELD

// linearAttention()'s φ and the two ways linearAttention() and retention() compute.
inline constexpr const char* feature_maps[] = {"elu", "relu", "favor"};
inline constexpr const char* attention_forms[] = {"parallel", "recurrent"};
// lowRankAttention()'s two ways (LowRankMethod).
inline constexpr const char* low_rank_methods[] = {"svd", "linformer"};

inline constexpr Field linear_fields[] = {
    F(LinearAttentionOptions, feature_map, "featureMap",
      "φ: 'elu' (elu(x) + 1, always positive), 'relu' (max(x, 0)), or 'favor' (Performer's "
      "positive orthogonal random features, FAVOR+: φ(q)·φ(k) estimates exp(q·k·scale)).")
        .one_of(feature_maps),
    F(LinearAttentionOptions, causal, "causal", "Query i sees keys 0 … i only (n_q = n_k)."),
    F(LinearAttentionOptions, form, "form",
      "'parallel': the n × n kernel matrix, each row over its sum; 'recurrent': the state "
      "Σφ(k)vᵀ and the normaliser Σφ(k), one key at a time. The same output.")
        .one_of(attention_forms),
    F(LinearAttentionOptions, scale, "scale",
      "Multiplies each query before φ: φ(scale·q); default 1, as the paper applies φ to q as it "
      "is. 'favor': multiplies q·k (φ(√scale·q)·φ(√scale·k)); default 1/√d_k, as softmax's."),
    F(LinearAttentionOptions, features, "features",
      "'favor' only: m, the random features (default 256); m·(d_k·(4·d_k + n_q + n_k) + "
      "n_q·n_k) at most limits().favorMultiplyAdds.")
        .range("1", "favorFeatures"),
    F(LinearAttentionOptions, seed, "seed",
      "'favor' only: the seed of the random features (default 1); the same seed gives the same "
      "features everywhere."),
};
inline constexpr Group linear_group =
    group<LinearAttentionOptions>("LinearAttentionOptions", linear_fields);

inline constexpr Field retention_fields[] = {
    F(RetentionOptions, decay, "decay",
      "γ in (0, 1]: how much of the state each token keeps (key j counts γ^(i−j) at query i).")
        .need(),
    F(RetentionOptions, form, "form",
      "'parallel': (Q·Kᵀ ⊙ D)·V; 'recurrent': S_t = γ·S_{t−1} + k_tᵀv_t, o_t = q_t·S_t. The same "
      "output.")
        .one_of(attention_forms),
};
inline constexpr Group retention_group =
    group<RetentionOptions>("RetentionOptions", retention_fields);

// The long linear kernels (long_linear.hpp): the flash kernel's layout, then each one's rule.
inline constexpr Field long_layout_fields[] = {
    F(LongLayout, heads, "heads",
      "Query heads: equal column slices of Q (the core checks that they divide its width)."),
    F(LongLayout, kv_heads, "kvHeads",
      "K/V heads: 0 = heads, else a divisor of heads; query head h reads K/V head "
      "⌊h / (heads / kvHeads)⌋."),
    F(LongLayout, batch, "batch", "Sequences: Q, K and V rows split into this many."),
    F(LongLayout, threads, "threads",
      "Threads to run on (one sequence and head per task); 0: lab.threads."),
    F(LongLayout, chunk, "chunk",
      "Tokens per chunk of the causal pass (0: 64); changes the rounding only.")
        .range("0", "longChunk"),
};
inline constexpr Group long_layout_group = group<LongLayout>("LongLayout", long_layout_fields);
inline constexpr Field long_linear_fields[] = {
    F(LongLinearOptions, feature_map, "featureMap",
      "φ: 'elu' (elu(x) + 1) or 'relu' (max(x, 0)); 'favor' is linearAttention's only.")
        .one_of(feature_maps),
    F(LongLinearOptions, causal, "causal",
      "Query i sees keys 0 … i (n_q = n_k): by chunks, the state carried across."),
    F(LongLinearOptions, scale, "scale", "Multiplies each query before φ: φ(scale·q); default 1."),
};
inline constexpr Group long_linear_group =
    group<LongLinearOptions>("LongLinearOptions", long_linear_fields);
inline constexpr Field long_retention_fields[] = {
    F(LongRetentionOptions, decay, "decay",
      "γ in (0, 1]: how much of the state each token keeps (causal, n_q = n_k).")
        .need(),
};
inline constexpr Group long_retention_group =
    group<LongRetentionOptions>("LongRetentionOptions", long_retention_fields);

inline constexpr Field low_rank_fields[] = {
    F(LowRankOptions, method, "method",
      "'svd': A's best rank-k approximation A_k from its singular values; 'linformer': K and V "
      "projected along the sequence to k rows by E and F (Wang et al. 2020).")
        .one_of(low_rank_methods),
    F(LowRankOptions, rank, "rank",
      "k: the singular values kept (svd: 1 … min(n_q, n_k)) or the projected keys (linformer: "
      "1 … n_k).")
        .need(),
    F(LowRankOptions, causal, "causal",
      "svd: query i sees keys 0 … i, as in attention(); refused with linformer, whose "
      "projections mix every key."),
    F(LowRankOptions, scale, "scale", "Multiplies the scores; default 1/√d_k."),
    F(LowRankOptions, seed, "seed",
      "linformer: E and F drawn from N(0, 1/k); the same seed gives the same E and F everywhere."),
    F(LowRankOptions, e, "E", "linformer: your own projection of the keys, (rank, n_k); with F."),
    F(LowRankOptions, f, "F", "linformer: your own projection of the values, (rank, n_k); with E."),
};
inline constexpr Group low_rank_group = group<LowRankOptions>("LowRankOptions", low_rank_fields);

inline constexpr Field sparse_fields[] = {
    F(SparsePatternOptions, queries, "queries", "n_q: the pattern's rows.")
        .need()
        .range("1", "sparseTokens"),
    F(SparsePatternOptions, keys, "keys", "n_k: the pattern's columns; default queries.")
        .range("1", "sparseTokens"),
    F(SparsePatternOptions, window, "window",
      "Key j for query i when |i − j| < window (counted in blocks with blockSize); 0 = off."),
    F(SparsePatternOptions, global_tokens, "globalTokens",
      "Positions that attend to every key and that every query attends to."),
    F(SparsePatternOptions, random, "random",
      "Random keys per query (key blocks per query block with blockSize), drawn among those no "
      "other part allows."),
    F(SparsePatternOptions, block_size, "blockSize",
      "BigBird's blocks: window and random count blocks of this many tokens; 0 = single tokens."),
    F(SparsePatternOptions, stride, "stride",
      "The Sparse Transformer's strided pattern: key j when i − j is a multiple of stride; 0 = "
      "off."),
    F(SparsePatternOptions, seed, "seed", "The same seed gives the same random keys everywhere."),
    F(SparsePatternOptions, head_width, "headWidth",
      "d, for the FLOP counts (d_k = d_v = d); default 64.")
        .range("1", "attentionFeatures"),
};
inline constexpr Group sparse_group =
    group<SparsePatternOptions>("SparsePatternRequest", sparse_fields);

}  // namespace attnlab::bindings
