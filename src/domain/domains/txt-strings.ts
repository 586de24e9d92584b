/** The most a DNS record's data holds, in bytes. */
const MAX_RDATA_BYTES = 65535;
const MAX_STRING_BYTES = 255;

/**
 * A TXT record's text as DNS character-strings: pieces of at most 255 bytes of UTF-8, cut between
 * characters, in order. An empty text is one empty string.
 */
export function txtStrings(text: string): string[] {
  const out: string[] = [];
  let piece = '';
  let bytes = 0;
  for (const char of text) {
    const size = Buffer.byteLength(char);
    if (bytes + size > MAX_STRING_BYTES) {
      out.push(piece);
      piece = '';
      bytes = 0;
    }
    piece += char;
    bytes += size;
  }
  out.push(piece);
  return out;
}

/** Whether the strings (each with its length byte) are more than one record's data holds. */
export function txtTooLong(strings: readonly string[]): boolean {
  return strings.reduce((sum, s) => sum + 1 + Buffer.byteLength(s), 0) > MAX_RDATA_BYTES;
}
