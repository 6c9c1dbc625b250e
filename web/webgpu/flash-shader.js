// The WGSL of the tiled forward pass, for one tile plan (Br, Bc, d) from the core.
//
// One workgroup takes Br query rows of one head of one sequence, one invocation per row. It
// walks the keys Bc at a time: the invocations load a K tile and a V tile (Bc x d each) into
// workgroup storage together, then each folds the tile into its row with an online softmax: a
// running max m and sum l, the accumulator rescaled by exp(m_old − m_new), divided by l at the
// end. Every rule comes from the core's plan (lab.flashPlan): each row's band of keys [begin,
// end) (the workgroup walks from its first row's begin to its last row's end: both grow with
// the row), each head's factor (its scale over its temperature), ALiBi's slopes and the
// queries' positions. Each score then takes the core's rules in
// the core's order (apply_score_rules in cpp/src/kernels/flash.cpp): scaled, soft-capped, minus
// ALiBi's m_h·|p − j|, plus the bias; a −∞ bias entry or a padding key blocks it.
// Query head h reads K/V head h / kv_group (grouped-query attention).

/**
 * @param {{ queryRows: number, keyRows: number, headWidth: number }} plan
 * @param {{ f16?: boolean }} [options] f16: stage the K and V tiles as f16 (half the storage)
 */
