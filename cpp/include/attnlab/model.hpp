// A real little language model: a GPT-style decoder trained by the core on real text.
// Token embedding and learned positions; `layers` pre-norm blocks, each LayerNorm → causal
// multi-head attention (W_Q, W_K, W_V without bias, as in Llama) → W_O → residual, then
// LayerNorm → MLP (GELU) → residual; a final LayerNorm and the unembedding W_U.
// W_U is not tied to the embedding: a learner can read it as its own matrix (the logit lens),
// and the gradient check covers it as its own parameter kind; it costs d_model·vocab values.
#pragma once

#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "attnlab/error.hpp"
#include "attnlab/linear_attention.hpp"
#include "attnlab/low_rank.hpp"
#include "attnlab/matrix.hpp"
#include "attnlab/retention.hpp"
#include "attnlab/sparse_pattern.hpp"

namespace attnlab {

// The model's sizes, within what attention() takes (limits.hpp) and what trains on a laptop.
namespace limits {
inline constexpr int model_layers = 8;
inline constexpr int model_heads = 16;
inline constexpr std::size_t model_d_model = 512;
inline constexpr std::size_t model_context = 512;
inline constexpr std::size_t model_vocab = 65536;
}  // namespace limits

struct ModelConfig {
  std::size_t vocab = 512;           // token ids 0 … vocab − 1
  std::size_t context_length = 128;  // the most tokens one forward pass reads
  std::size_t d_model = 128;
  int layers = 3;
  int heads = 4;  // divides d_model: d_head = d_model / heads
  std::size_t d_mlp() const { return 4 * d_model; }
  std::size_t d_head() const { return d_model / static_cast<std::size_t>(heads); }
};

// Errors: invalid_argument or too_large naming the field and its range.
std::optional<Error> check_model_config(const ModelConfig& config);

// One named tensor of the flat parameter vector: (rows, cols) values row by row from offset.
struct ModelTensor {
  std::string name;  // "embedding", "layers.0.w_q", "final.gain" …
  std::size_t offset, rows, cols;
  bool decay;  // AdamW's weight decay applies (the matrices, not gains, biases or positions)
};

// Where each parameter starts in the flat vector, in this order: embedding E (vocab, d),
// positions P (context, d); per layer ln1 gain and bias (d), W_Q, W_K, W_V, W_O (d, d),
// ln2 gain and bias (d), W_fc (d, 4d), b_fc (4d), W_proj (4d, d), b_proj (d); the final norm's
// gain and bias (d); the unembedding W_U (d, vocab).
struct ModelLayout {
  struct Layer {
    std::size_t ln1_gain, ln1_bias, w_q, w_k, w_v, w_o, ln2_gain, ln2_bias, w_fc, b_fc, w_proj,
        b_proj;
  };
  std::size_t embedding = 0, positions = 0;
  std::vector<Layer> layers;
  std::size_t final_gain = 0, final_bias = 0, unembedding = 0, total = 0;
  std::vector<ModelTensor> tensors;  // every tensor, in the order above

  explicit ModelLayout(const ModelConfig& config);
};

struct Model {
  ModelConfig config;
  std::vector<float> parameters;  // ModelLayout(config).total values

