import assert from 'node:assert/strict';
import { test } from 'node:test';
import { TerminalFilter } from '../../src/cli/terminal-filter.ts';

const ESC = '\x1b';
const BEL = '\x07';
const ST = `${ESC}\\`;

/** What the filter lets through of `chunks`, written one after another to one filter. */
function filtered(...chunks: (string | Buffer)[]): string {
  const filter = new TerminalFilter();
  return Buffer.concat(chunks.map((c) => filter.write(typeof c === 'string' ? Buffer.from(c) : c))).toString();
}

test('a window title (OSC 0, ended by BEL or ST) is dropped whole, the text around it kept', () => {
  assert.equal(filtered(`before${ESC}]0;owned by the guest${BEL}after\n`), 'before' + 'after\n');
  assert.equal(filtered(`a${ESC}]2;title${ST}b`), 'ab');
});

test('a clipboard write (OSC 52) and a hyperlink (OSC 8) are dropped', () => {
  assert.equal(filtered(`x${ESC}]52;c;${Buffer.from('rm -rf ~').toString('base64')}${ST}y`), 'xy');
  assert.equal(filtered(`${ESC}]8;;https://example.com${ST}link${ESC}]8;;${ST}`), 'link');
});

test('DCS, APC, PM and SOS strings are dropped, and so are their 8-bit (C1) forms', () => {
  assert.equal(filtered(`a${ESC}P+q544e${ST}b`), 'ab');
  assert.equal(filtered(`a${ESC}_Gf=100;AAAA${ST}b${ESC}^pm${ST}c${ESC}Xsos${ST}d`), 'abcd');
  // U+009D (OSC) ... U+009C (ST), and U+009B (CSI) with a mode change, in UTF-8.
  assert.equal(filtered('a\u009d0;title\u009cb\u009b?1049hc'), 'abc');
  // U+009B with a colour comes out as its 7-bit form.
  assert.equal(filtered('\u009b31mred'), `${ESC}[31mred`);
});

test('colours and attributes (SGR) pass, 256 and true colour included', () => {
  const coloured = `${ESC}[1;31mbold red${ESC}[0m ${ESC}[38;5;208mo${ESC}[48;2;10;20;30mt${ESC}[4:3mcurly${ESC}[m\n`;
  assert.equal(filtered(coloured), coloured);
});

test('cursor movement and erasing pass', () => {
  const moves = `${ESC}[2J${ESC}[H${ESC}[10;5Hx${ESC}[3A${ESC}[2B${ESC}[C${ESC}[4D${ESC}[K${ESC}[1J${ESC}[5G${ESC}[2X${ESC}[s${ESC}[u${ESC}7${ESC}8${ESC}M`;
  assert.equal(filtered(moves), moves);
  assert.equal(filtered('progress 10%\rprogress 20%\b\b\t\n'), 'progress 10%\rprogress 20%\b\b\t\n');
});

test('modes, reports, window operations, resets and character sets are dropped', () => {
  const dropped = [
    `${ESC}[?1049h`, // alternate screen
    `${ESC}[?1000h`, // mouse reporting
    `${ESC}[?25l`, // cursor hidden
    `${ESC}[4h`, // insert mode
    `${ESC}[6n`, // cursor position report (the terminal would answer)
    `${ESC}[c`, // device attributes
    `${ESC}[21t`, // report the window title
    `${ESC}[8;100;300t`, // resize the window
    `${ESC}[>4;2m`, // modifyOtherKeys: a private marker on m
    `${ESC}[2 q`, // cursor style: an intermediate
    `${ESC}[1;20r`, // scrolling region
    `${ESC}c`, // full reset
    `${ESC}(0`, // line drawing character set
    `${ESC}=`, // keypad mode
  ];
  assert.equal(filtered(`[${dropped.join('')}]`), '[]');
});

test('other C0 and C1 controls are dropped; BEL, tab, line ends and UTF-8 text pass', () => {
  assert.equal(filtered(`a\x00\x05\x0e\x0f\x0b\x0c\x7fb${BEL}\n`), `ab${BEL}\n`);
  assert.equal(filtered('héllo wörld ✓ 日本 \u00a0\n'), 'héllo wörld ✓ 日本 \u00a0\n');
  assert.equal(filtered('a\u0085b'), `a${ESC}Eb`, 'NEL as its 7-bit form');
  assert.equal(filtered('a\u0090q\u009cb'), 'ab', 'a DCS in C1 form');
});

test('a sequence split across chunks is recognised all the same', () => {
  assert.equal(filtered('one', ESC, ']0;ti', 'tle', BEL, 'two'), 'onetwo');
  assert.equal(filtered(`${ESC}]52;c;AAAA${ESC}`, '\\after'), 'after');
  assert.equal(filtered(ESC, '[', '3', '1', 'm', 'red'), `${ESC}[31mred`);
  assert.equal(filtered(`${ESC}[?10`, '49h', 'x'), 'x');
  // A C1 control split between its two UTF-8 bytes, and a character split the same way.
  assert.equal(filtered(Buffer.from([0x61, 0xc2]), Buffer.from([0x9d, 0x30, 0x3b, 0x74, 0x07, 0x62])), 'ab');
  assert.equal(filtered(Buffer.from([0x61, 0xc2]), Buffer.from([0xa0, 0x62])), 'a\u00a0b');
});

test('an unterminated string is let go of after 1 MiB; a runaway sequence is dropped whole', () => {
  const open = filtered(`${ESC}]0;`, 'x'.repeat(1024 * 1024), 'visible');
  assert.ok(open.endsWith('visible') && open.length < 16, open.slice(0, 32));
  assert.equal(filtered(`${ESC}[${'1;'.repeat(40)}mtext`), 'text');
});
