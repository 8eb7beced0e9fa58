/**
 * go-cmp's cmp.Diff report (github.com/google/go-cmp/cmp, report_*.go), which kube embeds in
 * some immutability messages (`spec is immutable after creation except resources.requests…
 * \n  core.PersistentVolumeClaimSpec{\n  \t... // 2 identical fields\n- \tStorageClassName: …`).
 * Values are JSON objects described by Go type descriptors; the reporter follows go-cmp's
 * rules: records grouped into equal/unequal runs with two records of context, equal runs
 * elided as `... // N identical fields`, chains of single changes printed as -/+ pairs, values
 * printed with go-cmp's verbosity limits, types shown only where go-cmp shows them, keys
 * aligned, lines over 80 columns in removed/inserted values expanded.
 */
import { compareQuantities, parseQuantity, type Quantity } from './quantity.js';

export type GoType =
  | { kind: 'struct'; name: string; fields: Array<[string, string, GoType]> }
  /** A struct whose fields are taken from the JSON itself (Go name = capitalized JSON name). */
  | { kind: 'jsonstruct'; name: string }
  | { kind: 'ptr'; elem: GoType; stringer?: (v: unknown) => string }
  | { kind: 'slice'; name: string; elem: GoType }
  | { kind: 'map'; name: string; stringerKey?: boolean; elem: GoType }
  | { kind: 'string' }
  | { kind: 'int' }
  | { kind: 'bool' }
  | { kind: 'quantity' };

type Obj = Record<string, unknown>;
const isObject = (v: unknown): v is Obj => typeof v === 'object' && v !== null && !Array.isArray(v);

const acronyms: Record<string, string> = { fsType: 'FSType', volumeID: 'VolumeID', pdID: 'PDID', pdName: 'PDName', iqn: 'IQN', wwids: 'WWIDs', targetWWNs: 'TargetWWNs', diskURI: 'DataDiskURI', apiGroup: 'APIGroup', uid: 'UID', apiVersion: 'APIVersion', iscsiInterface: 'ISCSIInterface', chapAuthDiscovery: 'DiscoveryCHAPAuth', chapAuthSession: 'SessionCHAPAuth', sslEnabled: 'SSLEnabled' };
const goFieldName = (json: string): string => acronyms[json] ?? json.charAt(0).toUpperCase() + json.slice(1);

/** The types a JSON value of a jsonstruct field is given. */
function inferType(v: unknown, name: string): GoType {
  if (typeof v === 'string') return { kind: 'string' };
  if (typeof v === 'number') return { kind: 'int' };
  if (typeof v === 'boolean') return { kind: 'bool' };
  if (Array.isArray(v)) {
    if (isObject(v[0])) return { kind: 'slice', name: `[]core.${goFieldName(name)}`, elem: { kind: 'jsonstruct', name: `core.${goFieldName(name)}` } };
    return { kind: 'slice', name: '[]string', elem: { kind: 'string' } };
  }
  if (isObject(v)) return { kind: 'ptr', elem: { kind: 'jsonstruct', name: `core.${goFieldName(name)}` } };
  return { kind: 'string' };
}

function structFields(t: GoType, x: unknown, y: unknown): Array<[string, string, GoType]> {
  if (t.kind === 'struct') return t.fields;
  const keys: string[] = [];
  for (const o of [x, y]) if (isObject(o)) for (const k of Object.keys(o)) if (!keys.includes(k)) keys.push(k);
  return keys.map((k) => [goFieldName(k), k, inferType(isObject(x) && x[k] !== undefined ? x[k] : isObject(y) ? y[k] : undefined, k)]);
}

const absent = (v: unknown) => v === undefined || v === null;

/** Go's zero value test (reflect.Value.IsZero) on the JSON form. */
function isZero(t: GoType, v: unknown): boolean {
  switch (t.kind) {
    case 'string': return absent(v) || v === '';
    case 'int': return absent(v) || v === 0;
    case 'bool': return absent(v) || v === false;
    case 'quantity': return absent(v);
    case 'ptr': case 'slice': case 'map': return absent(v);
    default: return structFields(t, v, undefined).every(([, json, ft]) => isZero(ft, isObject(v) ? v[json] : undefined));
  }
}

