// PLACEHOLDER: <attn-topic-quiz topic="…">, the short self-check quiz at the end of each view (to be written).
import { html, LitElement } from 'lit';

class TopicQuiz extends LitElement {
  static properties = { topic: { type: String } };

  render() {
    return html``;
  }
}

customElements.get('attn-topic-quiz') ?? customElements.define('attn-topic-quiz', TopicQuiz);
