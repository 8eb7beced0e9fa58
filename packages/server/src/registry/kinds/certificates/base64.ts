/**
 * []byte fields as encoding/json decodes them: strict standard base64 (newlines skipped),
 * with Go's CorruptInputError offsets, and re-encoded canonically on the way out.
 */
const alphabet = /[A-Za-z0-9+/]/;

/** The offset Go's base64.StdEncoding reports for a corrupt input, or undefined when it decodes. */
export function goBase64ErrorOffset(src: string): number | undefined {
  let si = 0;
  for (;;) {
    let j = 0;
    for (; j < 4; j++) {
      if (si === src.length) {
        if (j === 0) return undefined;
        return si - j;
      }
      const ch = src[si++];
      if (alphabet.test(ch)) continue;
      if (ch === '\n' || ch === '\r') {
        j--;
        continue;
      }
      if (ch !== '=') return si - 1;
      if (j === 0 || j === 1) return si - 1;
      if (j === 2) {
        while (si < src.length && (src[si] === '\n' || src[si] === '\r')) si++;
        if (si === src.length) return src.length;
        if (src[si] !== '=') return si - 1;
        si++;
      }
      while (si < src.length && (src[si] === '\n' || src[si] === '\r')) si++;
      return si < src.length ? si : undefined;
    }
  }
}
