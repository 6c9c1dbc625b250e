// The machine's measured WebAssembly SIMD128 float32 peak, the yardstick for the wasm rows'
// "% of peak": a module written here byte by byte (no toolchain needed) whose one function
// runs `chains` independent f32x4 chains acc = acc·x + y for `count` iterations (SIMD128 has
// no fused multiply-add, so mul + add is what a kernel issues: 8 flops per chain and step).
//
//   (func (param $count i32) (result f32) (local v128 × chains + 2) … loop … )

const uleb = (value) => {
  const bytes = [];
  do {
    let byte = value & 0x7f;
    value >>>= 7;
    if (value) byte |= 0x80;
    bytes.push(byte);
  } while (value);
  return bytes;
};
const f32 = (x) => [0x43, ...new Uint8Array(Float32Array.of(x).buffer)];
const simd = (op) => [0xfd, ...uleb(op)];
const [SPLAT, EXTRACT_LANE, ADD, MUL] = [0x13, 0x1f, 0xe4, 0xe6];
const [GET, SET, TEE] = [0x20, 0x21, 0x22];
const section = (id, body) => [id, ...uleb(body.length), ...body];

function peakModule(chains) {
  const x = chains + 1; // local indices: 0 is $count, 1 … chains the accumulators
  const y = chains + 2;
  const body = [1, ...uleb(chains + 2), 0x7b]; // one run of v128 locals
  const init = (local, value) => body.push(...f32(value), ...simd(SPLAT), SET, local);
  for (let i = 1; i <= chains; i++) init(i, 0.001 * i);
  init(x, 0.9999999);
  init(y, 1e-7);
  body.push(0x03, 0x40); // loop
  for (let i = 1; i <= chains; i++) body.push(GET, i, GET, x, ...simd(MUL), GET, y, ...simd(ADD), SET, i);
  body.push(GET, 0, 0x41, 1, 0x6b, TEE, 0, 0x0d, 0, 0x0b); // count -= 1; br_if loop; end
  for (let i = 1; i <= chains; i++) body.push(GET, i, ...simd(EXTRACT_LANE), 0, ...(i > 1 ? [0x92] : [])); // Σ lane 0
  body.push(0x0b);
  const code = [1, ...uleb(body.length), ...body];
  const name = [...new TextEncoder().encode('peak')];
  return new Uint8Array([
    0x00,
    0x61,
    0x73,
    0x6d,
    0x01,
    0x00,
    0x00,
    0x00,
    ...section(1, [1, 0x60, 1, 0x7f, 1, 0x7d]), // type: (i32) → f32
    ...section(3, [1, 0]),
    ...section(7, [1, name.length, ...name, 0x00, 0]),
    ...section(10, code),
  ]);
}

/**
 * GFLOP/s of the best of 8 and 12 chains (12 v128 accumulators plus two constants still fit
 * x86's 16 vector registers, so nothing spills), each the fastest of several ~0.1 s calls:
 * the first calls run in baseline code until V8 tiers the function up.
 */
export async function measureSimd128PeakGflops() {
  let best = 0;
  for (const chains of [8, 12]) {
    const { instance } = await WebAssembly.instantiate(peakModule(chains));
    const count = Math.round(1.2e8 / chains);
    for (let i = 0; i < 6; i++) {
      const start = performance.now();
      instance.exports.peak(count);
      best = Math.max(best, (8 * chains * count) / (performance.now() - start) / 1e6);
    }
  }
  return best;
}
