import fs from 'node:fs';

/** A fenced code block of a Markdown page, with its info string read as a language and attributes. */
export interface DocBlock {
  page: string;
  /** The line of its opening fence, from 1. */
  line: number;
  lang: string;
  /** `run` (a flag) or `file=tests/setup.js` (a value), in the info string after the language. */
  attrs: Readonly<Record<string, string | true>>;
  body: string;
}

/** Every fenced code block of `page`, in order (backtick or tilde fences, any length of three or more). */
export function docBlocks(page: string): DocBlock[] {
  const lines = fs.readFileSync(page, 'utf8').split('\n');
  const blocks: DocBlock[] = [];
  for (let i = 0; i < lines.length; i++) {
    const open = /^ {0,3}(`{3,}|~{3,})(.*)$/.exec(lines[i] as string);
    if (!open) continue;
    const fence = open[1] as string;
    const [lang = '', ...words] = (open[2] as string).trim().split(/\s+/);
    const attrs = Object.fromEntries(
      words.map((w) => (w.includes('=') ? [w.slice(0, w.indexOf('=')), w.slice(w.indexOf('=') + 1)] : [w, true as const])),
    );
    const start = i;
    const body: string[] = [];
    // Closed by a fence of the same character, at least as long, with nothing after it.
    const close = new RegExp(`^ {0,3}${fence[0] === '`' ? '`' : '~'}{${fence.length},}\\s*$`);
    for (i++; i < lines.length && !close.test(lines[i] as string); i++) body.push(lines[i] as string);
    blocks.push({ page, line: start + 1, lang, attrs, body: `${body.join('\n')}\n` });
  }
  return blocks;
}
