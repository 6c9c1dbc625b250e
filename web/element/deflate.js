// DEFLATE (RFC 1951, raw: no zlib or gzip header), synchronous, for the state in the URL
// (state-link.js). The browser's CompressionStream('deflate-raw') writes the same format, but
// only asynchronously: setState() must know, before it returns, whether the state's link fits
// (it refuses one that does not), and leaving the page must write the link at once. So the
// element compresses with this encoder; any deflate-raw reader (DecompressionStream, zlib)
// reads its output, and inflate.js reads any deflate-raw link, CompressionStream's included.
//
// Dynamic Huffman codes, a block per 256 KiB of input, after greedy LZ77 matching (hash chains
// over a 32 KiB window): a state's JSON is mostly digits, which the codes take to about 3.5
// bits each, and repeated rows and keys, which the matches take.

const WINDOW = 32768;
const MIN_MATCH = 3;
const MAX_MATCH = 258;
const MAX_CHAIN = 16; // candidates tried per position: compression against time
const HASH_BITS = 15;

export const LENGTH_BASE = [3, 4, 5, 6, 7, 8, 9, 10, 11, 13, 15, 17, 19, 23, 27, 31, 35, 43, 51, 59, 67, 83, 99, 115, 131, 163, 195, 227, 258];
export const LENGTH_EXTRA = [0, 0, 0, 0, 0, 0, 0, 0, 1, 1, 1, 1, 2, 2, 2, 2, 3, 3, 3, 3, 4, 4, 4, 4, 5, 5, 5, 5, 0];
export const DISTANCE_BASE = [
  1, 2, 3, 4, 5, 7, 9, 13, 17, 25, 33, 49, 65, 97, 129, 193, 257, 385, 513, 769, 1025, 1537, 2049, 3073, 4097, 6145, 8193, 12289, 16385, 24577,
];
export const DISTANCE_EXTRA = [0, 0, 0, 0, 1, 1, 2, 2, 3, 3, 4, 4, 5, 5, 6, 6, 7, 7, 8, 8, 9, 9, 10, 10, 11, 11, 12, 12, 13, 13];
// The order in which a dynamic block lists the code lengths' own code lengths.
export const CODE_LENGTH_ORDER = [16, 17, 18, 0, 8, 7, 9, 6, 10, 5, 11, 4, 12, 3, 13, 2, 14, 1, 15];

// Length 3 … 258 → its code's index (0 … 28); distance 1 … 32768 → its code (0 … 29).
const LENGTH_CODE = new Uint8Array(MAX_MATCH + 1);
for (let c = 0; c < LENGTH_BASE.length; c++)
  for (let l = LENGTH_BASE[c]; l < LENGTH_BASE[c] + (1 << LENGTH_EXTRA[c]) && l <= MAX_MATCH; l++) LENGTH_CODE[l] = c;
LENGTH_CODE[MAX_MATCH] = 28; // 258 has a code of its own (227 + 31 would also reach it)
// As zlib does: distances 1 … 256 directly, larger ones by (d − 1) >> 7.
const DISTANCE_CODE = new Uint8Array(512);
for (let c = 0; c < DISTANCE_BASE.length; c++) {
  for (let d = DISTANCE_BASE[c]; d < DISTANCE_BASE[c] + (1 << DISTANCE_EXTRA[c]); d++) {
    if (d <= 256) DISTANCE_CODE[d - 1] = c;
    else DISTANCE_CODE[256 + ((d - 1) >> 7)] = c;
  }
}
const distanceCode = (d) => (d <= 256 ? DISTANCE_CODE[d - 1] : DISTANCE_CODE[256 + ((d - 1) >> 7)]);

