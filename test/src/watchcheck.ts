/**
 * Checks watch streams against a history of the store. resourceVersions are treated as
 * opaque strings (compared for equality only): positions in the history give the order.
 *
 * A history is an initial state (a list at `initialRv`) and the events after it, in order.
 * A watcher's stream is a series of segments (one per watch request); each segment states
 * where it started: right after an event (`rv`), after a full list (`list`, located by its
 * content), or with the server's synthetic initial state (`initial`). Every segment must be
 * exactly the history's events after its start, filtered by the watcher's namespace and
 * selectors the way kube's cacher filters them, or a prefix of that when it was cut.
 */
import type { ObjectState } from './kubehttp.js';

export type EventType = 'ADDED' | 'MODIFIED' | 'DELETED';

export interface Ev {
  type: EventType;
  obj: ObjectState;
}

export interface Filter {
  namespace?: string;
  labelSelector?: string;
  fieldSelector?: string;
}

export type SegmentStart =
  | { kind: 'rv'; rv: string }
  | { kind: 'list'; rv: string; items: ObjectState[] }
  | { kind: 'initial'; rv: '' | '0' };

export interface Segment {
  start: SegmentStart;
  events: Ev[];
  /** How it ended, for diagnostics; unset while open. */
  end?: string;
}

export const keyOf = (o: { namespace: string; name: string }): string => `${o.namespace}/${o.name}`;

function canon(o: ObjectState): string {
  const sorted = (m: Record<string, string>) => Object.fromEntries(Object.entries(m).sort(([x], [y]) => (x < y ? -1 : x > y ? 1 : 0)));
  return JSON.stringify([o.namespace, o.name, o.uid, o.resourceVersion, sorted(o.labels), sorted(o.data)]);
}

export function sameObject(a: ObjectState, b: ObjectState): boolean {
  return canon(a) === canon(b);
}

function sameContent(a: ObjectState, b: ObjectState): boolean {
  return canon({ ...a, resourceVersion: '' }) === canon({ ...b, resourceVersion: '' });
}

export function describeEvent(e: Ev | undefined): string {
  if (!e) return '(none)';
  const l = Object.entries(e.obj.labels).map(([k, v]) => `${k}=${v}`).join(',');
  return `${e.type} ${keyOf(e.obj)}@${e.obj.resourceVersion}{${l}}`;
}

// ---- selectors (the forms kube accepts; enough for the tests) ----

type Requirement = (labels: Record<string, string>) => boolean;

/** Split on commas outside parentheses. */
function splitTop(s: string): string[] {
  const parts: string[] = [];
  let depth = 0;
  let cur = '';
  for (const ch of s) {
    if (ch === '(') depth++;
    if (ch === ')') depth--;
    if (ch === ',' && depth === 0) {
      parts.push(cur);
      cur = '';
    } else cur += ch;
  }
  if (cur.trim()) parts.push(cur);
  return parts.map((p) => p.trim()).filter(Boolean);
}

export function parseLabelSelector(sel: string | undefined): Requirement {
  if (!sel || !sel.trim()) return () => true;
  const reqs: Requirement[] = splitTop(sel).map((part) => {
    let m: RegExpExecArray | null;
    if ((m = /^(\S+)\s+(in|notin)\s*\(([^)]*)\)$/.exec(part))) {
      const [, key, op, list] = m;
      const values = new Set(list.split(',').map((v) => v.trim()));
      return op === 'in' ? (l) => key in l && values.has(l[key]) : (l) => !(key in l) || !values.has(l[key]);
    }
    if ((m = /^(\S+?)\s*!=\s*(\S*)$/.exec(part))) {
      const [, key, value] = m;
      return (l) => !(key in l) || l[key] !== value;
    }
    if ((m = /^(\S+?)\s*==?\s*(\S*)$/.exec(part))) {
      const [, key, value] = m;
      return (l) => key in l && l[key] === value;
    }
    if ((m = /^!\s*(\S+)$/.exec(part))) {
      const key = m[1];
      return (l) => !(key in l);
    }
    if (/^\S+$/.test(part)) return (l) => part in l;
    throw new Error(`label selector not understood by the checker: ${part}`);
  });
  return (labels) => reqs.every((r) => r(labels));
}

export function parseFieldSelector(sel: string | undefined): (o: ObjectState) => boolean {
  if (!sel || !sel.trim()) return () => true;
  const reqs = splitTop(sel).map((part) => {
    const m = /^(metadata\.name|metadata\.namespace)\s*(!=|==|=)\s*(\S*)$/.exec(part);
    if (!m) throw new Error(`field selector not understood by the checker: ${part}`);
    const [, field, op, value] = m;
    const get = (o: ObjectState) => (field === 'metadata.name' ? o.name : o.namespace);
    return op === '!=' ? (o: ObjectState) => get(o) !== value : (o: ObjectState) => get(o) === value;
  });
  return (o) => reqs.every((r) => r(o));
}