  // Errors: the config's, shape-mismatch for a parameter count that does not fit it,
  // non-finite for NaN or Infinity among the parameters.
  static Result<Model> create(const ModelConfig& config, std::vector<float> parameters);
  // One tensor of the parameters as a matrix (its name in ModelLayout::tensors).
  Matrix tensor(std::size_t offset, std::size_t rows, std::size_t cols) const;
  // x: (n, rows) times the tensor at offset, (rows = x.cols, cols), read where it lies.
  Matrix times(const Matrix& x, std::size_t offset, std::size_t cols) const;
};

// One block on a text: what a learner opens. norm1 is the X the stepper takes for this
// block's attention (with the block's W_Q, W_K, W_V and W_O).
struct ModelBlockForward {
  Matrix input;                   // the residual stream entering the block: (n, d)
  Matrix norm1;                   // LayerNorm(input): (n, d)
  std::vector<Matrix> attention;  // each head's weights: (n, n)
  Matrix attention_output;        // the heads concatenated times W_O: (n, d)
  Matrix norm2;                   // LayerNorm(input + attention_output): (n, d)
  Matrix mlp_output;              // GELU(norm2·W_fc + b_fc)·W_proj + b_proj: (n, d)
  Matrix output;                  // input + attention_output + mlp_output: (n, d)
};

struct ModelForward {
  std::vector<ModelBlockForward> blocks;
  Matrix logits;  // (n, vocab): row i scores the token after token i
};

// One head's projections: the d_head columns of the layer's W_Q, W_K and W_V that the head's
// queries, keys and values are, (d_model, d_head) each. With the block's norm1 as X they are
// the stepper's inputs for that head alone (heads 1, causal).
struct ModelHeadWeights {
  Matrix w_q, w_k, w_v;
};

// Errors: invalid-argument for a layer or head out of range (0-based).
Result<ModelHeadWeights> head_weights(const Model& model, int layer, int head);

// The forward pass over tokens (1 … context ids below vocab), its attention computed by the
// core's multi-head attention exactly as trace() computes it (causal, 1/√d_head).
// Errors: invalid_argument naming a token out of range, too_large beyond the context.
Result<ModelForward> forward(const Model& model, const std::vector<int>& tokens);

// Switching heads off (issue 38's interventions): each listed head's output, its d_head
// columns of the concatenated heads before W_O (its attention weights times its values), is
// replaced before W_O mixes the heads:
// - zero: by zeros, as if its d_head rows of W_O were zero;
// - mean: in every row by that head's mean output over the n positions of the text in this
//   same pass (earlier layers' ablations applied): the column means of its (n, d_head) output.
//   Every position then sees that one mean, taken over later positions too.
// The head's attention weights are still computed and returned; only what it writes changes.
enum class Ablation { zero, mean };
inline constexpr const char* ablation_names[] = {"zero", "mean"};

struct HeadIndex {
  int layer = 0, head = 0;  // 0-based
};

// Replacing heads by a cheaper attention (issue 37): each replaced head computes its output
// and weights with the family, from the same Q, K and V columns, causal as the model is, and
// the rest of the model runs as trained: what the approximation costs a real model's loss.
// softmax: the head as trained. The other families are the core's entries (their options as
// those take them; causal and the sizes are set here): linear_attention (elu, relu or favor),
// retention (its decay; unnormalised, as RetNet's parallel form is), low_rank_attention
// (svd only: Linformer has no causal form) and sparse_pattern (its mask on top of the causal
// rule, through attention()).
enum class HeadFamily { softmax, linear, retention, low_rank, sparse };
inline constexpr const char* head_family_names[] = {"softmax", "linear", "retention", "lowRank",
                                                    "sparse"};

struct HeadReplacement {
  HeadFamily family = HeadFamily::softmax;
  std::vector<HeadIndex> heads;  // the heads replaced (repeats allowed); every head when all
  bool all = false;
  LinearAttentionOptions linear;
  RetentionOptions retention;
  LowRankOptions low_rank;
  SparsePatternOptions sparse;
};

struct AblationOptions {
  std::vector<HeadIndex> heads;  // none: the plain forward pass, the same bits; repeats allowed
  Ablation ablation = Ablation::zero;
  HeadReplacement replace = {};  // applied before an ablation of the same head
  // false: ModelForward::blocks stays empty and the heads left as trained run through
  // flash_attention, every head of a layer in one call, with no n × n weights formed: the
  // logits alone, the same up to the float rounding of its online softmax.
  bool blocks = true;
};

// The forward pass with the listed heads ablated or replaced. Errors: forward()'s, the
// family's own (naming its option), and invalid-argument naming ablate[i].layer or
// ablate[i].head (replace.heads[i]…) out of range.
Result<ModelForward> forward(const Model& model, const std::vector<int>& tokens,
                             const AblationOptions& ablate);

// The loss of each next token (nats): entry i is −log p(tokens[i + 1] | tokens[0 … i]) under
// the model with the listed heads ablated, n − 1 values. Errors: forward()'s with ablations,
// and invalid-argument for fewer than 2 tokens.
Result<std::vector<double>> token_losses(const Model& model, const std::vector<int>& tokens,
                                         const AblationOptions& ablate = {});

// Attention rollout (Abnar & Zuidema 2020, "Quantifying Attention Flow in Transformers"):
// per layer, the mean over heads of the attention weights A, then Â = 0.5·A + 0.5·I (the
// residual stream) with each row renormalised to sum to 1; the rollout after layer l is
// Â_l·Â_(l−1)·…·Â_0, in float64, rounded to float. Returns it after each layer: (n, n) each,
// row i how much each input token reaches position i through layers 0 … l; rows sum to 1.
// Errors: forward()'s.
Result<std::vector<Matrix>> attention_rollout(const Model& model, const std::vector<int>& tokens);

// Token-by-token decoding through a KV cache: each token's keys and values, per layer, are
// computed once and kept; a new token's query attends to them with attention() (its row of
// the causal pass). The model must outlive the decoder.
class ModelDecoder {
 public:
  explicit ModelDecoder(const Model& model);
  // Appends tokens at the next positions; returns the logits after the last (vocab).
  // Errors: invalid-argument for a token out of range or none, too-large past the context.
  Result<std::vector<float>> append(const std::vector<int>& tokens);
  std::size_t length() const { return length_; }

 private:
  const Model* model_;
  ModelLayout layout_;
  std::vector<Matrix> keys_, values_;  // per layer: (context, d), rows [0, length) filled
  std::size_t length_ = 0;
};

// How the next token is drawn from the logits: softmax(logits / temperature) over the top_k
// largest (0 = all; ties to the smaller id); temperature 0 takes the largest.
struct SampleOptions {
  float temperature = 1.0f;
  std::size_t top_k = 0;
  std::uint64_t seed = 1;
};

// The token that `u` (in [0, 1)) picks from the distribution above.
// Errors: invalid-argument for a negative or non-finite temperature or empty logits.
Result<int> sample_token(const std::vector<float>& logits, float temperature, std::size_t top_k,
                         double u);

// The distribution sample_token draws from: the kept tokens, likeliest first, and each one's
// probability softmax(logits / temperature) over them (temperature 0: the likeliest alone,
// with probability 1). Errors: sample_token's.
struct TokenDistribution {
  std::vector<int> token_ids;
  std::vector<double> probabilities;
};
Result<TokenDistribution> next_token_distribution(const std::vector<float>& logits,
                                                  float temperature, std::size_t top_k);

// `count` tokens after the prompt, each drawn with the generator's next u from the seed.
// Errors: the decoder's and sample_token's; too-large when prompt + count exceeds the context.
Result<std::vector<int>> generate(const Model& model, const std::vector<int>& prompt,
                                  std::size_t count, const SampleOptions& options);

// The mean cross-entropy of predicting tokens[i + 1] from tokens[0 … i], from the logits.
double next_token_loss(const Matrix& logits, const std::vector<int>& tokens);

}  // namespace attnlab
