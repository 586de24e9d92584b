const ESC = String.fromCharCode(27);
const UNFINISHED = new RegExp(`${ESC}(\\[[0-9;:]*)?$`);
const SGR = new RegExp(`${ESC}\\[([0-9;:]*)m`, 'g');

/**
 * xterm.js gives 24-bit colours (`ESC[38;2;r;g;bm`) a style attribute, which the console's CSP
 * refuses; the nearest of the 256 colours it draws with classes serves as well on a serial console.
 * A stream's chunks may split a sequence: the unfinished end is kept for the next chunk.
 */
export function paletteColours(): (chunk: string) => string {
  let carry = '';
  return (chunk) => {
    let text = carry + chunk;
    const open = UNFINISHED.exec(text);
    carry = open ? open[0] : '';
    if (open) text = text.slice(0, open.index);
    return text.replace(SGR, (_all, params: string) => `${ESC}[${nearest(params)}m`);
  };
}

function cube(v: number): number {
  return Math.round((Math.max(0, Math.min(255, v)) / 255) * 5);
}

/** An SGR parameter list with every 24-bit colour (`38;2;r;g;b`, `48;2;…`, or with colons) as a 256-colour one. */
function nearest(params: string): string {
  const parts = params.split(/[;:]/);
  const out: string[] = [];
  for (let i = 0; i < parts.length; i++) {
    const p = parts[i] ?? '';
    if ((p === '38' || p === '48' || p === '58') && parts[i + 1] === '2' && i + 4 < parts.length) {
      const [r, g, b] = parts.slice(i + 2, i + 5).map(Number);
      out.push(p, '5', String(16 + 36 * cube(r ?? 0) + 6 * cube(g ?? 0) + cube(b ?? 0)));
      i += 4;
    } else {
      out.push(p);
    }
  }
  return out.join(';');
}