export function matcher(f: Filter): (o: ObjectState) => boolean {
  const labels = parseLabelSelector(f.labelSelector);
  const fields = parseFieldSelector(f.fieldSelector);
  return (o) => (!f.namespace || o.namespace === f.namespace) && labels(o.labels) && fields(o);
}

// ---- history ----

interface Positioned {
  pos: number;
  ev: Ev;
}

export class History {
  /** states[p + 1] is the state after events[0..p]; states[0] the initial state. */
  private states: Map<string, ObjectState>[] = [];
  private rvPos = new Map<string, number>();
  readonly problems: string[] = [];
  private transitionCache = new Map<string, Positioned[]>();

  constructor(readonly initial: ObjectState[], readonly initialRv: string, readonly events: Ev[]) {
    let state = new Map(initial.map((o) => [keyOf(o), o]));
    this.states.push(state);
    events.forEach((e, i) => {
      const key = keyOf(e.obj);
      const rv = e.obj.resourceVersion;
      if (rv === initialRv) this.problems.push(`event ${i} ${describeEvent(e)} carries the initial list's resourceVersion`);
      if (this.rvPos.has(rv)) this.problems.push(`event ${i} ${describeEvent(e)} repeats the resourceVersion of event ${this.rvPos.get(rv)}`);
      else this.rvPos.set(rv, i);
      const prev = state.get(key);
      state = new Map(state);
      switch (e.type) {
        case 'ADDED':
          if (prev) this.problems.push(`event ${i} ${describeEvent(e)}: ADDED for an object that exists (${prev.resourceVersion})`);
          state.set(key, e.obj);
          break;
        case 'MODIFIED':
          if (!prev) this.problems.push(`event ${i} ${describeEvent(e)}: MODIFIED for an object that does not exist`);
          else if (prev.uid !== e.obj.uid) this.problems.push(`event ${i} ${describeEvent(e)}: MODIFIED changes the uid`);
          state.set(key, e.obj);
          break;
        case 'DELETED':
          if (!prev) this.problems.push(`event ${i} ${describeEvent(e)}: DELETED for an object that does not exist`);
          else if (!sameContent(prev, e.obj)) this.problems.push(`event ${i} ${describeEvent(e)}: DELETED object differs from the last state ${canon(prev)} vs ${canon(e.obj)}`);
          state.delete(key);
          break;
        default:
          this.problems.push(`event ${i}: unexpected type ${(e as Ev).type}`);
      }
      this.states.push(state);
    });
  }

  get length(): number {
    return this.events.length;
  }

  /** The state after the event at `pos` (-1: the initial state). */
  stateAt(pos: number): Map<string, ObjectState> {
    return this.states[pos + 1];
  }

  finalState(): ObjectState[] {
    return [...this.stateAt(this.events.length - 1).values()];
  }

  /** Position of the event with this resourceVersion; -1 for the initial list's. */
  positionOf(rv: string): number | undefined {
    if (rv === this.initialRv) return -1;
    return this.rvPos.get(rv);
  }

  /**
   * What a watcher with `filter` must see for every event, as kube's cacher converts them:
   * an object entering the selection is ADDED, one leaving it DELETED (previous content,
   * the event's resourceVersion).
   */
  transitions(filter: Filter): Positioned[] {
    const cacheKey = JSON.stringify(filter);
    const cached = this.transitionCache.get(cacheKey);
    if (cached) return cached;
    const match = matcher(filter);
    const out: Positioned[] = [];
    this.events.forEach((e, i) => {
      const prev = this.stateAt(i - 1).get(keyOf(e.obj));
      const cur = e.type === 'DELETED' ? undefined : e.obj;
      const prevMatches = prev !== undefined && match(prev);
      const curMatches = cur !== undefined && match(cur);
      if (curMatches) out.push({ pos: i, ev: { type: prevMatches ? 'MODIFIED' : 'ADDED', obj: cur! } });
      else if (prevMatches) out.push({ pos: i, ev: { type: 'DELETED', obj: { ...prev!, resourceVersion: e.obj.resourceVersion } } });
    });
    this.transitionCache.set(cacheKey, out);
    return out;
  }

  /** Events a watcher with `filter` must get after position `pos`. */
  expectedAfter(filter: Filter, pos: number): Ev[] {
    return this.transitions(filter).filter((t) => t.pos > pos).map((t) => t.ev);
  }

  /** Positions whose state is exactly `items` (a list's content). */
  positionsWithState(items: ObjectState[]): number[] {
    const want = new Map(items.map((o) => [keyOf(o), o]));
    const out: number[] = [];
    for (let p = -1; p < this.events.length; p++) {
      const s = this.stateAt(p);
      if (s.size !== want.size) continue;
      let same = true;
      for (const [k, o] of want) {
        const have = s.get(k);
        if (!have || !sameObject(have, o)) {
          same = false;
          break;
        }
      }
      if (same) out.push(p);
    }
    return out;
  }

