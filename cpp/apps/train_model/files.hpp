// What the trainer writes: the weights as float16, the model's description, the tokenizer,
// and JSON numbers that read back as the same float.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "attnlab/model.hpp"
#include "attnlab/tokenizer.hpp"

namespace train_model {

// The parameters as the shipped file holds them: each rounded to float16 and back.
std::vector<float> rounded_to_float16(const std::vector<float>& values);

// dir/weights.bin (float16, little-endian, in ModelLayout order), dir/model.json (config and
// tensors) and dir/tokenizer.json (the merges).
void write_model(const std::string& dir, const attnlab::ModelConfig& config,
                 const std::vector<float>& parameters, const attnlab::Tokenizer& tokenizer);

// The shortest decimal that reads back as the same float.
std::string json_number(double value);

}  // namespace train_model