interface Node {
  type: GoType;
  x: unknown;
  y: unknown;
  /** Both sides exist (a map entry or slice element present on one side only has one). */
  hasX: boolean;
  hasY: boolean;
  numSame: number;
  numDiff: number;
  numChildren: number;
  maxDepth: number;
  records: Array<{ key: string; node: Node }>;
  /** A pointer's pointee. */
  elem?: Node;
}

function leaf(type: GoType, x: unknown, y: unknown, equal: boolean, hasX = true, hasY = true): Node {
  return { type, x, y, hasX, hasY, numSame: equal ? 1 : 0, numDiff: equal ? 0 : 1, numChildren: 0, maxDepth: 0, records: [] };
}

function quantityOf(v: unknown): Quantity | undefined {
  return absent(v) ? undefined : parseQuantity(String(v));
}

function collect(node: Node, children: Node[]): Node {
  for (const c of children) {
    node.numSame += c.numSame;
    node.numDiff += c.numDiff;
    node.numChildren += c.numChildren + 1;
    node.maxDepth = Math.max(node.maxDepth, c.maxDepth + 1);
  }
  return node;
}

function compare(t: GoType, x: unknown, y: unknown): Node {
  switch (t.kind) {
    case 'string': return leaf(t, x, y, JSON.stringify(absent(x) ? '' : x) === JSON.stringify(absent(y) ? '' : y));
    case 'int': return leaf(t, x, y, (absent(x) ? 0 : x) === (absent(y) ? 0 : y));
    case 'bool': return leaf(t, x, y, (absent(x) ? false : x) === (absent(y) ? false : y));
    case 'quantity': {
      const qx = quantityOf(x), qy = quantityOf(y);
      return leaf(t, x, y, qx && qy ? compareQuantities(qx, qy) === 0 : !qx && !qy);
    }
    case 'ptr': {
      if (absent(x) || absent(y)) return leaf(t, x, y, absent(x) && absent(y));
      const elem = compare(t.elem, x, y);
      const node: Node = { type: t, x, y, hasX: true, hasY: true, numSame: 0, numDiff: 0, numChildren: 0, maxDepth: 0, records: [], elem };
      return collect(node, [elem]);
    }
    case 'slice': {
      const ax = Array.isArray(x) && x.length > 0 ? x : undefined, ay = Array.isArray(y) && y.length > 0 ? y : undefined;
      if (!ax || !ay) return leaf(t, x, y, !ax && !ay);
      const node: Node = { type: t, x, y, hasX: true, hasY: true, numSame: 0, numDiff: 0, numChildren: 0, maxDepth: 0, records: [] };
      const children: Node[] = [];
      for (const [ix, iy] of editScript(t.elem, ax, ay)) {
        const child = ix >= 0 && iy >= 0 ? compare(t.elem, ax[ix], ay[iy]) : leaf(t.elem, ix >= 0 ? ax[ix] : undefined, iy >= 0 ? ay[iy] : undefined, false, ix >= 0, iy >= 0);
        node.records.push({ key: '', node: child });
        children.push(child);
      }
      return collect(node, children);
    }
    case 'map': {
      const mx = isObject(x) ? x : undefined, my = isObject(y) ? y : undefined;
      if (!mx || !my) return leaf(t, x, y, !mx && !my);
      const node: Node = { type: t, x, y, hasX: true, hasY: true, numSame: 0, numDiff: 0, numChildren: 0, maxDepth: 0, records: [] };
      const keys = [...new Set([...Object.keys(mx), ...Object.keys(my)])].sort();
      const children: Node[] = [];
      for (const k of keys) {
        const inX = k in mx, inY = k in my;
        const child = inX && inY ? compare(t.elem, mx[k], my[k]) : leaf(t.elem, mx[k], my[k], false, inX, inY);
        node.records.push({ key: formatMapKey(t, k), node: child });
        children.push(child);
      }
      return collect(node, children);
    }
    default: {
      const node: Node = { type: t, x, y, hasX: true, hasY: true, numSame: 0, numDiff: 0, numChildren: 0, maxDepth: 0, records: [] };
      const children: Node[] = [];
      for (const [goName, json, ft] of structFields(t, x, y)) {
        const child = compare(ft, isObject(x) ? x[json] : undefined, isObject(y) ? y[json] : undefined);
        node.records.push({ key: goName, node: child });
        children.push(child);
      }
      return collect(node, children);
    }
  }
}