  /** Problems with one segment; `final` when the watcher should have caught up completely. */
  checkSegment(filter: Filter, seg: Segment, final: boolean): string | undefined {
    const start = seg.start;
    if (start.kind === 'rv') {
      const p = this.positionOf(start.rv);
      if (p === undefined) return `starts at resourceVersion ${start.rv}, which no event of the history carries`;
      return compareStream(this.expectedAfter(filter, p), seg.events, final)?.message;
    }
    if (start.kind === 'list') {
      const candidates = this.positionsWithState(start.items);
      if (candidates.length === 0) return `starts after a list at ${start.rv} whose content matches no state of the history`;
      return best(candidates.map((p) => compareStream(this.expectedAfter(filter, p), seg.events, final)));
    }
    // Synthetic ADDED events for the state at some position, then the changes after it.
    const match = matcher(filter);
    const results: Mismatch[] = [];
    for (let p = -1; p < this.events.length; p++) {
      const initial = [...this.stateAt(p).values()].filter(match);
      const head = seg.events.slice(0, initial.length);
      const byKey = new Map(initial.map((o) => [keyOf(o), o]));
      const seen = new Set<string>();
      let bad: Mismatch | undefined;
      head.forEach((e, i) => {
        if (bad) return;
        const want = byKey.get(keyOf(e.obj));
        if (e.type !== 'ADDED' || !want || !sameObject(want, e.obj) || seen.has(keyOf(e.obj))) {
          bad = { at: i, message: `initial event ${i} ${describeEvent(e)} is not an ADDED of the state at any position (closest: after event ${p})` };
        }
        seen.add(keyOf(e.obj));
      });
      if (bad) {
        results.push(bad);
        continue;
      }
      if (head.length < initial.length) {
        if (!final) return undefined;
        results.push({ at: head.length, message: `only ${head.length} of ${initial.length} initial ADDED events` });
        continue;
      }
      const rest = compareStream(this.expectedAfter(filter, p), seg.events.slice(initial.length), final);
      if (!rest) return undefined;
      results.push({ at: rest.at + initial.length, message: `after ${initial.length} initial events: ${rest.message}` });
    }
    return best(results);
  }

  /** Problems with a watcher's segments; only the last one must have caught up. */
  checkWatcher(filter: Filter, segments: Segment[], final: boolean): string[] {
    const out: string[] = [];
    segments.forEach((seg, i) => {
      const err = this.checkSegment(filter, seg, final && i === segments.length - 1);
      if (err) out.push(`segment ${i} (${describeStart(seg.start)}, ${seg.events.length} events, ended: ${seg.end ?? 'open'}): ${err}`);
    });
    return out;
  }
}

export function describeStart(s: SegmentStart): string {
  if (s.kind === 'rv') return `from resourceVersion ${s.rv}`;
  if (s.kind === 'list') return `from a list at ${s.rv}`;
  return s.rv === '' ? 'initial state, most recent' : 'initial state, resourceVersion=0';
}

interface Mismatch {
  at: number;
  message: string;
}

function best(results: Array<Mismatch | undefined>): string | undefined {
  if (results.some((r) => r === undefined)) return undefined;
  return (results as Mismatch[]).reduce((a, b) => (b.at > a.at ? b : a)).message;
}

/** The first difference between what was expected and what came; undefined when they agree. */
export function compareStream(expected: Ev[], actual: Ev[], final: boolean): Mismatch | undefined {
  for (let i = 0; i < actual.length; i++) {
    const want = expected[i];
    const got = actual[i];
    if (!want) {
      const dup = actual.slice(0, i).some((e) => e.type === got.type && sameObject(e.obj, got.obj));
      return { at: i, message: `event ${i} ${describeEvent(got)} is extra${dup ? ' (a duplicate)' : ''}: the history has only ${expected.length} events for this watcher` };
    }
    if (want.type !== got.type || !sameObject(want.obj, got.obj)) {
      const later = expected.findIndex((e, j) => j > i && e.type === got.type && sameObject(e.obj, got.obj));
      const earlier = expected.findIndex((e, j) => j < i && e.type === got.type && sameObject(e.obj, got.obj));
      const why = later > i ? `; it is expected event ${later} (gap or reordering)` : earlier >= 0 ? `; it repeats expected event ${earlier} (duplicate)` : '';
      return { at: i, message: `event ${i}: expected ${describeEvent(want)}, got ${describeEvent(got)}${why}` };
    }
  }
  if (final && actual.length < expected.length) {
    return { at: actual.length, message: `missing ${expected.length - actual.length} events from event ${actual.length}: ${expected.slice(actual.length, actual.length + 3).map(describeEvent).join(', ')}` };
  }
  return undefined;
}
