/**
 * metav1.Time and metav1.MicroTime as kube decodes and writes them: Go's time.Parse with the
 * RFC3339 (`2006-01-02T15:04:05Z07:00`) and RFC3339Micro (`2006-01-02T15:04:05.000000Z07:00`)
 * layouts, with its error messages (`parsing time "now" as "2006-01-02T15:04:05Z07:00":
 * cannot parse "now" as "2006"`), and the UTC form MarshalJSON writes: whole seconds for
 * Time, six fractional digits for MicroTime, null for Go's zero time.
 */

export const rfc3339Layout = '2006-01-02T15:04:05Z07:00';
export const rfc3339MicroLayout = '2006-01-02T15:04:05.000000Z07:00';

/** Go's time quote(): quotes and backslashes escaped, controls and non-ASCII bytes as \xNN. */
function quote(s: string): string {
  let out = '"';
  for (const ch of s) {
    const c = ch.codePointAt(0)!;
    if (ch === '"' || ch === '\\') out += `\\${ch}`;
    else if (c >= 0x20 && c < 0x80) out += ch;
    else for (const b of Buffer.from(ch, 'utf8')) out += `\\x${b.toString(16).padStart(2, '0')}`;
  }
  return `${out}"`;
}

class ParseError {
  constructor(readonly message: string) {}
}

function parseError(layout: string, value: string, layoutElem: string, valueElem: string): ParseError {
  return new ParseError(`parsing time ${quote(value)} as ${quote(layout)}: cannot parse ${quote(valueElem)} as ${quote(layoutElem)}`);
}

function rangeError(value: string, what: string): ParseError {
  return new ParseError(`parsing time ${quote(value)}: ${what} out of range`);
}

const isDigitAt = (s: string, i: number) => i < s.length && s.charCodeAt(i) >= 48 && s.charCodeAt(i) <= 57;

/** Go's getnum: one or two digits (exactly two when fixed). */
function getnum(s: string, fixed: boolean): [number, string] | undefined {
  if (!isDigitAt(s, 0)) return undefined;
  if (!isDigitAt(s, 1)) {
    if (fixed) return undefined;
    return [s.charCodeAt(0) - 48, s.slice(1)];
  }
  return [(s.charCodeAt(0) - 48) * 10 + (s.charCodeAt(1) - 48), s.slice(2)];
}

function daysIn(month: number, year: number): number {
  if (month === 2) return year % 4 === 0 && (year % 100 !== 0 || year % 400 === 0) ? 29 : 28;
  return [31, 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31][month - 1];
}

export interface GoTime {
  /** Seconds since 0001-01-01T00:00:00Z (Go's absolute time base), in UTC. */
  seconds: number;
  nanos: number;
}

/** Days from 1970-01-01 to a civil date (proleptic Gregorian; any year). */
function daysFromCivil(y: number, m: number, d: number): number {
  y -= m <= 2 ? 1 : 0;
  const era = Math.floor(y / 400);
  const yoe = y - era * 400;
  const doy = Math.floor((153 * (m + (m > 2 ? -3 : 9)) + 2) / 5) + d - 1;
  const doe = yoe * 365 + Math.floor(yoe / 4) - Math.floor(yoe / 100) + doy;
  return era * 146097 + doe - 719468;
}

function civilFromDays(z: number): [number, number, number] {
  z += 719468;
  const era = Math.floor(z / 146097);
  const doe = z - era * 146097;
  const yoe = Math.floor((doe - Math.floor(doe / 1460) + Math.floor(doe / 36524) - Math.floor(doe / 146096)) / 365);
  const doy = doe - (365 * yoe + Math.floor(yoe / 4) - Math.floor(yoe / 100));
  const mp = Math.floor((5 * doy + 2) / 153);
  const d = doy - Math.floor((153 * mp + 2) / 5) + 1;
  const m = mp + (mp < 10 ? 3 : -9);
  return [yoe + era * 400 + (m <= 2 ? 1 : 0), m, d];
}

/** Unix seconds of 0001-01-01T00:00:00Z, Go's zero Time. */
const zeroUnix = daysFromCivil(1, 1, 1) * 86400;

/**
 * time.Parse(layout, value) for the two layouts kube uses; the parsed instant in UTC
 * (unix seconds and nanoseconds) or Go's error message.
 */
export function goParseTime(value: string, micro: boolean): { unix: number; nanos: number } | { error: string } {
  try {
    return parseRFC3339(value, micro);
  } catch (err) {
    if (err instanceof ParseError) return { error: err.message };
    throw err;
  }
}