/** Pairs of indexes (−1 for none): a longest-common-subsequence alignment of equal elements. */
function editScript(elem: GoType, ax: unknown[], ay: unknown[]): Array<[number, number]> {
  const eq = (i: number, j: number) => compare(elem, ax[i], ay[j]).numDiff === 0;
  if (ax.length === ay.length) return ax.map((_, i) => [i, i]);
  const n = ax.length, m = ay.length;
  const lcs: number[][] = Array.from({ length: n + 1 }, () => new Array<number>(m + 1).fill(0));
  for (let i = n - 1; i >= 0; i--) for (let j = m - 1; j >= 0; j--) lcs[i][j] = eq(i, j) ? lcs[i + 1][j + 1] + 1 : Math.max(lcs[i + 1][j], lcs[i][j + 1]);
  const out: Array<[number, number]> = [];
  let i = 0, j = 0;
  while (i < n || j < m) {
    if (i < n && j < m && eq(i, j)) out.push([i++, j++]);
    else if (j >= m || (i < n && lcs[i + 1][j] >= lcs[i][j + 1])) out.push([i++, -1]);
    else out.push([-1, j++]);
  }
  return out;
}

// ---- text nodes (report_text.go) ----

type Text = { line: string } | { prefix: string; list: TextRecord[]; suffix: string };
interface TextRecord { diff: '' | '-' | '+'; key: string; value: Text; elideComma?: boolean; comment?: string }

const line = (s: string): Text => ({ line: s });
const ellipsis = '...';
const maxColumnLength = 80;

function isLine(t: Text): t is { line: string } {
  return 'line' in t;
}

function wrap(prefix: string, list: TextRecord[], suffix: string): Text {
  return { prefix, list, suffix };
}

/** Compacts a node to one line where go-cmp does; returns the (possibly compacted) node and its compact text. */
function compact(t: Text, d: '' | '-' | '+'): [Text, string] {
  if (isLine(t)) return [t, t.line];
  let multiLine = false;
  const parts: string[] = [];
  const list = t.list.map((r) => ({ ...r }));
  list.forEach((r, i) => {
    if (r.diff === '-' || r.diff === '+') multiLine = true;
    const [value, text] = compact(r.value, (d || r.diff) as '' | '-' | '+');
    list[i].value = value;
    if (!isLine(value) || r.comment !== undefined) multiLine = true;
    parts.push((r.key ? `${r.key}: ` : '') + text);
  });
  const body = parts.join(', ');
  if ((d === '-' || d === '+') && body.length > maxColumnLength) multiLine = true;
  const text = t.prefix + body + t.suffix;
  if (!multiLine) return [line(text), text];
  return [{ ...t, list }, text];
}

function indent(n: number, d: '' | '-' | '+'): string {
  return (d === '' ? '  ' : `${d} `) + '\t'.repeat(n);
}

function alignLens(list: TextRecord[], skip: (r: TextRecord) => boolean, len: (r: TextRecord) => number): number[] {
  const lens = new Array<number>(list.length).fill(0);
  let start = 0, end = 0, max = 0;
  const flush = () => {
    for (let j = start; j < end; j++) lens[j] = max - len(list[j]);
  };
  list.forEach((r, i) => {
    if (skip(r)) {
      flush();
      start = end = i + 1;
      max = 0;
    } else {
      max = Math.max(max, len(r));
      end = i + 1;
    }
  });
  flush();
  return lens;
}

