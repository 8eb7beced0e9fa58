/** Go's time.ParseDuration (pflag duration flags, the `timeout` query parameter), in milliseconds; throws with Go's message. */
const unitsMs: Record<string, number> = { ns: 1e-6, us: 1e-3, 'µs': 1e-3, 'μs': 1e-3, ms: 1, s: 1000, m: 60_000, h: 3_600_000 };

export function parseGoDuration(value: string): number {
  const quoted = JSON.stringify(value);
  let rest = value;
  let sign = 1;
  if (rest.startsWith('-') || rest.startsWith('+')) {
    if (rest[0] === '-') sign = -1;
    rest = rest.slice(1);
  }
  if (rest === '0') return 0;
  if (rest === '') throw new Error(`time: invalid duration ${quoted}`);
  let ms = 0;
  while (rest !== '') {
    const [whole, num, unit] = /^(\d*(?:\.\d*)?)([^\d.]*)/.exec(rest)!;
    if (num === '' || num === '.') throw new Error(`time: invalid duration ${quoted}`);
    if (unit === '') throw new Error(`time: missing unit in duration ${quoted}`);
    const scale = unitsMs[unit];
    if (scale === undefined) throw new Error(`time: unknown unit ${JSON.stringify(unit)} in duration ${quoted}`);
    ms += Number(num) * scale;
    rest = rest.slice(whole.length);
  }
  return sign * ms;
}
