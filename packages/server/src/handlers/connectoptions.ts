/**
 * The query parameters of the connect subresources, decoded as kube's parameter codec decodes
 * them into PodLogOptions, PodExecOptions, PodAttachOptions and PodPortForwardOptions (the
 * generated url.Values conversions over runtime's and metav1's converters), and
 * ValidatePodLogOptions. A parameter that does not convert is a 400 with the converter's Go
 * error (`strconv.ParseInt: parsing "x": invalid syntax`); unknown parameters are ignored.
 */
import { fieldErr, formatGoTime, goParseTime, goQuote, newBadRequest, newInvalid, type FieldError } from '@windlass/machinery';
import { boolParam, goParseInt64 } from '../registry/queryparams.js';

/** strconv.ParseUint(s, 10, 16), as metav1's []int32 converter calls it. */
function parseGoUint16(s: string): number {
  const fn = 'strconv.ParseUint';
  if (!/^[0-9]+$/.test(s)) throw new Error(`${fn}: parsing ${goQuote(s)}: invalid syntax`);
  const v = BigInt(s);
  if (v > 65535n) throw new Error(`${fn}: parsing ${goQuote(s)}: value out of range`);
  return Number(v);
}

/** runtime.Convert_Slice_string_To_bool, absent being false. */
const goBool = (query: URLSearchParams, key: string): boolean => boolParam(query, key) ?? false;

function goInt64(query: URLSearchParams, key: string): bigint | undefined {
  const v = query.get(key);
  if (v === null) return undefined;
  const n = goParseInt64(v);
  if (typeof n === 'string') throw new Error(n);
  return n;
}

/** Runs a decoder, turning a converter's error into kube's 400 (getRequestOptions wraps it in NewBadRequest). */
function decoding<T>(decode: () => T): T {
  try {
    return decode();
  } catch (err) {
    throw newBadRequest((err as Error).message);
  }
}

export interface PodLogOptions {
  container: string;
  follow: boolean;
  previous: boolean;
  timestamps: boolean;
  sinceSeconds?: bigint;
  /** As Time.Format(time.RFC3339) writes it again for the kubelet (UTC, whole seconds). */
  sinceTime?: string;
  tailLines?: bigint;
  limitBytes?: bigint;
  insecureSkipTLSVerifyBackend: boolean;
  stream?: string;
}

/** metav1.Convert_Slice_string_To_Pointer_v1_Time: an empty value is the zero time (set, not absent). */
function sinceTimeParam(query: URLSearchParams): string | undefined {
  const v = query.get('sinceTime');
  if (v === null) return undefined;
  // UnmarshalQueryParameter: "" and "null" are the zero time.
  if (v === '' || v === 'null') return '0001-01-01T00:00:00Z';
  const t = goParseTime(v, false);
  if ('error' in t) throw new Error(t.error);
  return formatGoTime({ unix: t.unix, nanos: 0 }, false) ?? '0001-01-01T00:00:00Z';
}

export function decodePodLogOptions(query: URLSearchParams): PodLogOptions {
  return decoding(() => {
    const o: PodLogOptions = {
      container: query.get('container') ?? '',
      follow: goBool(query, 'follow'),
      previous: goBool(query, 'previous'),
      timestamps: goBool(query, 'timestamps'),
      insecureSkipTLSVerifyBackend: goBool(query, 'insecureSkipTLSVerifyBackend'),
    };
    const sinceSeconds = goInt64(query, 'sinceSeconds');
    if (sinceSeconds !== undefined) o.sinceSeconds = sinceSeconds;
    const sinceTime = sinceTimeParam(query);
    if (sinceTime !== undefined) o.sinceTime = sinceTime;
    const tailLines = goInt64(query, 'tailLines');
    if (tailLines !== undefined) o.tailLines = tailLines;
    const limitBytes = goInt64(query, 'limitBytes');
    if (limitBytes !== undefined) o.limitBytes = limitBytes;
    const stream = query.get('stream');
    if (stream !== null) o.stream = stream;
    return o;
  });
}

/**
 * kube 1.35's ValidatePodLogOptions with PodLogsQuerySplitStreams off (alpha, its default):
 * a `stream` is then forbidden. 422 PodLogOptions "<name>" is invalid.
 */