function expand(t: Text, d: '' | '-' | '+', n: number): string {
  if (isLine(t)) return t.line;
  const list = t.list;
  const keyLens = alignLens(list, (r) => r.key === '' || !isLine(r.value), (r) => [...r.key].length);
  const simple = list.length > 0 && list.every((r) => r.diff === '' && r.key === '' && isLine(r.value) && r.comment === undefined);
  let out = t.prefix;
  if (simple) {
    let batch = '';
    const emit = () => {
      if (batch.length > 0) {
        out += `\n${indent(n + 1, d)}${batch.trimEnd()}`;
        batch = '';
      }
    };
    for (const r of list) {
      const text = (r.value as { line: string }).line;
      if (batch.length + text.length + 2 > maxColumnLength) emit();
      batch += `${text}, `;
    }
    emit();
    return `${out}\n${indent(n, d)}${t.suffix}`;
  }
  list.forEach((r, i) => {
    const rd = (d || r.diff) as '' | '-' | '+';
    out += `\n${indent(n + 1, rd)}`;
    if (r.key) out += `${r.key}: `;
    out += ' '.repeat(keyLens[i]);
    out += expand(r.value, rd, n + 1);
    if (!r.elideComma) out += ',';
    if (r.comment !== undefined) out += ` // ${r.comment}`;
  });
  return `${out}\n${indent(n, d)}${t.suffix}`;
}

// ---- value formatting (report_reflect.go) ----

type TypeMode = 'emit' | 'auto' | 'elide';
type DiffMode = 'unknown' | 'identical' | 'removed' | 'inserted';

function typeName(t: GoType): string {
  switch (t.kind) {
    case 'struct': case 'jsonstruct': case 'slice': case 'map': return t.name;
    case 'ptr': return `*${typeName(t.elem)}`;
    case 'quantity': return 'resource.Quantity';
    case 'int': return 'int32';
    case 'bool': return 'bool';
    default: return 'string';
  }
}

