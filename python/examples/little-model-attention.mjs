// Writes little-model-attention.json: the attention of attnlab's little language model (3 layers
// of 4 heads, trained on the State of the Union addresses, model/README.md) on one sentence, in
// Hugging Face's output_attentions layout ([layer][batch = 1][head][query][key]) with its
// tokens. The getting-started notebook reads it as a real model's output_attentions; run from
// the repository root after scripts/build.sh package: node python/examples/little-model-attention.mjs
import { writeFile } from 'node:fs/promises';

import { createAttnLab } from '../../dist/attnlab.js';

const SENTENCE = 'We the people of the United States choose the power of the people.';
const lab = await createAttnLab();
const model = await lab.loadModel();
const { tokenIds, pieces } = model.tokenize(SENTENCE);
const { blocks } = model.forward(tokenIds);
const round = (x) => Math.round(x * 1e6) / 1e6;
const attentions = blocks.map((block) => [block.attention.map((head) => head.map((row) => row.map(round)))]);
await writeFile(new URL('./little-model-attention.json', import.meta.url), JSON.stringify({ sentence: SENTENCE, tokens: pieces, attentions }) + '\n');
console.log(`little-model-attention.json: ${blocks.length} layers × ${blocks[0].attention.length} heads × ${tokenIds.length} tokens`);