// Greedy LZ77: the input as literals and (length, distance) pairs, packed one a Uint32: a
// literal is its byte; a match is 256 + length << 16 | distance − 1 … read back by writeBlock().
// It runs a segment at a time (run(from, to): the symbols from `from` until at least `to`, and
// where it stopped), its hash chains carried over, so matches reach back across segments.
function matcher(input) {
  const n = input.length;
  const head = new Int32Array(1 << HASH_BITS).fill(-1);
  const prev = new Int32Array(WINDOW);
  const hashAt = (i) => ((input[i] << 10) ^ (input[i + 1] << 5) ^ input[i + 2]) & ((1 << HASH_BITS) - 1);
  const insert = (i) => {
    if (i + MIN_MATCH > n) return;
    const h = hashAt(i);
    prev[i & (WINDOW - 1)] = head[h];
    head[h] = i;
  };
  return function run(from, to) {
    const out = new Uint32Array(to - from + 1);
    let count = 0;
    let i = from;
    while (i < to) {
      let bestLength = 0;
      let bestDistance = 0;
      if (i + MIN_MATCH <= n) {
        const limit = Math.min(MAX_MATCH, n - i);
        let candidate = head[hashAt(i)];
        for (let tries = 0; candidate >= 0 && i - candidate <= WINDOW && tries < MAX_CHAIN; tries++) {
          if (input[candidate + bestLength] === input[i + bestLength]) {
            let length = 0;
            while (length < limit && input[candidate + length] === input[i + length]) length++;
            if (length > bestLength) {
              bestLength = length;
              bestDistance = i - candidate;
            }
            if (length === limit) break;
          }
          const next = prev[candidate & (WINDOW - 1)];
          if (next >= candidate) break; // the slot was reused: older positions are gone
          candidate = next;
        }
      }
      if (bestLength >= MIN_MATCH) {
        out[count++] = ((256 + bestLength) << 16) | (bestDistance - 1);
        for (let k = 0; k < bestLength; k++) insert(i + k);
        i += bestLength;
      } else {
        out[count++] = input[i];
        insert(i);
        i++;
      }
    }
    return { symbols: out.subarray(0, count), next: i };
  };
}

/**
 * Code lengths of at most `limit` bits for the symbols' frequencies (0: unused). Huffman's
 * construction; while its tree is deeper than the limit, the frequencies are halved (rare:
 * only very skewed counts do it), which flattens the tree. At least two symbols get a code, so
 * that every code is complete, as the strictest readers want.
 */
function codeLengths(frequencies, limit) {
  const freq = Array.from(frequencies);
  let used = freq.reduce((k, f) => k + (f > 0), 0);
  for (let s = 0; used < 2; s++) if (freq[s] === 0) ((freq[s] = 1), used++);
  for (;;) {
    const lengths = huffmanLengths(freq);
    if (Math.max(...lengths) <= limit) return lengths;
    for (let s = 0; s < freq.length; s++) if (freq[s] > 0) freq[s] = Math.max(1, freq[s] >> 1);
  }
}

function huffmanLengths(freq) {
  // Nodes: leaves 0 … n − 1, then inner nodes; two sorted queues (leaves, merged) give the two
  // smallest each time without a heap.
  const leaves = freq
    .map((f, s) => [f, s])
    .filter(([f]) => f > 0)
    .sort((a, b) => a[0] - b[0]);
  const parent = new Int32Array(freq.length + leaves.length).fill(-1);
  const merged = [];
  let [a, b] = [0, 0];
  let next = freq.length;
  const take = () => (b >= merged.length || (a < leaves.length && leaves[a][0] <= merged[b][0]) ? leaves[a++] : merged[b++]);
  for (let k = 1; k < leaves.length; k++) {
    const [x, y] = [take(), take()];
    parent[x[1]] = parent[y[1]] = next;
    merged.push([x[0] + y[0], next++]);
  }
  const depth = (node) => (parent[node] < 0 ? 0 : 1 + depth(parent[node]));
  return freq.map((f, s) => (f > 0 ? depth(s) : 0));
}

/** Canonical codes (RFC 1951 §3.2.2) of the lengths, bit-reversed: deflate sends a code's top bit first into a stream read from the low bit. */
function canonicalCodes(lengths) {
  const counts = new Array(16).fill(0);
  for (const l of lengths) if (l) counts[l]++;
  const next = new Array(16).fill(0);
  for (let bits = 1, code = 0; bits < 16; bits++) next[bits] = code = (code + counts[bits - 1] * (bits > 1)) << 1;
  return lengths.map((l) => {
    if (!l) return 0;
    let code = next[l]++;
    let reversed = 0;
    for (let k = 0; k < l; k++, code >>= 1) reversed = (reversed << 1) | (code & 1);
    return reversed;
  });
}

// A growing little-endian bit stream.
class Bits {
  bytes = new Uint8Array(1024);
  length = 0;
  buffer = 0;
  count = 0;
  put(value, bits) {
    this.buffer |= value << this.count;
    this.count += bits;
    while (this.count >= 8) {
      if (this.length === this.bytes.length) this.bytes = grow(this.bytes);
      this.bytes[this.length++] = this.buffer & 0xff;
      this.buffer >>>= 8;
      this.count -= 8;
    }
  }
  finish() {
    if (this.count > 0) this.put(0, 8 - this.count);
    return this.bytes.slice(0, this.length);
  }
}
const grow = (bytes) => {
  const out = new Uint8Array(bytes.length * 2);
  out.set(bytes);
  return out;
};