export function flashShader(plan, { f16 = false } = {}) {
  const { queryRows: BR, keyRows: BC, headWidth: D } = plan;
  const tile = f16 ? 'f16' : 'f32';
  return /* wgsl */ `
${f16 ? 'enable f16;' : ''}

struct Params {
  n_q: u32,      // queries per sequence
  n_k: u32,      // keys per sequence
  heads: u32,
  kv_group: u32, // query heads per K/V head
  softcap: f32,  // 0: off
  offset: i32,   // query i sits at key i + offset (ALiBi's distances)
  bias: u32,     // 0: none; 1: one (n_q, n_k) for every head; 2: one per head
  padding: u32,  // 1: the padding flags apply
  alibi: u32,    // 1: the slopes apply
}

@group(0) @binding(0) var<uniform> params: Params;
@group(0) @binding(1) var<storage, read> q: array<f32>;        // (batch·n_q, heads·D)
@group(0) @binding(2) var<storage, read> k: array<f32>;        // (batch·n_k, kv_heads·D)
@group(0) @binding(3) var<storage, read> v: array<f32>;        // (batch·n_k, kv_heads·D)
@group(0) @binding(4) var<storage, read_write> out: array<f32>; // (batch·n_q, heads·D)
@group(0) @binding(5) var<storage, read> bands: array<u32>;    // (n_q, 2): [begin, end)
// The bias as bits: WGSL may assume no infinities, so −∞ is compared as its bit pattern.
@group(0) @binding(6) var<storage, read> bias: array<u32>;     // (n_q or heads·n_q, n_k)
@group(0) @binding(7) var<storage, read> padding: array<u32>;  // (n_k): 1 = padding
// Each head's factor (what multiplies q·k), then with ALiBi each head's slope: (heads or 2·heads).
@group(0) @binding(8) var<storage, read> head_rules: array<f32>;

const BR: u32 = ${BR}u;
const BC: u32 = ${BC}u;
const D: u32 = ${D}u;
const MINUS_INFINITY_BITS: u32 = 0xff800000u;
// tanh(±15) is ±1 in float32; past it some GPUs' tanh (e^2x ratios) give NaN.
const TANH_SATURATES: f32 = 15.0;

var<workgroup> k_tile: array<${tile}, ${BC * D}>;
var<workgroup> v_tile: array<${tile}, ${BC * D}>;

fn band(r: u32) -> vec2<u32> {
  return vec2<u32>(bands[2u * r], bands[2u * r + 1u]);
}

@compute @workgroup_size(${BR})
fn main(@builtin(workgroup_id) group: vec3<u32>, @builtin(local_invocation_id) local: vec3<u32>) {
  let head = group.y;
  let q_first = group.z * params.n_q; // this sequence's first row of Q and of the output
  let k_first = group.z * params.n_k; // and of K and V
  let row = group.x * BR + local.x;
  let has_row = row < params.n_q;
  let width = params.heads * D;
  let kv_width = params.heads / params.kv_group * D;
  let kv_head = head / params.kv_group;
  let factor = head_rules[head];
  var slope = 0.0;
  if (params.alibi != 0u) {
    slope = head_rules[params.heads + head];
  }
  let bias_row = select(row, head * params.n_q + row, params.bias == 2u);

  var query: array<f32, ${D}>;
  var acc: array<f32, ${D}>;
  var m = 0.0;
  var started = false; // m holds a max
  var l = 0.0;
  if (has_row) {
    for (var c = 0u; c < D; c++) {
      query[c] = q[(q_first + row) * width + head * D + c];
      acc[c] = 0.0;
    }
  }

  // The keys any row of the workgroup sees (uniform across it, for the barriers).
  let key_begin = band(group.x * BR).x;
  let key_end = band(min((group.x + 1u) * BR, params.n_q) - 1u).y;
  let seen = band(min(row, params.n_q - 1u));
  let position = i32(row) + params.offset;

  var scores: array<f32, ${BC}>;
  var allowed: array<bool, ${BC}>;
  for (var j0 = key_begin; j0 < key_end; j0 += BC) {
    for (var i = local.x; i < BC * D; i += BR) {
      let key = j0 + i / D;
      let at = (k_first + key) * kv_width + kv_head * D + i % D;
      k_tile[i] = ${tile}(select(0.0, k[at], key < params.n_k));
      v_tile[i] = ${tile}(select(0.0, v[at], key < params.n_k));
    }
    workgroupBarrier();

    if (has_row) {
      var has_key = false;
      var tile_max = 0.0;
      for (var jj = 0u; jj < BC; jj++) {
        let key = j0 + jj;
        var ok = key >= seen.x && key < seen.y;
        var x = 0.0;
        if (ok) {
          for (var c = 0u; c < D; c++) {
            x += query[c] * f32(k_tile[jj * D + c]);
          }
          x *= factor;
          if (params.softcap > 0.0) {
            x = params.softcap * tanh(clamp(x / params.softcap, -TANH_SATURATES, TANH_SATURATES));
          }
          x -= slope * f32(abs(position - i32(key)));
          if (params.bias != 0u) {
            let bits = bias[bias_row * params.n_k + key];
            ok = bits != MINUS_INFINITY_BITS;
            x += select(0.0, bitcast<f32>(bits), ok);
          }
          if (params.padding != 0u && padding[key] != 0u) {
            ok = false;
          }
        }
        if (ok) {
          tile_max = select(x, max(tile_max, x), has_key);
          has_key = true;
        }
        scores[jj] = x;
        allowed[jj] = ok;
      }
      if (has_key) {
        if (!started) {
          m = tile_max;
          started = true;
        }
        let m_new = max(m, tile_max);
        let correction = exp(m - m_new);
        l *= correction;
        for (var c = 0u; c < D; c++) {
          acc[c] *= correction;
        }
        for (var jj = 0u; jj < BC; jj++) {
          if (allowed[jj]) {
            let p = exp(scores[jj] - m_new);
            l += p;
            for (var c = 0u; c < D; c++) {
              acc[c] += p * f32(v_tile[jj * D + c]);
            }
          }
        }
        m = m_new;
      }
    }
    workgroupBarrier();
  }

  if (has_row) {
    // A row that saw no key is defined as zeros, not NaN. (Scores that could overflow never
    // reach the shader: the host sends them to the CPU kernel.)
    let inverse = select(0.0, 1.0 / l, l > 0.0);
    for (var c = 0u; c < D; c++) {
      out[(q_first + row) * width + head * D + c] = acc[c] * inverse;
    }
  }
}
`;
}
