/**
 * JSON decoding that fails the way Go's encoding/json (and sigs.k8s.io/json) fails,
 * because kube-apiserver puts those error strings into 400 responses verbatim:
 * a byte-level port of the syntax checker in encoding/json/scanner.go, plus the
 * "cannot unmarshal X into Go value of type T" messages for the top-level shapes.
 */
import { goQuote } from '@windlass/machinery';

const maxNestingDepth = 10000;

// encoding/json quotes the offending byte as a rune, so bytes >= 0x80 show as Latin-1.
function quoteChar(c: number): string {
  if (c === 0x27) return "'\\''";
  if (c === 0x22) return `'"'`;
  const q = goQuote(String.fromCharCode(c));
  return `'${q.slice(1, -1)}'`;
}

class SyntaxError extends Error {}

const isSpace = (c: number) => c === 0x20 || c === 0x09 || c === 0x0a || c === 0x0d;
const isDigit = (c: number) => c >= 0x30 && c <= 0x39;
const isHex = (c: number) => isDigit(c) || (c >= 0x61 && c <= 0x66) || (c >= 0x41 && c <= 0x46);

/** Returns Go's syntax error message for `data`, or undefined when it is valid JSON. */
export function goJSONSyntaxError(data: Uint8Array): string | undefined {
  let i = 0;
  const n = data.length;
  const err = (c: number, context: string): never => {
    throw new SyntaxError(`invalid character ${quoteChar(c)} ${context}`);
  };
  const eof = (): never => {
    throw new SyntaxError('unexpected end of JSON input');
  };
  const skipSpace = () => {
    while (i < n && isSpace(data[i])) i++;
  };
  const literal = (word: string) => {
    for (let k = 1; k < word.length; k++) {
      if (i >= n) eof();
      if (data[i] !== word.charCodeAt(k)) err(data[i], `in literal ${word} (expecting ${quoteChar(word.charCodeAt(k))})`);
      i++;
    }
  };
  const string = () => {
    for (;;) {
      if (i >= n) eof();
      const c = data[i++];
      if (c === 0x22) return;
      if (c === 0x5c) {
        if (i >= n) eof();
        const e = data[i++];
        if (e === 0x75) {
          for (let k = 0; k < 4; k++) {
            if (i >= n) eof();
            if (!isHex(data[i])) err(data[i], 'in \\u hexadecimal character escape');
            i++;
          }
        } else if (!'"\\/bfnrt'.includes(String.fromCharCode(e))) {
          err(e, 'in string escape code');
        }
      } else if (c < 0x20) {
        err(c, 'in string literal');
      }
    }
  };
  const digits = () => {
    while (i < n && isDigit(data[i])) i++;
  };
  const number = (first: number) => {
    if (first === 0x2d) {
      if (i >= n) eof();
      if (!isDigit(data[i])) err(data[i], 'in numeric literal');
      first = data[i++];
    }
    if (first !== 0x30) digits();
    if (i < n && data[i] === 0x2e) {
      i++;
      if (i >= n) eof();
      if (!isDigit(data[i])) err(data[i], 'after decimal point in numeric literal');
      digits();
    }
    if (i < n && (data[i] === 0x65 || data[i] === 0x45)) {
      i++;
      if (i < n && (data[i] === 0x2b || data[i] === 0x2d)) i++;
      if (i >= n) eof();
      if (!isDigit(data[i])) err(data[i], 'in exponent of numeric literal');
      digits();
    }
  };
  /** After `"key"`: the colon, then the member's value follows. */
  const objectKey = () => {
    skipSpace();
    if (i >= n) eof();
    if (data[i] !== 0x22) err(data[i], 'looking for beginning of object key string');
    i++;
    string();
    skipSpace();
    if (i >= n) eof();
    if (data[i] !== 0x3a) err(data[i], 'after object key');
    i++;
  };
  // An explicit stack of open containers (0x7b or 0x5b) rather than recursion: a document may
  // nest 10000 levels, deeper than the JavaScript stack holds.
  const open: number[] = [];
  /** Go's pushParseState: past maxNestingDepth the opening bracket itself is the error. */
  const push = (c: number) => {
    if (open.length >= maxNestingDepth) err(c, 'exceeded max depth');
    open.push(c);
  };
  const value = (): void => {
    for (;;) {
      skipSpace();
      if (i >= n) eof();
      const c = data[i++];
      let closed = true;
      switch (c) {
        case 0x7b: // {
          push(c);
          skipSpace();
          if (i >= n) eof();
          if (data[i] === 0x7d) {
            i++;
            open.pop();
          } else {
            objectKey();
            closed = false;
          }
          break;
        case 0x5b: // [
          push(c);
          skipSpace();
          if (i >= n) eof();
          if (data[i] === 0x5d) {
            i++;
            open.pop();
          } else closed = false;
          break;
        case 0x22:
          string();
          break;
        case 0x74:
          literal('true');
          break;
        case 0x66:
          literal('false');
          break;
        case 0x6e:
          literal('null');
          break;
        default:
          if (c === 0x2d || isDigit(c)) number(c);
          else err(c, 'looking for beginning of value');
      }
      if (!closed) continue;
      // A value ended: close the containers it completes, then the next member or element.
      for (;;) {
        if (open.length === 0) return;
        skipSpace();
        if (i >= n) eof();
        const d = data[i++];
        if (open[open.length - 1] === 0x7b) {
          if (d === 0x7d) {
            open.pop();
            continue;
          }
          if (d !== 0x2c) err(d, 'after object key:value pair');
          objectKey();
        } else {
          if (d === 0x5d) {
            open.pop();
            continue;
          }
          if (d !== 0x2c) err(d, 'after array element');
        }
        break;
      }
    }
  };
  try {
    value();
    skipSpace();
    if (i < n) err(data[i], 'after top-level value');
    return undefined;
  } catch (e) {
    if (e instanceof SyntaxError) return e.message;
    throw e;
  }
}

