/**
 * The schedule check of CronJob validation: robfig/cron v3's ParseStandard (five fields or a
 * `@descriptor`, an optional `TZ=`/`CRON_TZ=` prefix), returning the parser's error message,
 * which kube puts verbatim into its field error.
 */
import { parseGoDuration } from '@windlass/machinery';

interface Bounds {
  min: number;
  max: number;
  names?: Record<string, number>;
}

const minutes: Bounds = { min: 0, max: 59 };
const hours: Bounds = { min: 0, max: 23 };
const dom: Bounds = { min: 1, max: 31 };
const months: Bounds = {
  min: 1, max: 12,
  names: { jan: 1, feb: 2, mar: 3, apr: 4, may: 5, jun: 6, jul: 7, aug: 8, sep: 9, oct: 10, nov: 11, dec: 12 },
};
const dow: Bounds = { min: 0, max: 6, names: { sun: 0, mon: 1, tue: 2, wed: 3, thu: 4, fri: 5, sat: 6 } };

const descriptors = new Set(['@yearly', '@annually', '@monthly', '@weekly', '@daily', '@midnight', '@hourly']);

/** Whether Go's time.LoadLocation knows the zone: the IANA database Node carries, plus UTC and Local. */
export function isKnownTimeZone(name: string): boolean {
  if (name === '' || name === 'UTC' || name === 'Local') return true;
  try {
    new Intl.DateTimeFormat('en-US', { timeZone: name });
    return true;
  } catch {
    return false;
  }
}

/** Go's strconv.Atoi as mustParseInt uses it. */
function mustParseInt(expr: string): number {
  if (!/^[+-]?[0-9]+$/.test(expr)) throw new Error(`failed to parse int from ${expr}: strconv.Atoi: parsing ${JSON.stringify(expr)}: invalid syntax`);
  const n = Number(expr);
  if (!Number.isSafeInteger(n)) throw new Error(`failed to parse int from ${expr}: strconv.Atoi: parsing ${JSON.stringify(expr)}: value out of range`);
  if (n < 0) throw new Error(`negative number (${n}) not allowed: ${expr}`);
  return n;
}

function parseIntOrName(expr: string, names?: Record<string, number>): number {
  const named = names?.[expr.toLowerCase()];
  return named !== undefined ? named : mustParseInt(expr);
}

function checkRange(expr: string, r: Bounds): void {
  const rangeAndStep = expr.split('/');
  const lowAndHigh = rangeAndStep[0].split('-');
  let start: number;
  let end: number;
  if (lowAndHigh[0] === '*' || lowAndHigh[0] === '?') {
    start = r.min;
    end = r.max;
  } else {
    start = parseIntOrName(lowAndHigh[0], r.names);
    if (lowAndHigh.length === 1) end = start;
    else if (lowAndHigh.length === 2) end = parseIntOrName(lowAndHigh[1], r.names);
    else throw new Error(`too many hyphens: ${expr}`);
  }
  let step = 1;
  if (rangeAndStep.length === 2) {
    step = mustParseInt(rangeAndStep[1]);
    // "N/step" means "N-max/step".
    if (lowAndHigh.length === 1) end = r.max;
  } else if (rangeAndStep.length > 2) {
    throw new Error(`too many slashes: ${expr}`);
  }
  if (start < r.min) throw new Error(`beginning of range (${start}) below minimum (${r.min}): ${expr}`);
  if (end > r.max) throw new Error(`end of range (${end}) above maximum (${r.max}): ${expr}`);
  if (start > end) throw new Error(`beginning of range (${start}) beyond end of range (${end}): ${expr}`);
  if (step === 0) throw new Error(`step of range should be a positive number: ${expr}`);
}

function checkField(field: string, r: Bounds): void {
  for (const expr of field.split(',').filter((s) => s !== '')) checkRange(expr, r);
}

/** The error cron.ParseStandard returns for a schedule, or undefined when it parses. */
export function cronScheduleError(schedule: string): string | undefined {
  try {
    parseStandard(schedule);
    return undefined;
  } catch (err) {
    return (err as Error).message;
  }
}

function parseStandard(input: string): void {
  let spec = input;
  if (spec.length === 0) throw new Error('empty spec string');
  if (spec.startsWith('TZ=') || spec.startsWith('CRON_TZ=')) {
    const space = spec.indexOf(' ');
    const eq = spec.indexOf('=');
    const zone = spec.slice(eq + 1, space < 0 ? spec.length : space);
    if (!isKnownTimeZone(zone)) throw new Error(`provided bad location ${zone}: unknown time zone ${zone}`);
    spec = space < 0 ? '' : spec.slice(space).trim();
  }
  if (spec.startsWith('@')) {
    if (descriptors.has(spec)) return;
    const every = '@every ';
    if (spec.startsWith(every)) {
      try {
        parseGoDuration(spec.slice(every.length));
      } catch (err) {
        throw new Error(`failed to parse duration ${spec}: ${(err as Error).message}`);
      }
      return;
    }
    throw new Error(`unrecognized descriptor: ${spec}`);
  }
  const fields = spec.split(/[ \t\n\v\f\r\u0085\u00a0]+/).filter((f) => f !== '');
  if (fields.length !== 5) throw new Error(`expected exactly 5 fields, found ${fields.length}: [${fields.join(' ')}]`);
  checkField(fields[0], minutes);
  checkField(fields[1], hours);
  checkField(fields[2], dom);
  checkField(fields[3], months);
  checkField(fields[4], dow);
}
