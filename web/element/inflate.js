// Raw DEFLATE decoding (RFC 1951), synchronous, for the state in a "#z=" link (state-link.js):
// stored, fixed and dynamic blocks, so a link written by the browser's
// CompressionStream('deflate-raw') opens as well as one written by deflate.js. Synchronous so
// that a link opens as the element starts, as the uncompressed form did (DecompressionStream
// would make the first state wait). The output is capped: a small link must not expand into
// gigabytes. Throws Error with a plain message on a malformed stream.
import { CODE_LENGTH_ORDER, DISTANCE_BASE, DISTANCE_EXTRA, LENGTH_BASE, LENGTH_EXTRA } from './deflate.js';

// A canonical Huffman code (RFC 1951 §3.2.2) as one lookup table: indexed by the next
// `bits` bits of the stream (the longest code's length), each entry is symbol << 4 | length.
// An unused entry (an incomplete code) is 0, which no code gives (a length is at least 1).
function huffman(lengths) {
  const counts = new Uint16Array(16);
  for (const l of lengths) counts[l]++;
  counts[0] = 0;
  let left = 1;
  for (let l = 1; l < 16; l++) {
    left = 2 * left - counts[l];
    if (left < 0) throw new Error('a Huffman code in the link is over-subscribed');
  }
  let bits = 15;
  while (bits > 1 && counts[bits] === 0) bits--;
  const table = new Uint32Array(1 << bits);
  const next = new Uint16Array(16);
  for (let l = 1, code = 0; l < 16; l++) next[l] = code = (code + counts[l - 1]) << 1;
  lengths.forEach((l, symbol) => {
    if (!l) return;
    let code = next[l]++;
    let reversed = 0; // the stream sends a code's top bit first
    for (let k = 0; k < l; k++, code >>= 1) reversed = (reversed << 1) | (code & 1);
    for (let fill = reversed; fill < table.length; fill += 1 << l) table[fill] = (symbol << 4) | l;
  });
  return { table, bits };
}

/** The bytes of a raw DEFLATE stream, at most maxBytes of them. */
export function inflateRaw(input, maxBytes) {
  let position = 0; // the next byte of input
  let buffer = 0;
  let count = 0;
  // Up to 24 bits in the buffer; past the input's end the stream reads as zeros, and a read
  // that used them is an error (drop()).
  const fill = (n) => {
    while (count < n) {
      buffer |= (position < input.length ? input[position] : 0) << count;
      position++;
      count += 8;
    }
  };
  const drop = (n) => {
    buffer >>>= n;
    count -= n;
    if (position - (count >> 3) > input.length) throw new Error('the compressed link ends too soon');
  };
  const bits = (n) => {
    if (n === 0) return 0;
    fill(n);
    const value = buffer & ((1 << n) - 1);
    drop(n);
    return value;
  };
  const decode = ({ table, bits: width }) => {
    fill(width);
    const entry = table[buffer & ((1 << width) - 1)];
    if (entry === 0) throw new Error('the compressed link holds a code that is not in its table');
    drop(entry & 15);
    return entry >>> 4;
  };

  let out = new Uint8Array(Math.min(maxBytes, Math.max(1024, input.length * 4)));
  let length = 0;
  const room = (n) => {
    if (length + n <= out.length) return;
    if (length + n > maxBytes) throw new Error(`the compressed link expands past ${maxBytes} bytes`);
    const bigger = new Uint8Array(Math.min(maxBytes, Math.max(out.length * 2, length + n)));
    bigger.set(out.subarray(0, length));
    out = bigger;
  };

  let final = 0;
  while (!final) {
    final = bits(1);
    const type = bits(2);
    if (type === 0) {
      position -= count >> 3; // a stored block starts at a byte: whole bytes read ahead go back
      [buffer, count] = [0, 0];
      if (position + 4 > input.length) throw new Error('the compressed link ends too soon');
      const size = input[position] | (input[position + 1] << 8);
      if ((size ^ 0xffff) !== (input[position + 2] | (input[position + 3] << 8))) throw new Error('a stored block of the link has a wrong length');
      position += 4;
      if (position + size > input.length) throw new Error('the compressed link ends too soon');
      room(size);
      out.set(input.subarray(position, position + size), length);
      [position, length] = [position + size, length + size];
      continue;
    }
    let literals;
    let distances;
    if (type === 1) [literals, distances] = FIXED;
    else if (type === 2) [literals, distances] = dynamicCodes(bits, decode);
    else throw new Error('the compressed link has a block of an unknown type');
    for (;;) {
      const symbol = decode(literals);
      if (symbol < 256) {
        room(1);
        out[length++] = symbol;
      } else if (symbol === 256) break;
      else {
        const lc = symbol - 257;
        if (lc >= 29) throw new Error('the compressed link holds an invalid length');
        const size = LENGTH_BASE[lc] + bits(LENGTH_EXTRA[lc]);
        const dc = decode(distances);
        if (dc >= 30) throw new Error('the compressed link holds an invalid distance');
        const distance = DISTANCE_BASE[dc] + bits(DISTANCE_EXTRA[dc]);
        if (distance > length) throw new Error('the compressed link refers before its start');
        room(size);
        for (let k = 0; k < size; k++, length++) out[length] = out[length - distance];
      }
    }
  }
  return out.subarray(0, length);
}

// A dynamic block's codes, read from its header.
function dynamicCodes(bits, decode) {
  const hlit = bits(5) + 257;
  const hdist = bits(5) + 1;
  const hclen = bits(4) + 4;
  if (hlit > 286 || hdist > 30) throw new Error('the compressed link has too many codes');
  const runLengths = new Array(19).fill(0);
  for (let k = 0; k < hclen; k++) runLengths[CODE_LENGTH_ORDER[k]] = bits(3);
  const runs = huffman(runLengths);
  const lengths = [];
  while (lengths.length < hlit + hdist) {
    const symbol = decode(runs);
    if (symbol < 16) lengths.push(symbol);
    else {
      if (symbol === 16 && lengths.length === 0) throw new Error('the compressed link repeats a length before the first');
      const [value, repeat] = symbol === 16 ? [lengths.at(-1), 3 + bits(2)] : symbol === 17 ? [0, 3 + bits(3)] : [0, 11 + bits(7)];
      if (lengths.length + repeat > hlit + hdist) throw new Error('the compressed link has too many code lengths');
      for (let k = 0; k < repeat; k++) lengths.push(value);
    }
  }
  if (lengths[256] === 0) throw new Error('the compressed link has no end-of-block code');
  return [huffman(lengths.slice(0, hlit)), huffman(lengths.slice(hlit))];
}

// The fixed codes of block type 1.
const FIXED = [huffman(Array.from({ length: 288 }, (_, s) => (s < 144 ? 8 : s < 256 ? 9 : s < 280 ? 7 : 8))), huffman(new Array(30).fill(5))];
