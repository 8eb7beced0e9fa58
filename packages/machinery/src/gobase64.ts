/**
 * encoding/base64 as Go decodes it: StdEncoding (how encoding/json reads a []byte field) and
 * RawURLEncoding (continue tokens), `\r` and `\n` skipped, with Go's error
 * `illegal base64 data at input byte N` at the offset Go reports.
 */

const stdAlphabet = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/';
const urlAlphabet = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_';

function decodeMap(alphabet: string): Int16Array {
  const m = new Int16Array(256).fill(-1);
  for (let i = 0; i < alphabet.length; i++) m[alphabet.charCodeAt(i)] = i;
  return m;
}

const stdMap = decodeMap(stdAlphabet);
const urlMap = decodeMap(urlAlphabet);

const illegal = (n: number) => ({ error: `illegal base64 data at input byte ${n}` });

/**
 * Go's Encoding.Decode (decodeQuantum): the bytes, or the error at the first bad input byte.
 * `padded` is StdEncoding's `=` padding; without it (RawURLEncoding) `=` is an illegal byte.
 */
export function goBase64Decode(src: Uint8Array, opts: { url?: boolean; padded?: boolean } = {}): Buffer | { error: string } {
  const map = opts.url ? urlMap : stdMap;
  const padded = opts.padded ?? !opts.url;
  const out: number[] = [];
  let si = 0;
  while (si < src.length) {
    const dbuf = [0, 0, 0, 0];
    let dlen = 4;
    let j = 0;
    let trailing: number | undefined;
    for (; j < 4; j++) {
      if (si === src.length) {
        if (j === 0) return Buffer.from(out);
        if (j === 1 || padded) return illegal(si - j);
        dlen = j;
        break;
      }
      const c = src[si++];
      const v = map[c];
      if (v >= 0) {
        dbuf[j] = v;
        continue;
      }
      if (c === 0x0a || c === 0x0d) {
        j--;
        continue;
      }
      if (!padded || c !== 0x3d) return illegal(si - 1);
      // Padding: the quantum ends here.
      if (j === 0 || j === 1) return illegal(si - 1);
      if (j === 2) {
        while (si < src.length && (src[si] === 0x0a || src[si] === 0x0d)) si++;
        if (si === src.length) return illegal(src.length);
        if (src[si] !== 0x3d) return illegal(si - 1);
        si++;
      }
      while (si < src.length && (src[si] === 0x0a || src[si] === 0x0d)) si++;
      if (si < src.length) trailing = si;
      dlen = j;
      break;
    }
    const val = (dbuf[0] << 18) | (dbuf[1] << 12) | (dbuf[2] << 6) | dbuf[3];
    const bytes = [(val >> 16) & 0xff, (val >> 8) & 0xff, val & 0xff];
    for (let k = 0; k < dlen - 1; k++) out.push(bytes[k]);
    if (trailing !== undefined) return illegal(trailing);
    if (dlen < 4) return Buffer.from(out);
  }
  return Buffer.from(out);
}

const canonicalStd = /^(?:[A-Za-z0-9+/]{4})*(?:[A-Za-z0-9+/]{2}==|[A-Za-z0-9+/]{3}=)?$/;

/**
 * A []byte field as encoding/json reads and writes it: the StdEncoding of its decoded bytes,
 * or Go's error. Strings already in canonical form are returned as they are.
 */
export function canonicalBase64JSON(s: string): string | { error: string } {
  if (canonicalStd.test(s) && zeroTrailingBits(s)) return s;
  const decoded = goBase64Decode(Buffer.from(s, 'utf8'));
  if (!Buffer.isBuffer(decoded)) return decoded;
  return decoded.toString('base64');
}

/** Whether the bits the last character carries beyond the data are zero (as encoding writes them). */
function zeroTrailingBits(s: string): boolean {
  if (!s.endsWith('=')) return true;
  const pad = s.endsWith('==') ? 2 : 1;
  const last = stdMap[s.charCodeAt(s.length - pad - 1)];
  return pad === 2 ? (last & 0x0f) === 0 : (last & 0x03) === 0;
}