export function validatePodLogOptions(name: string, o: PodLogOptions): void {
  const errs: FieldError[] = [];
  if (o.tailLines !== undefined && o.tailLines < 0n) errs.push(fieldErr.invalid('tailLines', Number(o.tailLines), 'must be greater than or equal to 0'));
  if (o.limitBytes !== undefined && o.limitBytes < 1n) errs.push(fieldErr.invalid('limitBytes', Number(o.limitBytes), 'must be greater than 0'));
  // field.NewPath("") prints as "[]".
  if (o.sinceSeconds !== undefined && o.sinceTime !== undefined) errs.push(fieldErr.forbidden('[]', 'at most one of `sinceTime` or `sinceSeconds` may be specified'));
  else if (o.sinceSeconds !== undefined && o.sinceSeconds < 1n) errs.push(fieldErr.invalid('sinceSeconds', Number(o.sinceSeconds), 'must be greater than 0'));
  if (o.stream !== undefined) errs.push(fieldErr.forbidden('stream', 'may not be specified'));
  if (errs.length > 0) throw newInvalid({ group: '', kind: 'PodLogOptions' }, name, errs);
}

/** The kubelet's /containerLogs query, as LogLocation builds it (url.Values.Encode: keys sorted). */
export function kubeletLogQuery(o: PodLogOptions): string {
  const p = new URLSearchParams();
  if (o.follow) p.set('follow', 'true');
  if (o.limitBytes !== undefined) p.set('limitBytes', o.limitBytes.toString());
  if (o.previous) p.set('previous', 'true');
  if (o.sinceSeconds !== undefined) p.set('sinceSeconds', o.sinceSeconds.toString());
  if (o.sinceTime !== undefined) p.set('sinceTime', o.sinceTime);
  if (o.tailLines !== undefined) p.set('tailLines', o.tailLines.toString());
  if (o.timestamps) p.set('timestamps', 'true');
  return goQueryEncode(p);
}

/** Go's url.Values.Encode: keys sorted, QueryEscape (space as +). */
export function goQueryEncode(p: URLSearchParams): string {
  const keys = [...new Set(p.keys())].sort();
  const esc = (s: string) => encodeURIComponent(s).replace(/%20/g, '+').replace(/[!'()*]/g, (c) => `%${c.charCodeAt(0).toString(16).toUpperCase()}`);
  return keys.flatMap((k) => p.getAll(k).map((v) => `${esc(k)}=${esc(v)}`)).join('&');
}

/** PodExecOptions and PodAttachOptions (attach has no command). */
export interface StreamOptions {
  stdin: boolean;
  stdout: boolean;
  stderr: boolean;
  tty: boolean;
  container: string;
  command: string[];
}

export function decodeStreamOptions(query: URLSearchParams, exec: boolean): StreamOptions {
  return decoding(() => ({
    stdin: goBool(query, 'stdin'),
    stdout: goBool(query, 'stdout'),
    stderr: goBool(query, 'stderr'),
    tty: goBool(query, 'tty'),
    container: query.get('container') ?? '',
    command: exec ? query.getAll('command') : [],
  }));
}

/** The kubelet's /exec and /attach query (streamParams): input, output, error, tty as "1", then each command. */
export function kubeletStreamQuery(o: StreamOptions): string {
  const p = new URLSearchParams();
  for (const c of o.command) p.append('command', c);
  if (o.stderr) p.set('error', '1');
  if (o.stdin) p.set('input', '1');
  if (o.stdout) p.set('output', '1');
  if (o.tty) p.set('tty', '1');
  return goQueryEncode(p);
}

/** The object admission sees for a CONNECT (the options kind in v1, TypeMeta inline, Go's omitempty). */
export function streamOptionsObject(kind: 'PodExecOptions' | 'PodAttachOptions', o: StreamOptions): Record<string, unknown> {
  const obj: Record<string, unknown> = { kind, apiVersion: 'v1' };
  if (o.stdin) obj.stdin = true;
  if (o.stdout) obj.stdout = true;
  if (o.stderr) obj.stderr = true;
  if (o.tty) obj.tty = true;
  if (o.container) obj.container = o.container;
  if (kind === 'PodExecOptions') obj.command = o.command.length > 0 ? o.command : null;
  return obj;
}

/** PodPortForwardOptions.ports: every value, comma-separated lists too (metav1.Convert_Slice_string_To_Slice_int32). */
export function decodePortForwardPorts(query: URLSearchParams): number[] {
  return decoding(() => {
    const ports: number[] = [];
    for (const v of query.getAll('ports')) {
      for (const part of v.split(',')) {
        try {
          ports.push(parseGoUint16(part));
        } catch (err) {
          throw new Error(`cannot convert to []int32: ${(err as Error).message}`);
        }
      }
    }
    return ports;
  });
}

/** The kubelet's /portForward query: `port` with the ports joined by commas (api.PortHeader). */
export function kubeletPortForwardQuery(ports: number[]): string {
  return ports.length > 0 ? `port=${ports.join('%2C')}` : '';
}
