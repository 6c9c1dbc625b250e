// The model view's figures, drawn from what the core returned: the tokens as boxes, the
// next-token bars and every layer × head's weights as a thumbnail with its role and score.
// Nothing here computes a number of the model.
import { html, nothing, svg } from 'lit';

import { heatColors } from '../../shared/colors.js';

/** A token's text with its spaces and line breaks made visible (␣, ↵). */
export const visiblePiece = (piece) => piece.replaceAll(' ', '␣').replaceAll('\n', '↵');

const pieceSpans = (piece) =>
  visiblePiece(piece)
    .split(/([␣↵])/)
    .map((part) => (part === '␣' || part === '↵' ? html`<span class="space">${part}</span>` : part));

/** The tokens as boxes: the prompt's, then the generated ones (dashed). */
export function tokenBoxes(pieces, tokenIds, promptLength) {
  return html`<ol class="tokens" data-role="tokens" aria-label=${`${pieces.length} tokens`}>
    ${pieces.map(
      (piece, i) => html`<li data-token=${tokenIds[i]} class=${i >= promptLength ? 'generated' : ''}
        aria-label=${`token ${i + 1}: “${piece}”, id ${tokenIds[i]}${i >= promptLength ? ', generated' : ''}`}>${pieceSpans(piece)}</li>`,
    )}
  </ol>`;
}

/** The next token's likeliest candidates as horizontal bars: { pieces, tokenIds, probabilities }. */
export function nextTokenBars({ pieces, tokenIds, probabilities }, role = 'next-tokens') {
  return html`<table class="next" data-role=${role}>
    <caption class="note">The ${tokenIds.length} likeliest next tokens</caption>
    <thead>
      <tr><th scope="col">Token</th><th scope="col">Probability</th></tr>
    </thead>
    <tbody>
      ${tokenIds.map(
        (token, i) => html`<tr data-token=${token} data-value=${probabilities[i]}>
          <td class="piece">${pieceSpans(pieces[i])}</td>
          <td class="probability">
            <div class="bar-cell">
              <span>${(100 * probabilities[i]).toFixed(1)}%</span>
              <svg viewBox="0 0 100 10" preserveAspectRatio="none" aria-hidden="true">${svg`<rect width=${100 * probabilities[i]} height="10"></rect>`}</svg>
            </div>
          </td>
        </tr>`,
      )}
    </tbody>
  </table>`;
}

// The weight scale's 33 colours as bytes, once (heatColors quantises to these levels).
const LEVELS = 32;
let palette;
function levelBytes() {
  palette ??= Array.from({ length: LEVELS + 1 }, (_, level) => heatColors(level / LEVELS).background.match(/\d+/g).map(Number));
  return palette;
}

/** Draws each canvas of `root` whose weights (its `weights` property) changed: one pixel per weight. */
export function drawThumbnails(root) {
  for (const canvas of root.querySelectorAll('canvas[data-head]')) {
    const weights = canvas.weights;
    if (!weights || canvas.drawn === weights) continue;
    const n = weights.length;
    const image = new ImageData(n, n);
    weights.forEach((row, i) =>
      row.forEach((w, j) => {
        const [r, g, b] = levelBytes()[Math.round(Math.min(1, Math.max(0, w)) * LEVELS)];
        image.data.set([r, g, b, 255], 4 * (i * n + j));
      }),
    );
    canvas.getContext('2d')?.putImageData(image, 0, 0);
    canvas.drawn = weights;
  }
}

/** How a role reads: "previous-token" → "previous token". */
export const roleName = (role) => role.replaceAll('-', ' ');

/** A head's short name, as every view writes it: layer 2's head 3 is "L2 H3" (0-based in). */
export const headName = (layer, head) => `L${layer + 1} H${head + 1}`;

/**
 * Every layer × head's weights as thumbnails (canvases drawn by drawThumbnails) with the core's
 * role and scores on the text and, given probe scores, the induction score on the probe. Each
 * card has a visible button, onOpen(layer, head), named by `openLabel` (the thumbnail opens it
 * too, for the mouse); given onTokens, a second opens the head in the tokens view; given
 * sentence(layer, head), one plain sentence on the head's role and score.
 */
export function headGrid({ attention, scores, probe, onOpen, openLabel = 'Open in the stepper', onTokens, sentence }) {
  return attention.map(
    (heads, l) => html`<section class="layer" data-layer=${l}>
      <h4>Layer ${l + 1}</h4>
      <ul class="heads">
        ${heads.map((weights, h) => {
          const s = scores[l][h];
          const name = headName(l, h);
          return html`<li data-layer=${l} data-head=${h} data-role-name=${s.role}>
            <canvas class="thumbnail" data-layer=${l} data-head=${h} width=${weights.length} height=${weights.length} .weights=${weights}
              aria-hidden="true" @click=${() => onOpen(l, h)}></canvas>
            <p class="role"><strong>${name}</strong> ${roleName(s.role)}</p>
            ${sentence ? html`<p class="sentence" data-role="head-sentence">${sentence(l, h)}</p>` : nothing}
            <p class="scores">previous token ${s.previousToken.toFixed(2)} · first token ${s.firstToken.toFixed(2)}</p>
            ${probe ? html`<p class="scores">induction ${probe[l][h].induction.toFixed(2)} on the probe</p>` : nothing}
            <div class="card-actions">
              <button data-control="open-head" data-layer=${l} data-head=${h} aria-label=${`${name}: ${openLabel.toLowerCase()}`} @click=${() => onOpen(l, h)}>${openLabel}</button>
              ${onTokens
                ? html`<button class="open-tokens" data-control="open-tokens" data-layer=${l} data-head=${h} aria-label=${`${name}: open in the tokens view`}
                    @click=${() => onTokens(l, h)}>Tokens view</button>`
                : nothing}
            </div>
          </li>`;
        })}
      </ul>
    </section>`,
  );
}
