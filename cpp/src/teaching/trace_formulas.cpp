#include "teaching/trace_formulas.hpp"

namespace attnlab::trace_steps {
namespace {

// Query i's key position as the formula writes it: i, or i plus the alignment's offset.
std::string position_tex(const HeadRules& rules) {
  const auto offset = static_cast<long long>(rules.position(0));
  if (offset == 0) return "i";
  return "i " + std::string(offset < 0 ? "- " : "+ ") +
         std::to_string(offset < 0 ? -offset : offset);
}

}  // namespace

std::string scale_formula(const Symbols& s, const ScaleFactors& factors) {
  const std::string scaled = s.tilde("S");
  std::string factor = factors.default_scale ? "\\sqrt{d_k}" : tex_number(1.0 / factors.scale);
  if (factors.temperature != 1.0f) factor += " \\cdot " + tex_number(factors.temperature);
  std::string formula = scaled + " = \\frac{" + s.of("S") + "}{" + factor + "}";
  if (factors.default_scale) formula += ", \\quad d_k = " + std::to_string(factors.dk);
  return formula;
}

std::string mask_formula(const Symbols& s, const HeadRules& rules) {
  const ScoreRules& options = *rules.rules;
  std::string rule;
  const auto add = [&rule](const std::string& part) {
    rule += (rule.empty() ? "" : " \\lor ") + part;
  };
  const std::string i = position_tex(rules);
  if (options.causal) add("j > " + i);
  if (!options.key_padding.empty()) add("\\text{key } j \\text{ is padding}");
  if (options.mask) add("M_{ij} = 0");
  const Window& w = options.window;
  if (w.active()) {
    std::string far;
    if (w.left == w.right)
      far = "|" + i + " - j| \\ge " + std::to_string(w.left + 1);
    else {
      if (w.left != Window::unbounded) far = "j < " + i + " - " + std::to_string(w.left);
      if (w.right != Window::unbounded)
        far += (far.empty() ? "" : " \\lor ") + ("j > " + i + " + " + std::to_string(w.right));
    }
    add(options.global_tokens.empty() ? far : "(" + far + ") \\land \\text{neither is global}");
  }
  return s.tilde("S") + "_{ij} \\leftarrow -\\infty \\quad \\text{where } " + rule;
}

std::string bias_formula(const Symbols& s, const HeadRules& rules, bool given_bias) {
  const bool alibi = rules.slope != 0.0f;
  std::string added = alibi ? " - m\\,|" + position_tex(rules) + " - j|" : "";
  if (given_bias) added += " + B_{ij}";
  std::string formula = s.tilde("S") + "_{ij} \\leftarrow " + s.tilde("S") + "_{ij}" + added;
  if (alibi) formula += ", \\quad m = " + tex_number(rules.slope);
  return formula;
}

std::string concat_formula(std::size_t heads) {
  const auto head = [](std::size_t h) { return Symbols{"(" + std::to_string(h) + ")"}.of("O"); };
  std::string parts = head(1);
  if (heads > 3) parts += " \\mid \\cdots";
  for (std::size_t h = heads > 3 ? heads : 2; h <= heads; ++h) parts += " \\mid " + head(h);
  return "C = [\\, " + parts + " \\,]";
}

MaskCells mask_cells(const HeadRules& rules) {
  MaskCells cells{BoolMatrix(rules.n_q, rules.n_k),
                  BasicMatrix<std::uint8_t>(rules.n_q, rules.n_k)};
  for (std::size_t i = 0; i < rules.n_q; ++i)
    for (std::size_t j = 0; j < rules.n_k; ++j) {
      cells.blocked_by(i, j) = rules.blocked_by(i, j);
      cells.allowed(i, j) = cells.blocked_by(i, j) == 0 ? 1 : 0;
    }
  return cells;
}

std::string rotate_formula(const Symbols& s, const char* base, float rope_base) {
  const std::string m = s.of(base);
  return "{" + m + "}_{p,(2i,2i+1)} \\leftarrow R(p\\,\\theta_i)\\, {" + m +
         "}_{p,(2i,2i+1)}, \\quad \\theta_i = " + tex_number(rope_base) + "^{-2i/d_k}";
}

}  // namespace attnlab::trace_steps
