/**
 * xterm.js writes its theme, cell sizes and scrollbar colours into `<style>` elements, which the
 * console's CSP (`style-src 'self'`) refuses. While a terminal lives, `document.createElement('style')`
 * makes a `<cumulo-sheet>` instead: xterm sets its text as it would a style element's, and the text
 * goes into a constructed stylesheet the document adopts (CSSOM, which the CSP allows). The element
 * itself is hidden (node-parts.css) and its sheet leaves the document with it.
 */
class SheetElement extends HTMLElement {
  readonly sheet = new CSSStyleSheet();
  text = '';
  connectedCallback() {
    document.adoptedStyleSheets = [...document.adoptedStyleSheets, this.sheet];
  }
  disconnectedCallback() {
    document.adoptedStyleSheets = document.adoptedStyleSheets.filter((s) => s !== this.sheet);
  }
}
// `textContent` is a property of Node in TypeScript's view: set as an accessor on the prototype.
Object.defineProperty(SheetElement.prototype, 'textContent', {
  get(this: SheetElement) {
    return this.text;
  },
  set(this: SheetElement, value: string | null) {
    this.text = value ?? '';
    this.sheet.replaceSync(this.text);
  },
});

const TAG = 'cumulo-sheet';
let users = 0;

/** Makes xterm's style elements stylesheets the CSP allows, until the returned function is called. */
export function adoptTerminalStyles(): () => void {
  if (!customElements.get(TAG)) customElements.define(TAG, SheetElement);
  if (users === 0) {
    const create = Document.prototype.createElement;
    Object.defineProperty(document, 'createElement', {
      configurable: true,
      value: function createElement(this: Document, tag: string, options?: ElementCreationOptions) {
        return tag.toLowerCase() === 'style' ? new SheetElement() : create.call(this, tag, options);
      },
    });
  }
  users += 1;
  return () => {
    users -= 1;
    if (users === 0) Reflect.deleteProperty(document, 'createElement');
  };
}
