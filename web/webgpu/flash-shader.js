// The WGSL of the tiled forward pass, for one tile plan (Br, Bc, d) from the core.
//
// One workgroup takes Br query rows of one head, one invocation per row. It walks the keys
// Bc at a time: the invocations load a K tile and a V tile (Bc x d each) into workgroup
// storage together, then each folds the tile into its row with an online softmax: a running
// max m and sum l, the accumulator rescaled by exp(m_old − m_new), divided by l at the end.
// Each row sees a band of keys (the causal rule and the window at its position, as
// cpp/include/attnlab/key_band.hpp defines them): the workgroup walks only the keys from its
// first row's band start to its last row's band end, and masks the keys outside each row's.
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
  n_q: u32,
  n_k: u32,
  heads: u32,
  causal: u32,
  scale: f32,
  kv_group: u32, // query heads per K/V head
  offset: i32,   // query i sits at key i + offset (bottom-right: n_k − n_q)
  left: u32,     // window sides; UNBOUNDED = no limit
  right: u32,
}

@group(0) @binding(0) var<uniform> params: Params;
@group(0) @binding(1) var<storage, read> q: array<f32>;        // (n_q, heads·D)
@group(0) @binding(2) var<storage, read> k: array<f32>;        // (n_k, kv_heads·D)
@group(0) @binding(3) var<storage, read> v: array<f32>;        // (n_k, kv_heads·D)
@group(0) @binding(4) var<storage, read_write> out: array<f32>; // (n_q, heads·D)

const BR: u32 = ${BR}u;
const BC: u32 = ${BC}u;
const D: u32 = ${D}u;
const LOWEST: f32 = -3.0e38; // below every finite logit: "no key yet"
const UNBOUNDED: u32 = 0xffffffffu;

var<workgroup> k_tile: array<${tile}, ${BC * D}>;
var<workgroup> v_tile: array<${tile}, ${BC * D}>;

// The keys query r sees, [x, y): both ends grow with r.
fn key_range(r: u32) -> vec2<u32> {
  let p = i32(r) + params.offset;
  let n = i32(params.n_k);
  var begin = 0;
  var end = n;
  if (params.left != UNBOUNDED) {
    begin = max(begin, p - i32(params.left));
  }
  if (params.right != UNBOUNDED) {
    end = min(end, p + i32(params.right) + 1);
  }
  if (params.causal != 0u) {
    end = min(end, p + 1);
  }
  begin = clamp(begin, 0, n);
  return vec2<u32>(u32(begin), u32(clamp(end, begin, n)));
}

@compute @workgroup_size(${BR})
fn main(@builtin(workgroup_id) group: vec3<u32>, @builtin(local_invocation_id) local: vec3<u32>) {
  let head = group.y;
  let row = group.x * BR + local.x;
  let has_row = row < params.n_q;
  let width = params.heads * D;
  let kv_width = params.heads / params.kv_group * D;
  let kv_head = head / params.kv_group;

  var query: array<f32, ${D}>;
  var acc: array<f32, ${D}>;
  var m = LOWEST;
  var l = 0.0;
  if (has_row) {
    for (var c = 0u; c < D; c++) {
      query[c] = q[row * width + head * D + c] * params.scale;
      acc[c] = 0.0;
    }
  }

  // The keys any row of the workgroup sees (uniform across it, for the barriers).
  let key_begin = key_range(group.x * BR).x;
  let key_end = key_range(min((group.x + 1u) * BR, params.n_q) - 1u).y;
  let seen = key_range(min(row, params.n_q - 1u));

  var scores: array<f32, ${BC}>;
  for (var j0 = key_begin; j0 < key_end; j0 += BC) {
    for (var i = local.x; i < BC * D; i += BR) {
      let key = j0 + i / D;
      let at = key * kv_width + kv_head * D + i % D;
      k_tile[i] = ${tile}(select(0.0, k[at], key < params.n_k));
      v_tile[i] = ${tile}(select(0.0, v[at], key < params.n_k));
    }
    workgroupBarrier();

    if (has_row) {
      var tile_max = LOWEST;
      for (var jj = 0u; jj < BC; jj++) {
        let key = j0 + jj;
        var s = LOWEST;
        if (key >= seen.x && key < seen.y) {
          s = 0.0;
          for (var c = 0u; c < D; c++) {
            s += query[c] * f32(k_tile[jj * D + c]);
          }
          tile_max = max(tile_max, s);
        }
        scores[jj] = s;
      }
      if (tile_max > LOWEST) {
        let m_new = max(m, tile_max);
        let correction = exp(m - m_new);
        l *= correction;
        for (var c = 0u; c < D; c++) {
          acc[c] *= correction;
        }
        for (var jj = 0u; jj < BC; jj++) {
          if (scores[jj] > LOWEST) {
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
      out[row * width + head * D + c] = acc[c] * inverse;
    }
  }
}
`;
}
