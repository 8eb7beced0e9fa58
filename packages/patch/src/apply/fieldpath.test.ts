// Cases from structured-merge-diff's fieldpath/*_test.go (v6, HEAD of 2026-07).
import { FieldSet, PathElement, makePath, pathToString, type Path } from './fieldpath.js';
import { deserializePathElement, fieldSetFromJSON, fieldSetToJSON, serializePathElement } from './serialize.js';
import type { JsonValue } from './types.js';

const K = PathElement.keyByFields;
const V = PathElement.value;
const P = makePath;
const S = (...paths: Path[]) => FieldSet.of(...paths);

describe('PathElement order', () => {
  // (a, b, eq): a < b unless eq.
  const table: [string, PathElement, PathElement, boolean][] = [
    ['FieldName-1', PathElement.field('anteater'), PathElement.field('zebra'), false],
    ['FieldName-2', PathElement.field('bee'), PathElement.field('bee'), true],
    ['FieldName-3', PathElement.field('capybara'), K('dog', 3), false],
    ['FieldName-4', PathElement.field('elephant'), V(4), false],
    ['FieldName-5', PathElement.field('falcon'), PathElement.index(5), false],
    ['Key-1', K('goat', 1), K('goat', 1), true],
    ['Key-2', K('horse', 1), K('horse', 2), false],
    ['Key-3', K('ibex', 1), K('jay', 1), false],
    ['Key-4', K('kite', 1), K('kite', 1, 'kite-2', 1), false],
    ['Key-5', K('kite', 1), V(1), false],
    ['Key-6', K('kite', 1), PathElement.index(5), false],
    ['Value-1', V(1), V(2), false],
    ['Value-2', V(1), V(1), true],
    ['Value-3', V(1), PathElement.index(1), false],
    ['Index-1', PathElement.index(1), PathElement.index(2), false],
    ['Index-2', PathElement.index(1), PathElement.index(1), true],
  ];
  test.each(table)('%s', (_name, a, b, eq) => {
    if (eq) {
      expect(a.compare(b)).toBe(0);
      expect(b.compare(a)).toBe(0);
      expect(a.equals(b)).toBe(true);
    } else {
      expect(a.compare(b)).toBe(-1);
      expect(b.compare(a)).toBe(1);
      expect(a.equals(b)).toBe(false);
    }
  });

  test('values order numbers < strings < booleans < lists < maps < null, ints and floats together', () => {
    const vals: JsonValue[] = [-1, 1.5, 2, 'a', 'b', false, true, [1], [1, 2], [2], {}, { a: 1 }, { b: 1 }, null];
    for (let i = 0; i + 1 < vals.length; i++) expect(V(vals[i]).compare(V(vals[i + 1]))).toBe(-1);
  });

  test('field names compare by code point, as Go compares UTF-8 bytes', () => {
    // U+FF5E (3 UTF-8 bytes) sorts before U+1F600 (4 bytes) in Go; UTF-16 would say otherwise.
    expect(PathElement.field('\uff5e').compare(PathElement.field('😀'))).toBe(-1);
  });
});

describe('Path.String', () => {
  test.each([
    ['basic1', P('foo', 1), '.foo[1]'],
    ['basic2', P('foo', 'bar', 1, 'baz'), '.foo.bar[1].baz'],
    ['associative-list-ref', P('foo', K('a', 'b', 'c', 1, 'd', 1.5, 'e', true)), '.foo[a="b",c=1,d=1.5,e=true]'],
    ['sets', P('foo', V('b'), V(5), V(false), V(3.14159)), '.foo[="b"][=5][=false][=3.14159]'],
    ['simple field', P('spec'), '.spec'],
    ['app container image', P('spec', 'apps', K('name', 'app-🚀'), 'container', 'image'), '.spec.apps[name="app-🚀"].container.image'],
    [
      'app port',
      P('spec', 'apps', K('name', 'app-💻'), 'container', 'ports', K('name', 'port-🔑'), 'containerPort'),
      '.spec.apps[name="app-💻"].container.ports[name="port-🔑"].containerPort',
    ],
    ['field with space', P('spec', 'field with space'), '.spec.field with space'],
    ['value with space', P('spec', 'apps', V('app with space'), 'container', 'image'), '.spec.apps[="app with space"].container.image'],
    ['value with quotes', P('spec', 'apps', V('app with "quotes"'), 'container', 'image'), '.spec.apps[="app with \\"quotes\\""].container.image'],
    ['value with unicode', P('spec', 'apps', V('app-with-unicøde'), 'container', 'image'), '.spec.apps[="app-with-unicøde"].container.image'],
    ['null and float exponent', P(V(null), V(1234567.5), V(0.00001)), '[=null][=1.2345675e+06][=1e-05]'],
  ])('%s', (_n, path, want) => {
    expect(pathToString(path)).toBe(want);
  });
});