// The literal/length and distance code lengths as the code-length alphabet: 0 … 15 as they
// are, 16 (repeat the last 3 … 6 times), 17 (3 … 10 zeros), 18 (11 … 138 zeros); [symbol, extra].
function runLengths(lengths) {
  const out = [];
  for (let i = 0; i < lengths.length;) {
    const l = lengths[i];
    let run = 1;
    while (i + run < lengths.length && lengths[i + run] === l) run++;
    i += run;
    if (l === 0) {
      while (run >= 11) (out.push([18, Math.min(run, 138) - 11]), (run -= Math.min(run, 138)));
      if (run >= 3) (out.push([17, run - 3]), (run = 0));
    } else {
      out.push([l, 0]);
      run--;
      while (run >= 3) (out.push([16, Math.min(run, 6) - 3]), (run -= Math.min(run, 6)));
    }
    for (; run > 0; run--) out.push([l, 0]);
  }
  return out;
}

// Input bytes a block covers: each block's codes fit its own part (numbers, then labels), and
// the output's length is known as it goes, so a cap stops the work early.
const SEGMENT = 1 << 18;

/**
 * The bytes, deflated (raw DEFLATE, a dynamic block per 256 KiB of input); null as soon as
 * the output passes maxBytes (a link that cannot fit is refused without compressing it all).
 */
export function deflateRaw(input, maxBytes = Infinity) {
  const run = matcher(input);
  const bits = new Bits();
  let from = 0;
  do {
    const { symbols, next } = run(from, Math.min(input.length, from + SEGMENT));
    from = next;
    writeBlock(bits, symbols, from >= input.length);
    if (bits.length + (bits.count > 0) > maxBytes) return null; // a partial byte is one more
  } while (from < input.length);
  return bits.finish();
}

// One dynamic block of the symbols (the last of the stream when `final`).
function writeBlock(bits, symbols, final) {
  const literalFreq = new Array(286).fill(0);
  const distanceFreq = new Array(30).fill(0);
  for (const s of symbols) {
    if (s < 256) literalFreq[s]++;
    else {
      literalFreq[257 + LENGTH_CODE[(s >>> 16) - 256]]++;
      distanceFreq[distanceCode((s & 0xffff) + 1)]++;
    }
  }
  literalFreq[256] = 1; // the end of the block
  const literalLengths = codeLengths(literalFreq, 15);
  const distanceLengths = codeLengths(distanceFreq, 15);
  const literalCodes = canonicalCodes(literalLengths);
  const distanceCodes = canonicalCodes(distanceLengths);
  let hlit = 286;
  while (hlit > 257 && literalLengths[hlit - 1] === 0) hlit--;
  let hdist = 30;
  while (hdist > 1 && distanceLengths[hdist - 1] === 0) hdist--;
  const runs = runLengths([...literalLengths.slice(0, hlit), ...distanceLengths.slice(0, hdist)]);
  const runFreq = new Array(19).fill(0);
  for (const [s] of runs) runFreq[s]++;
  const runLengthsOf = codeLengths(runFreq, 7);
  const runCodes = canonicalCodes(runLengthsOf);
  let hclen = 19;
  while (hclen > 4 && runLengthsOf[CODE_LENGTH_ORDER[hclen - 1]] === 0) hclen--;

  bits.put(final ? 1 : 0, 1); // the last block or not
  bits.put(2, 2); // dynamic Huffman codes
  bits.put(hlit - 257, 5);
  bits.put(hdist - 1, 5);
  bits.put(hclen - 4, 4);
  for (let k = 0; k < hclen; k++) bits.put(runLengthsOf[CODE_LENGTH_ORDER[k]], 3);
  const RUN_EXTRA = { 16: 2, 17: 3, 18: 7 };
  for (const [s, extra] of runs) {
    bits.put(runCodes[s], runLengthsOf[s]);
    if (s >= 16) bits.put(extra, RUN_EXTRA[s]);
  }
  for (const s of symbols) {
    if (s < 256) {
      bits.put(literalCodes[s], literalLengths[s]);
      continue;
    }
    const length = (s >>> 16) - 256;
    const distance = (s & 0xffff) + 1;
    const lc = LENGTH_CODE[length];
    bits.put(literalCodes[257 + lc], literalLengths[257 + lc]);
    if (LENGTH_EXTRA[lc]) bits.put(length - LENGTH_BASE[lc], LENGTH_EXTRA[lc]);
    const dc = distanceCode(distance);
    bits.put(distanceCodes[dc], distanceLengths[dc]);
    if (DISTANCE_EXTRA[dc]) bits.put(distance - DISTANCE_BASE[dc], DISTANCE_EXTRA[dc]);
  }
  bits.put(literalCodes[256], literalLengths[256]);
}
