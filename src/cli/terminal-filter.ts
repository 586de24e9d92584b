const ESC = 0x1b;
const BEL = 0x07;
const CAN = 0x18;
const SUB = 0x1a;
const DEL = 0x7f;
/** The lead byte of U+0080..U+00BF in UTF-8: C1 controls (U+0080..U+009F) come as 0xC2 0x80..0x9F. */
const C1_LEAD = 0xc2;

/** C0 controls that move the cursor or ring the bell: backspace, tab, line feed, carriage return. */
const KEPT_CONTROLS = new Set([0x08, 0x09, 0x0a, 0x0d, BEL]);
/**
 * CSI finals kept: colours and attributes (m), cursor movement (A B C D E F G H a d e f `, s and u
 * save and restore it) and erasing or shifting what is on the screen (J K X L M P @ S T). Modes (h
 * l), reports (n c t), scrolling regions, cursor styles and the like stay out: they change the
 * terminal past the session or make it answer.
 */
const KEPT_CSI = new Set('mABCDEFGHadef`suJKXLMP@ST');
/** Two-byte escapes kept: save and restore the cursor (7 8), index, next line and reverse index (D E M). */
const KEPT_ESC = new Set('78DEM');
/** Escapes that open a string (OSC, DCS, SOS, PM, APC), dropped whole up to its terminator. */
const STRING_OPENERS = new Set(']PX^_');
/** A control sequence longer than this is no sequence a console prints: it is read to its end and dropped. */
const MAX_SEQUENCE = 64;
/** A string left open this long is let go of: what follows prints as the text it is. */
const MAX_STRING = 1024 * 1024;

type State = 'ground' | 'c1' | 'escape' | 'escapeIntermediate' | 'csi' | 'string' | 'stringEscape';

/**
 * What a guest prints, made safe for the user's terminal: text, colours and cursor movement pass;
 * other control sequences are dropped whole (OSC: window titles, clipboard writes, hyperlinks; DCS,
 * APC, PM, SOS; modes, reports, resets, character sets), and so are the C0 and C1 controls but
 * backspace, tab, line feed, carriage return and the bell. It keeps its state between chunks, so a
 * sequence split across two is recognised all the same.
 */
export class TerminalFilter {
  #state: State = 'ground';
  /** The sequence being read (CSI, escape with intermediates), kept until it is known whole. */
  #sequence: number[] = [];
  #stringLength = 0;
  #stringLastByte = 0;

  /** The part of `chunk` that may reach the terminal (a sequence it ends in the middle of comes out with the next chunk). */
  write(chunk: Uint8Array): Buffer {
    const out: number[] = [];
    for (const byte of chunk) this.#take(byte, out);
    return Buffer.from(out);
  }

  #take(byte: number, out: number[]): void {
    switch (this.#state) {
      case 'ground':
        this.#ground(byte, out);
        break;
      case 'c1':
        this.#state = 'ground';
        // U+0080..U+009F, the 8-bit forms of ESC followed by 0x40..0x5F.
        if (byte >= 0x80 && byte <= 0x9f) {
          this.#escape(byte - 0x40, out);
        } else {
          out.push(C1_LEAD);
          this.#ground(byte, out);
        }
        break;
      case 'escape':
        this.#escape(byte, out);
        break;
      case 'escapeIntermediate':
        this.#escapeIntermediate(byte, out);
        break;
      case 'csi':
        this.#csi(byte, out);
        break;
      case 'string':
        this.#string(byte);
        break;
      case 'stringEscape':
        // ST (ESC \) ends the string; any other escape ends it too and starts afresh.
        this.#state = 'ground';
        if (byte !== 0x5c) this.#escape(byte, out);
        break;
    }
  }

  #ground(byte: number, out: number[]): void {
    if (byte === ESC) {
      this.#state = 'escape';
    } else if (byte === C1_LEAD) {
      this.#state = 'c1';
    } else if (byte < 0x20 || byte === DEL) {
      if (KEPT_CONTROLS.has(byte)) out.push(byte);
    } else {
      out.push(byte);
    }
  }

  /** The byte after ESC (or the 7-bit form of a C1 control). */
  #escape(byte: number, out: number[]): void {
    this.#state = 'ground';
    if (byte === 0x5b) {
      this.#state = 'csi';
      this.#sequence = [];
    } else if (STRING_OPENERS.has(String.fromCharCode(byte))) {
      this.#state = 'string';
      this.#stringLength = 0;
      this.#stringLastByte = 0;
    } else if (byte === ESC) {
      this.#state = 'escape';
    } else if (byte >= 0x20 && byte <= 0x2f) {
      // ESC ( 0 and the like (character sets): dropped with their final byte.
      this.#state = 'escapeIntermediate';
      this.#sequence = [byte];
    } else if (KEPT_ESC.has(String.fromCharCode(byte))) {
      out.push(ESC, byte);
    } else if (byte < 0x20 || byte >= 0x80) {
      // A control in the middle of an escape is carried out (or dropped) as on its own; text stays whole.
      this.#ground(byte, out);
    }
  }

  #escapeIntermediate(byte: number, out: number[]): void {
    if (byte >= 0x20 && byte <= 0x2f && this.#sequence.length < MAX_SEQUENCE) {
      this.#sequence.push(byte);
      return;
    }
    this.#state = 'ground';
    if (byte === ESC || byte < 0x20) this.#ground(byte, out);
  }

  #csi(byte: number, out: number[]): void {
    if (byte >= 0x40 && byte <= 0x7e) {
      this.#state = 'ground';
      if (this.#sequence.length <= MAX_SEQUENCE && this.#keptCsi(byte)) out.push(ESC, 0x5b, ...this.#sequence, byte);
      return;
    }
    if (byte >= 0x20 && byte <= 0x3f) {
      // Past the limit only its length grows: the sequence is dropped at its final byte.
      if (this.#sequence.length <= MAX_SEQUENCE) this.#sequence.push(byte);
      return;
    }
    // Not a sequence after all: dropped, and the byte read as on its own.
    this.#state = 'ground';
    if (byte === CAN || byte === SUB) return;
    if (byte < 0x20 || byte === ESC) this.#ground(byte, out);
  }

  /** Plain parameters only (digits, `;`, `:`): no private marker (`?`, `>`...) and no intermediate. */
  #keptCsi(final: number): boolean {
    if (!KEPT_CSI.has(String.fromCharCode(final))) return false;
    return this.#sequence.every((b) => (b >= 0x30 && b <= 0x39) || b === 0x3b || (b === 0x3a && final === 0x6d));
  }

  #string(byte: number): void {
    this.#stringLength += 1;
    // ST is ESC \, or U+009C (0xC2 0x9C); OSC ends at BEL too, and CAN or SUB cancel any string.
    const st = this.#stringLastByte === C1_LEAD && byte === 0x9c;
    this.#stringLastByte = byte;
    if (byte === ESC) this.#state = 'stringEscape';
    else if (st || byte === BEL || byte === CAN || byte === SUB || this.#stringLength > MAX_STRING) this.#state = 'ground';
  }
}