describe('FieldSet', () => {
  test('insert and has', () => {
    const s1 = S(
      P('foo', 0, 'bar', 'baz'),
      P('foo', 0, 'bar'),
      P('foo', 0),
      P('foo', 1, 'bar', 'baz'),
      P('foo', 1, 'bar'),
      P('qux', K('name', 'first')),
      P('qux', K('name', 'first'), 'bar'),
      P('qux', K('name', 'second'), 'bar'),
      P('canonicalOrder', K('a', 'a', 'b', 'a', 'c', 'a', 'd', 'a', 'e', 'a', 'f', 'a')),
    );
    const table: [Path, boolean][] = [
      [P('qux', K('name', 'second')), false],
      [P('qux', K('name', 'second'), 'bar'), true],
      [P('qux', K('name', 'first')), true],
      [P('xuq', K('name', 'first')), false],
      [P('foo', 0), true],
      [P('foo', 0, 'bar'), true],
      [P('foo', 0, 'bar', 'baz'), true],
      [P('foo', 1), false],
      [P('foo', 1, 'bar'), true],
      [P('foo', 1, 'bar', 'baz'), true],
      [P('canonicalOrder', K('f', 'a', 'e', 'a', 'd', 'a', 'c', 'a', 'b', 'a', 'a', 'a')), true],
    ];
    for (const [p, want] of table) expect([pathToString(p), s1.has(p)]).toEqual([pathToString(p), want]);
    expect(S().has([])).toBe(false);
    expect(S([]).has([])).toBe(false);
  });

  test('String of a one-path set is the path', () => {
    const p = P('foo', K('name', 'first'));
    expect(S(p).toString()).toBe(pathToString(p));
  });

  test('iterate, size and empty agree', () => {
    const s1 = S(
      P('foo', 0, 'bar', 'baz'),
      P('foo', 0, 'bar', 'zot'),
      P('foo', 0, 'bar'),
      P('foo', 0),
      P('foo', 1, 'bar', 'baz'),
      P('foo', 1, 'bar'),
      P('qux', K('name', 'first')),
      P('qux', K('name', 'first'), 'bar'),
      P('qux', K('name', 'second'), 'bar'),
    );
    const s2 = new FieldSet();
    let added = 0;
    s1.iterate((p) => {
      expect(s2.size()).toBe(added);
      expect(s2.empty()).toBe(added === 0);
      s2.insert(p);
      added++;
    });
    expect(added).toBe(9);
    expect(s1.equals(s2)).toBe(true);
    expect(s1.paths().map(pathToString)).toEqual([
      '.foo[0]',
      '.foo[0].bar',
      '.foo[0].bar.baz',
      '.foo[0].bar.zot',
      '.foo[1].bar',
      '.foo[1].bar.baz',
      '.qux[name="first"]',
      '.qux[name="first"].bar',
      '.qux[name="second"].bar',
    ]);
  });

  test('equals', () => {
    const table: [FieldSet, FieldSet, boolean][] = [
      [S(P('foo')), S(P('bar')), false],
      [S(P('foo')), S(P('foo')), true],
      [S(), S(P(0, 'foo')), false],
      [S(P(1, 'foo')), S(P(0, 'foo')), false],
      [S(P(1, 'foo')), S(P(1, 'foo', 'bar')), false],
      [S(P(0), P(1)), S(P(1), P(0)), true],
      [S(P('foo', 0), P('foo', 1)), S(P('foo', 1), P('foo', 0)), true],
      [
        S(P('foo', 0), P('foo'), P('bar', 'baz'), P('qux', K('name', 'first'))),
        S(P('foo', 1), P('bar', 'baz'), P('bar'), P('qux', K('name', 'second'))),
        false,
      ],
    ];
    for (const [a, b, eq] of table) expect(a.equals(b)).toBe(eq);
  });

  test('union', () => {
    const s1 = S(P('foo', 0), P('foo'), P('bar', 'baz'), P('qux', K('name', 'first')), P('parent', 'child', 'grandchild'));
    const s2 = S(P('foo', 1), P('bar', 'baz'), P('bar'), P('qux', K('name', 'second')), P('parent', 'child'));
    const u = S(
      P('foo', 0),
      P('foo', 1),
      P('foo'),
      P('bar', 'baz'),
      P('bar'),
      P('qux', K('name', 'first')),
      P('qux', K('name', 'second')),
      P('parent', 'child'),
      P('parent', 'child', 'grandchild'),
    );
    expect(s1.union(s2).equals(u)).toBe(true);
  });

  describe('intersection and difference', () => {
    const nameFirst = K('name', 'first');
    const s1 = S(P('a0'), P('a1'), P('foo', 0), P('foo', 1), P('b0', nameFirst), P('b1', nameFirst), P('bar', 'c0'), P('cp', nameFirst, 'child'));
    const s2 = S(P('a1'), P('a2'), P('foo', 1), P('foo', 2), P('b1', nameFirst), P('b2', nameFirst), P('bar', 'c2'), P('cp', nameFirst));
    const i = S(P('a1'), P('foo', 1), P('b1', nameFirst));
    test('intersection', () => expect(s1.intersection(s2).equals(i)).toBe(true));
    test('s1 - s2', () =>
      expect(s1.difference(s2).equals(S(P('a0'), P('foo', 0), P('b0', nameFirst), P('bar', 'c0'), P('cp', nameFirst, 'child')))).toBe(true));
    test('s2 - s1', () =>
      expect(s2.difference(s1).equals(S(P('a2'), P('foo', 2), P('b2', nameFirst), P('bar', 'c2'), P('cp', nameFirst)))).toBe(true));
    test('intersection the hard way', () => {
      const u = s1.union(s2);
      const not = s2.difference(s1).union(s1.difference(s2));
      expect(u.difference(not).equals(i)).toBe(true);
    });
  });

  test.each([
    ['empty set', S(), S()],
    ['all leaves', S(P('path1'), P('path2'), P('path3')), S(P('path1'), P('path2'), P('path3'))],
    ['only one leaf', S(P('root'), P('root', 'l1'), P('root', 'l1', 'l2'), P('root', 'l1', 'l2', 'l3')), S(P('root', 'l1', 'l2', 'l3'))],
    [
      'multiple values, check for overwrite',
      S(P('root', K('name', 'a')), P('root', K('name', 'a'), 'name'), P('root', K('name', 'a'), 'value', 'b'), P('root', K('name', 'a'), 'value', 'c')),
      S(P('root', K('name', 'a'), 'name'), P('root', K('name', 'a'), 'value', 'b'), P('root', K('name', 'a'), 'value', 'c')),
    ],
    [
      'all-in-one',
      S(
        P('root'),
        P('root', K('name', 'a')),
        P('root', K('name', 'a'), 'name'),
        P('root', K('name', 'a'), 'value', 'b'),
        P('root', K('name', 'a'), 'value', 'b', 'c'),
        P('root', K('name', 'a'), 'value', 'd'),
        P('root', K('name', 'a'), 'value', 'e'),
        P('root', 'x'),
        P('root', 'x', 'y'),
        P('root', 'x', 'z'),
        P('root', K('name', 'p')),
        P('root', K('name', 'p'), 'name'),
        P('root', K('name', 'p'), 'value', 'q'),
      ),
      S(
        P('root', K('name', 'a'), 'name'),
        P('root', K('name', 'a'), 'value', 'b', 'c'),
        P('root', K('name', 'a'), 'value', 'd'),
        P('root', K('name', 'a'), 'value', 'e'),
        P('root', 'x', 'y'),
        P('root', 'x', 'z'),
        P('root', K('name', 'p'), 'name'),
        P('root', K('name', 'p'), 'value', 'q'),
      ),
    ],
  ])('leaves: %s', (_n, input, want) => {
    expect(input.leaves().paths().map(pathToString)).toEqual(want.paths().map(pathToString));
  });

  test.each([
    ['removes simple path', S(P('a')), S(P('a')), S(), S()],
    ['removes direct path', S(P('a', 'b', 'c')), S(P('a', 'b', 'c')), S(), S()],
    ['only removes matching child', S(P('a', 'b', 'c'), P('b', 'b', 'c')), S(P('a', 'b', 'c')), S(P('b', 'b', 'c')), S(P('b', 'b', 'c'))],
    ['does not remove parent of specific path', S(P('a')), S(P('a', 'aa')), S(P('a')), S(P('a'))],
    ['RecursiveDifference removes nested path', S(P('a', 'b', 'c')), S(P('a')), S(P('a', 'b', 'c')), S()],
    [
      'RecursiveDifference only removes nested path for matching children',
      S(P('a', 'aa', 'aab'), P('a', 'ab', 'aba')),
      S(P('a', 'aa')),
      S(P('a', 'aa', 'aab'), P('a', 'ab', 'aba')),
      S(P('a', 'ab', 'aba')),
    ],
    [
      'RecursiveDifference removes all matching children',
      S(P('a', 'aa', 'aab'), P('a', 'ab', 'aba')),
      S(P('a')),
      S(P('a', 'aa', 'aab'), P('a', 'ab', 'aba')),
      S(),
    ],
  ])('difference: %s', (_n, a, b, diff, rdiff) => {
    expect(a.difference(b).equals(diff)).toBe(true);
    expect(a.recursiveDifference(b).equals(rdiff)).toBe(true);
  });
});