/**
 * For a document JSON.parse accepted: Go's error when it nests deeper than encoding/json's
 * limit (`invalid character '[' exceeded max depth`), else undefined. Only the brackets
 * outside strings are counted, so it is cheap; a document shorter than twice the limit
 * cannot exceed it and is not read at all.
 */
export function goJSONDepthError(data: Uint8Array): string | undefined {
  if (data.length <= 2 * maxNestingDepth) return undefined;
  let depth = 0;
  for (let i = 0; i < data.length; i++) {
    const c = data[i];
    if (c === 0x22) {
      for (i++; i < data.length && data[i] !== 0x22; i++) if (data[i] === 0x5c) i++;
    } else if (c === 0x7b || c === 0x5b) {
      if (++depth > maxNestingDepth) return `invalid character ${quoteChar(c)} exceeded max depth`;
    } else if (c === 0x7d || c === 0x5d) depth--;
  }
  return undefined;
}

export type GoJSONKind = 'object' | 'array' | 'string' | 'number' | 'bool' | 'null';

/** The name encoding/json gives a JSON value in "cannot unmarshal <kind> into ..." messages. */
export function goJSONKind(v: unknown): GoJSONKind {
  if (v === null) return 'null';
  if (Array.isArray(v)) return 'array';
  switch (typeof v) {
    case 'string':
      return 'string';
    case 'number':
      return 'number';
    case 'boolean':
      return 'bool';
    default:
      return 'object';
  }
}

export type DecodeResult = { ok: true; value: unknown } | { ok: false; message: string };

/** Decodes like json.Unmarshal into interface{}: syntax errors carry Go's messages. */
export function decodeGoJSON(body: Uint8Array): DecodeResult {
  const syntax = goJSONSyntaxError(body);
  if (syntax !== undefined) return { ok: false, message: syntax };
  return { ok: true, value: JSON.parse(Buffer.from(body).toString('utf8')) };
}

export function cannotUnmarshal(v: unknown, goType: string): string {
  return `json: cannot unmarshal ${goJSONKind(v)} into Go value of type ${goType}`;
}