function goQuoteString(s: string): string {
  const q = JSON.stringify(s);
  if (q.length === s.length + 2) return q;
  if (!/[`\n]/.test(s) && /^[\P{C}\t]*$/u.test(s)) return `\`${s}\``;
  return q;
}

function formatString(prefix: string, s: string, level: number): Text {
  const maxLen = (1 << level) << 5;
  if (s.length > maxLen + ellipsis.length) return line(prefix + goQuoteString(s.slice(0, maxLen)) + ellipsis);
  return line(prefix + goQuoteString(s));
}

function withType(t: GoType, text: Text, mode: TypeMode, diff: DiffMode): Text {
  const composite = t.kind === 'struct' || t.kind === 'jsonstruct' || t.kind === 'slice' || t.kind === 'map' || t.kind === 'quantity';
  if (mode === 'elide') return text;
  if (mode === 'auto') {
    if (!composite) return text;
    if (isLine(text) && text.line === 'nil') return text;
    if (diff === 'identical') return text;
  }
  if (isLine(text)) return line(typeName(t) + text.line);
  return { ...text, prefix: typeName(t) + text.prefix };
}

/** The fields of a resource.Quantity value go-cmp prints: i (int64Amount), d (inf.Dec), s, Format; zero ones elided. */
function quantityFields(q: Quantity, diff: DiffMode, level: number): Array<[string, Text]> {
  const fields: Array<[string, Text]> = [];
  if (q.internal.kind === 'int64' && (q.internal.value !== 0n || q.internal.scale !== 0)) {
    const inner: string[] = [];
    if (q.internal.value !== 0n) inner.push(`value: ${q.internal.value}`);
    if (q.internal.scale !== 0) inner.push(`scale: ${q.internal.scale}`);
    const max = ((1 << Math.max(level - 1, 0)) >> 1) << 2;
    const body = max === 0 ? '{...}' : `{${inner.slice(0, max).join(', ')}}`;
    fields.push(['i', line(diff === 'identical' ? body : `resource.int64Amount${body}`)]);
  }
  if (q.internal.kind === 'dec') fields.push(['d', line(diff === 'identical' ? '{Dec: &{...}}' : 'resource.infDecAmount{Dec: &{...}}')]);
  if (q.cached) fields.push(['s', line(JSON.stringify(q.cached))]);
  fields.push(['Format', line(JSON.stringify(q.format))]);
  return fields;
}

/** FormatValue: a value as go-cmp prints it at a verbosity level. */
function formatValue(t: GoType, v: unknown, mode: TypeMode, diff: DiffMode, level: number): Text {
  const structMax = () => ((1 << Math.max(level, 0)) >> 1) << 2;
  switch (t.kind) {
    case 'string': return formatString('', absent(v) ? '' : String(v), level);
    case 'int': return line(String(absent(v) ? 0 : v));
    case 'bool': return line(String(absent(v) ? false : v));
    case 'ptr': {
      if (absent(v)) return line('nil');
      if (t.stringer) return formatString('s', t.stringer(v), level);
      const inner = formatValue(t.elem, v, mode, diff, level);
      return isLine(inner) ? line(`&${inner.line}`) : { ...inner, prefix: `&${inner.prefix}` };
    }
    case 'slice': {
      if (!Array.isArray(v) || v.length === 0) return line('nil');
      const max = structMax();
      const list: TextRecord[] = [];
      for (const e of v) {
        if (list.length === max) {
          list.push({ diff: '', key: '', value: line(ellipsis), elideComma: true });
          break;
        }
        list.push({ diff: '', key: '', value: formatValue(t.elem, e, 'elide', diff, level - 1) });
      }
      return withType(t, wrap('{', list, '}'), mode, diff);
    }
    case 'map': {
      if (!isObject(v)) return line('nil');
      const max = structMax();
      const list: TextRecord[] = [];
      for (const k of Object.keys(v).sort()) {
        if (list.length === max) {
          list.push({ diff: '', key: '', value: line(ellipsis), elideComma: true });
          break;
        }
        list.push({ diff: '', key: formatMapKey(t, k), value: formatValue(t.elem, v[k], 'elide', diff, level - 1) });
      }
      return withType(t, wrap('{', list, '}'), mode, diff);
    }
    case 'quantity': {
      const q = quantityOf(v) ?? parseQuantity('0')!;
      const max = structMax();
      const list: TextRecord[] = [];
      for (const [k, text] of quantityFields(q, diff, level)) {
        if (list.length === max) {
          list.push({ diff: '', key: '', value: line(ellipsis), elideComma: true });
          break;
        }
        list.push({ diff: '', key: k, value: text });
      }
      return withType(t, wrap('{', list, '}'), mode, diff);
    }
    default: {
      const max = structMax();
      const list: TextRecord[] = [];
      for (const [goName, json, ft] of structFields(t, v, undefined)) {
        const fv = isObject(v) ? v[json] : undefined;
        if (isZero(ft, fv)) continue;
        if (list.length === max) {
          list.push({ diff: '', key: '', value: line(ellipsis), elideComma: true });
          break;
        }
        list.push({ diff: '', key: goName, value: formatValue(ft, fv, 'auto', diff, level - 1) });
      }
      return withType(t, wrap('{', list, '}'), mode, diff);
    }
  }
}

function formatMapKey(t: GoType, k: string): string {
  return t.kind === 'map' && t.stringerKey ? `s${JSON.stringify(k)}` : JSON.stringify(k);
}

function statsComment(name: string, identical: number): string {
  return `${identical} identical ${name}${identical > 1 ? 's' : ''}`;
}

/** formatDiffList for a struct, slice or map node whose children differ. */
function formatDiffList(node: Node, recordKind: 'struct' | 'slice' | 'map'): Text {
  const name = recordKind === 'struct' ? 'field' : recordKind === 'slice' ? 'element' : 'entry';
  const typeMode: TypeMode = recordKind === 'struct' ? 'auto' : 'elide';
  const recs = node.records;
  // Groups of adjacent equal and unequal records.
  const groups: Array<{ equal: boolean; count: number }> = [];
  for (const r of recs) {
    const equal = r.node.numDiff === 0;
    const last = groups[groups.length - 1];
    if (last && last.equal === equal) last.count++;
    else groups.push({ equal, count: 1 });
  }
  const list: TextRecord[] = [];
  let pos = 0;
  groups.forEach((g, gi) => {
    const group = recs.slice(pos, pos + g.count);
    pos += g.count;
    if (g.equal) {
      let lo = 0, hi = 0;
      while (lo < 2 && lo + hi < g.count && gi !== 0) lo++;
      while (hi < 2 && lo + hi < g.count && gi !== groups.length - 1) hi++;
      if (g.count - (lo + hi) === 1) hi++;
      for (const r of group.slice(0, lo)) list.push({ diff: '', key: r.key, value: formatValue(r.node.type, r.node.y, typeMode, 'identical', 3) });
      if (g.count > lo + hi) list.push({ diff: '', key: '', value: line(ellipsis), elideComma: true, comment: statsComment(name, g.count - lo - hi) });
      for (const r of group.slice(g.count - hi)) list.push({ diff: '', key: r.key, value: formatValue(r.node.type, r.node.y, typeMode, 'identical', 3) });
      return;
    }
    for (const r of group) {
      if (r.node.numChildren === r.node.maxDepth) {
        if (r.node.hasX) {
          list.push({ diff: '-', key: r.key, value: formatValue(r.node.type, r.node.x, typeMode, 'removed', 3) });
        }
        if (r.node.hasY) list.push({ diff: '+', key: r.key, value: formatValue(r.node.type, r.node.y, typeMode, 'inserted', 3) });
      } else {
        list.push({ diff: '', key: r.key, value: formatDiff(r.node, typeMode) });
      }
    }
  });
  return wrap('{', list, '}');
}

/** FormatDiff of a node with differences below it. */
function formatDiff(node: Node, mode: TypeMode): Text {
  const t = node.type;
  if (t.kind === 'ptr') {
    const inner = formatDiff(node.elem!, 'auto');
    return isLine(inner) ? line(`&${inner.line}`) : { ...inner, prefix: `&${inner.prefix}` };
  }
  const kind = t.kind === 'slice' ? 'slice' : t.kind === 'map' ? 'map' : 'struct';
  const text = formatDiffList(node, kind);
  // A struct's, slice's or map's diff names its type unless elided by its parent.
  return mode === 'elide' ? text : { ...(text as { prefix: string; list: TextRecord[]; suffix: string }), prefix: typeName(t) + '{' };
}

/** cmp.Diff(x, y) for values of type t; '' when equal. */
export function goCmpDiff(t: GoType, x: unknown, y: unknown): string {
  const root = compare(t, x, y);
  if (root.numDiff === 0) return '';
  let text: Text;
  if (root.numChildren === root.maxDepth && (t.kind !== 'struct' && t.kind !== 'jsonstruct')) {
    text = wrap('', [
      { diff: '-', key: '', value: formatValue(t, x, 'elide', 'removed', 3), elideComma: true },
      { diff: '+', key: '', value: formatValue(t, y, 'elide', 'inserted', 3), elideComma: true },
    ], '');
  } else {
    text = formatDiff(root, 'emit');
  }
  const [compacted] = compact(text, '');
  return `${indent(0, '')}${expand(compacted, '', 0)}\n`;
}

// ---- the types kube diffs ----

/** The String() of a *metav1.LabelSelector (gogo-protobuf's), which go-cmp prints instead of the struct. */
export function labelSelectorString(v: unknown): string {
  const sel = isObject(v) ? v : {};
  const labels = isObject(sel.matchLabels) ? sel.matchLabels : {};
  const exprs = Array.isArray(sel.matchExpressions) ? sel.matchExpressions : [];
  const labelText = Object.keys(labels).sort().map((k) => `${k}: ${String(labels[k])},`).join('');
  const exprText = exprs.map((e) => {
    const r = isObject(e) ? e : {};
    const values = Array.isArray(r.values) ? r.values.map(String).join(' ') : '';
    return `LabelSelectorRequirement{Key:${String(r.key ?? '')},Operator:${String(r.operator ?? '')},Values:[${values}],},`;
  }).join('');
  return `&LabelSelector{MatchLabels:map[string]string{${labelText}},MatchExpressions:[]LabelSelectorRequirement{${exprText}},}`;
}

const str: GoType = { kind: 'string' };

export const labelSelectorType: GoType = {
  kind: 'struct', name: 'v1.LabelSelector', fields: [
    ['MatchLabels', 'matchLabels', { kind: 'map', name: 'map[string]string', elem: { kind: 'string' } }],
    ['MatchExpressions', 'matchExpressions', { kind: 'slice', name: '[]v1.LabelSelectorRequirement', elem: { kind: 'struct', name: 'v1.LabelSelectorRequirement', fields: [
      ['Key', 'key', { kind: 'string' }], ['Operator', 'operator', { kind: 'string' }], ['Values', 'values', { kind: 'slice', name: '[]string', elem: { kind: 'string' } }],
    ] } }],
  ],
};
const resourceList: GoType = { kind: 'map', name: 'core.ResourceList', stringerKey: true, elem: { kind: 'quantity' } };

/** The internal core.PersistentVolumeClaimSpec of kube 1.35. */
export const persistentVolumeClaimSpecType: GoType = {
  kind: 'struct', name: 'core.PersistentVolumeClaimSpec', fields: [
    ['AccessModes', 'accessModes', { kind: 'slice', name: '[]core.PersistentVolumeAccessMode', elem: str }],
    ['Selector', 'selector', { kind: 'ptr', elem: labelSelectorType, stringer: labelSelectorString }],
    ['Resources', 'resources', { kind: 'struct', name: 'core.VolumeResourceRequirements', fields: [['Limits', 'limits', resourceList], ['Requests', 'requests', resourceList]] }],
    ['VolumeName', 'volumeName', str],
    ['StorageClassName', 'storageClassName', { kind: 'ptr', elem: str }],
    ['VolumeMode', 'volumeMode', { kind: 'ptr', elem: str }],
    ['DataSource', 'dataSource', { kind: 'ptr', elem: { kind: 'struct', name: 'core.TypedLocalObjectReference', fields: [['APIGroup', 'apiGroup', { kind: 'ptr', elem: str }], ['Kind', 'kind', str], ['Name', 'name', str]] } }],
    ['DataSourceRef', 'dataSourceRef', { kind: 'ptr', elem: { kind: 'struct', name: 'core.TypedObjectReference', fields: [['APIGroup', 'apiGroup', { kind: 'ptr', elem: str }], ['Kind', 'kind', str], ['Name', 'name', str], ['Namespace', 'namespace', { kind: 'ptr', elem: str }]] } }],
    ['VolumeAttributesClassName', 'volumeAttributesClassName', { kind: 'ptr', elem: str }],
  ],
};

const pvSources: Array<[string, string, string]> = [
  ['GCEPersistentDisk', 'gcePersistentDisk', 'core.GCEPersistentDiskVolumeSource'], ['AWSElasticBlockStore', 'awsElasticBlockStore', 'core.AWSElasticBlockStoreVolumeSource'],
  ['HostPath', 'hostPath', 'core.HostPathVolumeSource'], ['Glusterfs', 'glusterfs', 'core.GlusterfsPersistentVolumeSource'], ['NFS', 'nfs', 'core.NFSVolumeSource'],
  ['RBD', 'rbd', 'core.RBDPersistentVolumeSource'], ['Quobyte', 'quobyte', 'core.QuobyteVolumeSource'], ['ISCSI', 'iscsi', 'core.ISCSIPersistentVolumeSource'],
  ['FlexVolume', 'flexVolume', 'core.FlexPersistentVolumeSource'], ['Cinder', 'cinder', 'core.CinderPersistentVolumeSource'], ['CephFS', 'cephfs', 'core.CephFSPersistentVolumeSource'],
  ['FC', 'fc', 'core.FCVolumeSource'], ['Flocker', 'flocker', 'core.FlockerVolumeSource'], ['AzureFile', 'azureFile', 'core.AzureFilePersistentVolumeSource'],
  ['VsphereVolume', 'vsphereVolume', 'core.VsphereVirtualDiskVolumeSource'], ['AzureDisk', 'azureDisk', 'core.AzureDiskVolumeSource'],
  ['PhotonPersistentDisk', 'photonPersistentDisk', 'core.PhotonPersistentDiskVolumeSource'], ['PortworxVolume', 'portworxVolume', 'core.PortworxVolumeSource'],
  ['ScaleIO', 'scaleIO', 'core.ScaleIOPersistentVolumeSource'], ['Local', 'local', 'core.LocalVolumeSource'], ['StorageOS', 'storageos', 'core.StorageOSPersistentVolumeSource'],
  ['CSI', 'csi', 'core.CSIPersistentVolumeSource'],
];

/** The internal core.PersistentVolumeSource (its sources in Go's field order; their fields from the JSON). */
export const persistentVolumeSourceType: GoType = {
  kind: 'struct', name: 'core.PersistentVolumeSource',
  fields: pvSources.map(([goName, json, name]) => [goName, json, { kind: 'ptr', elem: { kind: 'jsonstruct', name } }]),
};