describe('FieldsV1', () => {
  const golden = [
    `{"f:aaa":{},"f:aab":{},"f:aac":{},"f:aad":{},"f:aae":{},"f:aaf":{},"k:{\\"name\\":\\"first\\"}":{},"k:{\\"name\\":\\"second\\"}":{},"k:{\\"port\\":443,\\"protocol\\":\\"tcp\\"}":{},"k:{\\"port\\":443,\\"protocol\\":\\"udp\\"}":{},"v:1":{},"v:2":{},"v:3":{},"v:\\"aa\\"":{},"v:\\"ab\\"":{},"v:true":{},"i:1":{},"i:2":{},"i:3":{},"i:4":{}}`,
    `{"f:aaa":{"k:{\\"name\\":\\"second\\"}":{"v:3":{"f:aab":{}}},"v:3":{},"v:true":{}},"f:aab":{"f:aaa":{},"f:aaf":{"k:{\\"port\\":443,\\"protocol\\":\\"udp\\"}":{"k:{\\"port\\":443,\\"protocol\\":\\"tcp\\"}":{}}},"k:{\\"name\\":\\"first\\"}":{}},"f:aac":{"f:aaa":{"v:1":{}},"f:aac":{},"v:3":{"k:{\\"name\\":\\"second\\"}":{}}},"f:aad":{"f:aac":{"v:1":{}},"f:aaf":{"k:{\\"name\\":\\"first\\"}":{"k:{\\"name\\":\\"first\\"}":{}}},"i:1":{"i:1":{},"i:3":{"v:true":{}}}},"f:aae":{"f:aae":{},"k:{\\"port\\":443,\\"protocol\\":\\"tcp\\"}":{"k:{\\"port\\":443,\\"protocol\\":\\"udp\\"}":{}},"i:4":{"f:aaf":{}}},"f:aaf":{"i:1":{"f:aac":{}},"i:2":{},"i:3":{}},"k:{\\"name\\":\\"first\\"}":{"f:aad":{"f:aaf":{}}},"k:{\\"port\\":443,\\"protocol\\":\\"tcp\\"}":{"f:aaa":{"f:aad":{}}},"k:{\\"port\\":443,\\"protocol\\":\\"udp\\"}":{"f:aac":{},"k:{\\"name\\":\\"first\\"}":{"i:3":{}},"k:{\\"port\\":443,\\"protocol\\":\\"udp\\"}":{"i:4":{}}},"v:1":{"f:aac":{"i:4":{}},"f:aaf":{},"k:{\\"port\\":443,\\"protocol\\":\\"tcp\\"}":{}},"v:2":{"f:aad":{"f:aaf":{}},"i:1":{}},"v:3":{"f:aaa":{},"k:{\\"name\\":\\"first\\"}":{},"i:2":{}},"v:\\"aa\\"":{"f:aab":{"f:aaf":{}},"f:aae":{},"k:{\\"name\\":\\"first\\"}":{"f:aad":{}},"i:2":{}},"v:\\"ab\\"":{"f:aaf":{"i:4":{}},"k:{\\"port\\":443,\\"protocol\\":\\"tcp\\"}":{},"k:{\\"port\\":443,\\"protocol\\":\\"udp\\"}":{},"v:1":{"k:{\\"port\\":443,\\"protocol\\":\\"udp\\"}":{}},"i:1":{"f:aae":{"i:4":{}}}},"v:true":{"k:{\\"name\\":\\"second\\"}":{"f:aaa":{}},"i:2":{"k:{\\"port\\":443,\\"protocol\\":\\"tcp\\"}":{}}},"i:1":{"i:3":{"f:aaf":{}}},"i:2":{"f:aae":{},"k:{\\"port\\":443,\\"protocol\\":\\"tcp\\"}":{"v:1":{}}},"i:3":{"f:aab":{"v:true":{"v:\\"aa\\"":{}}},"f:aaf":{},"i:1":{}},"i:4":{"v:\\"aa\\"":{"f:aab":{"k:{\\"name\\":\\"second\\"}":{}}}}}`,
    `{"f:spec":{".":{},"f:apps":{".":{},"k:{\\"name\\":\\" app-💻\\"}":{".":{},"f:container":{".":{},"f:image":{},"f:name":{},"f:ports":{".":{},"k:{\\"name\\":\\"port 🔑\\"}":{".":{},"f:containerPort":{},"f:name":{}}}},"f:name":{}},"k:{\\"name\\":\\" app-🚀\\"}":{".":{},"f:container":{".":{},"f:image":{},"f:name":{},"f:ports":{".":{},"k:{\\"name\\":\\"port-✅ \\"}":{".":{},"f:containerPort":{},"f:name":{}}}},"f:name":{}}}}}`,
  ];
  test.each(golden.map((g, i) => [i, g]))('golden %s round-trips byte for byte', (_i, str) => {
    expect(fieldSetToJSON(fieldSetFromJSON(str as string))).toBe(str);
  });

  test('non-normalized input is normalized', () => {
    const input = `{
  "f:aad": {}, "f:aaa": {}, "f:aab": {}, "f:aac": {}, "f:aae": {}, "f:aaf": {},
  "k:{\\"name\\":\\"first\\"}": {}, "k:{\\"name\\":\\"second\\"}": {},
  "k:{\\"port\\":443,\\"protocol\\":\\"tcp\\"}": {}, "k:{ \\"protocol\\":\\"udp\\",\\"port\\":443}": {},
  "v:1": {}, "v:2": {}, "v: 3": {}, "v:\\"aa\\"": {}, "v:\\"ab\\"": {}, "v:true": {},
  "i:1": {}, "i:2": {}, "i:3": {}  , "i:4":    {}
}`;
    expect(fieldSetToJSON(fieldSetFromJSON(input))).toBe(golden[0]);
  });

  test('a Deployment-like set as kube writes it', () => {
    const s = S(
      P('metadata', 'labels', 'app'),
      P('spec', 'replicas'),
      P('spec', 'template', 'spec', 'containers', K('name', 'nginx')),
      P('spec', 'template', 'spec', 'containers', K('name', 'nginx'), 'image'),
      P('spec', 'template', 'spec', 'containers', K('name', 'nginx'), 'name'),
      P('spec', 'template', 'spec', 'containers', K('name', 'nginx'), 'ports', K('containerPort', 80, 'protocol', 'TCP')),
      P('spec', 'template', 'spec', 'containers', K('name', 'nginx'), 'ports', K('containerPort', 80, 'protocol', 'TCP'), 'containerPort'),
      P('spec', 'template', 'spec', 'finalizers', V('a<b')),
    );
    expect(fieldSetToJSON(s)).toBe(
      '{"f:metadata":{"f:labels":{"f:app":{}}},"f:spec":{"f:replicas":{},"f:template":{"f:spec":{"f:containers":{"k:{\\"name\\":\\"nginx\\"}":{".":{},"f:image":{},"f:name":{},"f:ports":{"k:{\\"containerPort\\":80,\\"protocol\\":\\"TCP\\"}":{".":{},"f:containerPort":{}}}}},"f:finalizers":{"v:\\"a\\\\u003cb\\"":{}}}}}}',
    );
    expect(fieldSetFromJSON(fieldSetToJSON(s)).equals(s)).toBe(true);
  });

  test('random sets round-trip', () => {
    const alphabet: PathElement[] = P(
      'aaa',
      'aab',
      'abcdefghijklmnopqrstuvwxyz',
      K('name', 'привет'),
      K('name', '你好'),
      K('port', 443, 'protocol', 'tcp'),
      K('key', ' value with spaces '),
      K('unicode-key', 'unicode-value-🔥'),
      V(1),
      V('aa'),
      V(true),
      V(-1),
      V(3.14159),
      V('string with "quotes"'),
      V(false),
      1,
      0,
      100,
      2147483648,
    );
    let seed = 7;
    const rand = (n: number) => {
      seed = (seed * 1103515245 + 12345) % 2147483648;
      return seed % n;
    };
    for (let i = 0; i < 200; i++) {
      const x = new FieldSet();
      for (let j = 0; j < 50; j++) {
        const len = 2 + rand(3);
        const p: PathElement[] = [];
        for (let k = 0; k < len; k++) p.push(alphabet[rand(alphabet.length)]);
        x.insert(p);
      }
      const back = fieldSetFromJSON(fieldSetToJSON(x));
      expect(back.equals(x)).toBe(true);
    }
  });

  test('path elements: serialize and parse', () => {
    const cases: [PathElement, string][] = [
      [PathElement.field('foo'), 'f:foo'],
      [K('name', 'a', 'port', 80), 'k:{"name":"a","port":80}'],
      [V({ b: 1, a: [true, null] }), 'v:{"a":[true,null],"b":1}'],
      [PathElement.index(3), 'i:3'],
    ];
    for (const [pe, s] of cases) {
      expect(serializePathElement(pe)).toBe(s);
      expect(deserializePathElement(s).equals(pe)).toBe(true);
    }
    expect(() => deserializePathElement('f')).toThrow('key must be 2 characters long:');
    expect(() => deserializePathElement('fx')).toThrow('missing colon: fx');
    expect(() => deserializePathElement('i:x')).toThrow('invalid syntax');
    expect(() => deserializePathElement('z:x')).toThrow('unknown path element type');
    // Unknown kinds are dropped with their subtree.
    expect(fieldSetToJSON(fieldSetFromJSON('{"z:a":{"f:b":{}},"f:c":{}}'))).toBe('{"f:c":{}}');
  });
});