function parseRFC3339(avalue: string, micro: boolean): { unix: number; nanos: number } {
  const layout = micro ? rfc3339MicroLayout : rfc3339Layout;
  let value = avalue;
  const literal = (prefix: string) => {
    for (let i = 0; i < prefix.length; i++) {
      if (value.length === 0 || value[0] !== prefix[i]) throw parseError(layout, avalue, prefix, value);
      value = value.slice(1);
    }
  };
  // Each chunk as Go's parse loop meets it: the literal before a std element, then the element.
  const num = (elem: string, fixed: boolean): number => {
    const r = getnum(value, fixed);
    if (!r) throw parseError(layout, avalue, elem, value);
    value = r[1];
    return r[0];
  };

  // 2006
  if (value.length < 4 || !isDigitAt(value, 0)) throw parseError(layout, avalue, '2006', value);
  const yearText = value.slice(0, 4);
  if (!/^\d{4}$/.test(yearText)) throw parseError(layout, avalue, '2006', value);
  const year = Number(yearText);
  value = value.slice(4);
  literal('-');
  const month = num('01', true);
  if (month <= 0 || month > 12) throw rangeError(avalue, 'month');
  literal('-');
  const day = num('02', true);
  literal('T');
  const hour = num('15', false);
  if (hour < 0 || hour >= 24) throw rangeError(avalue, 'hour');
  literal(':');
  const minute = num('04', true);
  if (minute < 0 || minute >= 60) throw rangeError(avalue, 'minute');
  literal(':');
  const second = num('05', true);
  if (second < 0 || second >= 60) throw rangeError(avalue, 'second');
  let nanos = 0;
  if (micro) {
    // stdFracSecond0 requires exactly the layout's six digits.
    if (value.length < 7) throw parseError(layout, avalue, '.000000', value);
    nanos = fraction(value, 7, layout, avalue, '.000000');
    value = value.slice(7);
  } else if (value.length >= 2 && (value[0] === '.' || value[0] === ',') && isDigitAt(value, 1)) {
    // A fraction the layout does not name is accepted after the seconds.
    let n = 2;
    while (n < value.length && isDigitAt(value, n)) n++;
    nanos = fraction(value, n, layout, avalue, '05');
    value = value.slice(n);
  }
  // Z07:00
  let offset = 0;
  if (value.length >= 1 && value[0] === 'Z') {
    value = value.slice(1);
  } else {
    if (value.length < 6 || value[3] !== ':') throw parseError(layout, avalue, 'Z07:00', value);
    const sign = value[0];
    const hh = getnum(value.slice(1, 3), true);
    const mm = getnum(value.slice(4, 6), true);
    if (!hh || !mm || (sign !== '+' && sign !== '-')) throw parseError(layout, avalue, 'Z07:00', value);
    if (hh[0] > 24) throw rangeError(avalue, 'time zone offset hour');
    if (mm[0] > 60) throw rangeError(avalue, 'time zone offset minute');
    offset = (hh[0] * 60 + mm[0]) * 60 * (sign === '-' ? -1 : 1);
    value = value.slice(6);
  }
  if (value.length !== 0) throw new ParseError(`parsing time ${quote(avalue)}: extra text: ${quote(value)}`);
  if (day < 1 || day > daysIn(month, year)) throw new ParseError(`parsing time ${quote(avalue)}: day out of range`);
  const unix = daysFromCivil(year, month, day) * 86400 + hour * 3600 + minute * 60 + second - offset;
  return { unix, nanos };
}

/** parseNanoseconds: the fraction's digits (up to nine count) as nanoseconds. */
function fraction(value: string, nbytes: number, layout: string, avalue: string, elem: string): number {
  if (value[0] !== '.' && value[0] !== ',') throw parseError(layout, avalue, elem, value);
  const digits = value.slice(1, Math.min(nbytes, 10));
  if (!/^\d+$/.test(digits)) throw parseError(layout, avalue, elem, value);
  return Number(digits.padEnd(9, '0'));
}

function pad(n: number, width: number): string {
  const s = String(Math.abs(n)).padStart(width, '0');
  return n < 0 ? `-${s}` : s;
}

/** Time.MarshalJSON's text (without quotes): UTC, whole seconds; null for the zero time. */
export function formatGoTime(t: { unix: number; nanos: number }, micro: boolean): string | null {
  if (t.unix === zeroUnix && t.nanos === 0) return null;
  const days = Math.floor(t.unix / 86400);
  const secs = t.unix - days * 86400;
  const [y, m, d] = civilFromDays(days);
  const base = `${pad(y, 4)}-${pad(m, 2)}-${pad(d, 2)}T${pad(Math.floor(secs / 3600), 2)}:${pad(Math.floor((secs % 3600) / 60), 2)}:${pad(secs % 60, 2)}`;
  return micro ? `${base}.${pad(Math.floor(t.nanos / 1000), 6)}Z` : `${base}Z`;
}

/**
 * UnmarshalJSON then MarshalJSON of a metav1.Time (micro false) or MicroTime (micro true)
 * given its decoded JSON value: the canonical string, null, or kube's error.
 */
export function canonicalTimeJSON(value: unknown, micro: boolean): string | null | { error: string } {
  if (typeof value !== 'string') {
    const type = Array.isArray(value) ? 'array' : typeof value === 'boolean' ? 'bool' : typeof value === 'object' ? 'object' : 'number';
    return { error: `json: cannot unmarshal ${type} into Go value of type string` };
  }
  const t = goParseTime(value, micro);
  if ('error' in t) return t;
  return formatGoTime(t, micro);
}
