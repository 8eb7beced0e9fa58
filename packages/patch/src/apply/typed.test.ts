// Tables from structured-merge-diff's typed/toset_test.go, symdiff_test.go, merge_test.go
// and remove_test.go (v6, HEAD of 2026-07): the expected sets and values are SMD's.
import { compare } from './compare.js';
import { FieldSet, PathElement, makePath, type Path } from './fieldpath.js';
import { merge } from './merge.js';
import { extractItems, removeItems } from './remove.js';
import { ensureNamedFieldsAreMembers, reconcileFieldSetWithSchema } from './schemasets.js';
import {
  associativeAndAtomic,
  associativeRoot,
  deduced,
  list,
  nestedAtomicList,
  nestedMap,
  nestedMapOfUntypedAtomic,
  nestedStruct,
  nestedTypes,
  scalar,
  stringPair,
  struct,
  structGrabBag,
} from './testschemas.js';
import { toFieldSet } from './tofieldset.js';
import type { JsonValue, SmdType } from './types.js';

const K = PathElement.keyByFields;
const V = PathElement.value;
const P = makePath;
const S = (...paths: Path[]) => FieldSet.of(...paths);
const J = (s: string) => JSON.parse(s) as JsonValue;
const lines = (s: FieldSet) => s.toString();

describe('toFieldSet', () => {
  const cases: [string, SmdType, string, FieldSet][] = [
    ['simple pair', stringPair, '{"key":"foo","value":1}', S(P('key'), P('value'))],
    ['simple pair', stringPair, '{"key":"foo","value":{"a": "b"}}', S(P('key'), P('value'))],
    ['simple pair', stringPair, '{"key":"foo","value":null}', S(P('key'), P('value'))],
    ['simple pair', stringPair, '{"key":"foo"}', S(P('key'))],
    ['grab bag', structGrabBag, '{"numeric":3.14159}', S(P('numeric'))],
    ['grab bag', structGrabBag, '{"bool":false}', S(P('bool'))],
    ['grab bag', structGrabBag, '{"setStr":["a","b","c"]}', S(P('setStr', V('a')), P('setStr', V('b')), P('setStr', V('c')))],
    ['grab bag', structGrabBag, '{"setStr":["a","b","c","a","b","c","c"]}', S(P('setStr', V('a')), P('setStr', V('b')), P('setStr', V('c')))],
    ['grab bag', structGrabBag, '{"setBool":[true,false,true]}', S(P('setBool', V(true)), P('setBool', V(false)))],
    ['grab bag', structGrabBag, '{"setNumeric":[1,2,3,3.14159]}', S(P('setNumeric', V(1)), P('setNumeric', V(2)), P('setNumeric', V(3)), P('setNumeric', V(3.14159)))],
    ['grab bag', structGrabBag, '{"color":{}}', S(P('color'))],
    ['grab bag', structGrabBag, '{"color":null}', S(P('color'))],
    ['grab bag', structGrabBag, '{"color":{"R":255,"G":0,"B":0}}', S(P('color'))],
    ['grab bag', structGrabBag, '{"arbitraryWavelengthColor":{"IR":255}}', S(P('arbitraryWavelengthColor'))],
    ['grab bag', structGrabBag, '{"args":[]}', S(P('args'))],
    ['grab bag', structGrabBag, '{"args":null}', S(P('args'))],
    ['grab bag', structGrabBag, '{"args":[null]}', S(P('args'))],
    ['grab bag', structGrabBag, '{"args":[{"key":"a","value":"b"},{"key":"c","value":"d"}]}', S(P('args'))],
    ['associative list', associativeRoot, '{"list":[]}', S()],
    [
      'associative list',
      associativeRoot,
      '{"list":[{"key":"a","id":1,"value":{"a":"a"}}]}',
      S(
        P('list', K('key', 'a', 'id', 1)),
        P('list', K('key', 'a', 'id', 1), 'key'),
        P('list', K('key', 'a', 'id', 1), 'id'),
        P('list', K('key', 'a', 'id', 1), 'value', 'a'),
      ),
    ],
    [
      'associative list with duplicates',
      associativeRoot,
      '{"list":[{"key":"a","id":1,"nv":2},{"key":"a","id":2,"nv":3},{"key":"b","id":1},{"key":"a","id":2,"bv":true}]}',
      S(
        P('list', K('key', 'a', 'id', 1)),
        P('list', K('key', 'a', 'id', 1), 'key'),
        P('list', K('key', 'a', 'id', 1), 'id'),
        P('list', K('key', 'a', 'id', 1), 'nv'),
        P('list', K('key', 'a', 'id', 2)),
        P('list', K('key', 'b', 'id', 1)),
        P('list', K('key', 'b', 'id', 1), 'key'),
        P('list', K('key', 'b', 'id', 1), 'id'),
      ),
    ],
    ['atomic list', associativeRoot, '{"atomicList":["a","a","a"]}', S(P('atomicList'))],
    // Keys of a deduced map are not declared fields, so each is also a member.
    ['deduced', deduced, '{"a":{"b":1,"c":[1,2],"d":{},"e":null}}', S(P('a'), P('a', 'b'), P('a', 'c'), P('a', 'd'), P('a', 'e'))],
  ];
  test.each(cases)('%s: %s', (_n, t, obj, want) => {
    expect(lines(toFieldSet(J(obj), t))).toBe(lines(want));
    expect(toFieldSet(J(obj), t).equals(want)).toBe(true);
  });

  test('a map-list item key falls back to the key field default; all keys missing is an error', () => {
    const ports = struct({ p: list(struct({ port: scalar, protocol: scalar }, { defaults: { protocol: 'TCP' } }), ['port', 'protocol']) });
    expect(lines(toFieldSet(J('{"p":[{"port":80}]}'), ports))).toBe(
      ['.p[port=80,protocol="TCP"]', '.p[port=80,protocol="TCP"].port'].join('\n'),
    );
    expect(() => compare(J('{"p":[{"x":1}]}'), J('{}'), struct({ p: list(struct({ x: scalar }), ['name']) }))).toThrow(
      `.p: element 0: associative list with keys has an element that omits all key fields ["name"] (and doesn't have default values for any key fields)`,
    );
  });
});

describe('compare', () => {
  type Quint = [SmdType, string, string, FieldSet, FieldSet, FieldSet]; // type, lhs, rhs, removed, modified, added
  const cases: Quint[] = [
    [stringPair, '{"key":"foo","value":1}', '{"key":"foo","value":1}', S(), S(), S()],
    [stringPair, '{"key":"foo","value":{}}', '{"key":"foo","value":1}', S(), S(P('value')), S()],
    [stringPair, '{"key":"foo","value":1}', '{"key":"foo","value":{"doesn\'t matter":"what\'s here","or":{"how":"nested"}}}', S(), S(P('value')), S()],
    [stringPair, '{"key":"foo","value":null}', '{"key":"foo","value":{}}', S(), S(P('value')), S()],
    [stringPair, '{"key":"foo"}', '{"value":true}', S(P('key')), S(), S(P('value'))],
    [stringPair, '{"key":"foot"}', '{"key":"foo","value":true}', S(), S(P('key')), S(P('value'))],
    [nestedMapOfUntypedAtomic, '{}', '{"inner":{}}', S(), S(), S(P('inner'))],
    [nestedMapOfUntypedAtomic, '{}', '{"inner":null}', S(), S(), S(P('inner'))],
    [nestedMapOfUntypedAtomic, '{"inner":null}', '{"inner":{}}', S(), S(P('inner')), S()],
    [nestedMapOfUntypedAtomic, '{"inner":{}}', '{"inner":{}}', S(), S(), S()],
    [nestedStruct, '{"inner":null}', '{"inner":{}}', S(), S(P('inner')), S()],
    [nestedStruct, '{}', '{"inner":null}', S(), S(), S(P('inner'))],
    [nestedAtomicList, '{"inner":null}', '{"inner":[]}', S(), S(P('inner')), S()],
    [nestedAtomicList, '{}', '{"inner":[]}', S(), S(), S(P('inner'))],
    [nestedMap, '{"a":{}}', '{"b":{}}', S(P('a')), S(), S(P('b'))],
    [nestedMap, '{"a":{"b":{"c":{}}}}', '{"a":{"b":{}}}', S(P('a', 'b', 'c')), S(), S()],
    [nestedMap, '{"a":{}}', '{"a":{"b":{}}}', S(), S(), S(P('a', 'b'))],
    [deduced, '{"a":{}}', '{"a":{"b":{}}}', S(), S(), S(P('a', 'b'))],
    [deduced, '{"a":null}', '{"a":{"b":{}}}', S(), S(), S(P('a', 'b'))],
    [deduced, '{"a":[]}', '{"a":["b"]}', S(), S(P('a')), S()],
    [deduced, '{"a":null}', '{"a":["b"]}', S(), S(P('a')), S()],
    [deduced, '{"a":null}', '{"a":"b"}', S(), S(P('a')), S()],
    [deduced, '{"a":{"b":{}}}', '{"a":["b"]}', S(P('a', 'b')), S(P('a')), S()],
    [deduced, '{"a":{"b":{}}}', '{"a":"b"}', S(P('a', 'b')), S(P('a')), S()],
    [deduced, '{"a":["b"]}', '{"a":"b"}', S(), S(P('a')), S()],
    [structGrabBag, '{"numeric":1}', '{"numeric":3.14159}', S(), S(P('numeric')), S()],
    [structGrabBag, '{"string":"aoeu"}', '{"bool":true}', S(P('string')), S(), S(P('bool'))],
    [structGrabBag, '{"setStr":["a","b"]}', '{"setStr":["a","b","c"]}', S(), S(), S(P('setStr', V('c')))],
    [structGrabBag, '{"setStr":["a"]}', '{"setStr":["a","b","b"]}', S(), S(), S(P('setStr', V('b')))],
    [structGrabBag, '{"setStr":["a","b"]}', '{"setStr":["a","b","b"]}', S(P('setStr', V('b'))), S(), S(P('setStr', V('b')))],
    [structGrabBag, '{"setStr":["b","b"]}', '{"setStr":["a","b","b"]}', S(), S(), S(P('setStr', V('a')))],
    [structGrabBag, '{"setStr":["a","b","c"]}', '{"setStr":[]}', S(P('setStr', V('a')), P('setStr', V('b')), P('setStr', V('c'))), S(), S()],
    [structGrabBag, '{"setBool":[true]}', '{"setBool":[false]}', S(P('setBool', V(true))), S(), S(P('setBool', V(false)))],
    [structGrabBag, '{"setStr":["a","b","b","c","a"]}', '{"setStr":[]}', S(P('setStr', V('a')), P('setStr', V('b')), P('setStr', V('c'))), S(), S()],
    [structGrabBag, '{"setBool":[true,true]}', '{"setBool":[false]}', S(P('setBool', V(true))), S(), S(P('setBool', V(false)))],
    [
      structGrabBag,
      '{"setNumeric":[1,2,2,3.14159,1]}',
      '{"setNumeric":[1,2,3]}',
      S(P('setNumeric', V(1)), P('setNumeric', V(2)), P('setNumeric', V(3.14159))),
      S(),
      S(P('setNumeric', V(1)), P('setNumeric', V(2)), P('setNumeric', V(3))),
    ],
    [
      associativeRoot,
      '{}',
      '{"list":[{"key":"a","id":1,"value":{"a":"a"}}]}',
      S(),
      S(),
      S(
        P('list'),
        P('list', K('key', 'a', 'id', 1)),
        P('list', K('key', 'a', 'id', 1), 'key'),
        P('list', K('key', 'a', 'id', 1), 'id'),
        P('list', K('key', 'a', 'id', 1), 'value'),
        P('list', K('key', 'a', 'id', 1), 'value', 'a'),
      ),
    ],
    [
      associativeRoot,
      '{"list":[{"key":"a","id":1,"value":{"a":"a"}}]}',
      '{"list":[{"key":"a","id":1,"value":{"a":"b"}}]}',
      S(),
      S(P('list', K('key', 'a', 'id', 1), 'value', 'a')),
      S(),
    ],
    [
      associativeRoot,
      '{"list":[{"key":"a","id":1},{"key":"b","id":1}]}',
      '{"list":[{"key":"a","id":1},{"key":"a","id":2}]}',
      S(P('list', K('key', 'b', 'id', 1)), P('list', K('key', 'b', 'id', 1), 'key'), P('list', K('key', 'b', 'id', 1), 'id')),
      S(),
      S(P('list', K('key', 'a', 'id', 2)), P('list', K('key', 'a', 'id', 2), 'key'), P('list', K('key', 'a', 'id', 2), 'id')),
    ],
    [associativeRoot, '{"atomicList":["a","a","a"]}', '{"atomicList":null}', S(), S(P('atomicList')), S()],
    [associativeRoot, '{"atomicList":["a","b","c"]}', '{"atomicList":[]}', S(), S(P('atomicList')), S()],
    [
      associativeRoot,
      '{"list":[{"key":"a","id":1,"nv":2},{"key":"b","id":1},{"key":"a","id":1,"bv":true}]}',
      '{"list":[{"key":"a","id":1},{"key":"a","id":2}]}',
      S(P('list', K('key', 'b', 'id', 1)), P('list', K('key', 'b', 'id', 1), 'key'), P('list', K('key', 'b', 'id', 1), 'id'), P('list', K('key', 'a', 'id', 1))),
      S(),
      S(
        P('list', K('key', 'a', 'id', 1)),
        P('list', K('key', 'a', 'id', 1), 'key'),
        P('list', K('key', 'a', 'id', 1), 'id'),
        P('list', K('key', 'a', 'id', 2)),
        P('list', K('key', 'a', 'id', 2), 'key'),
        P('list', K('key', 'a', 'id', 2), 'id'),
      ),
    ],
    [
      associativeRoot,
      '{"list":[{"key":"a","id":1},{"key":"b","id":1},{"key":"a","id":1,"bv":true}]}',
      '{"list":[{"key":"a","id":1},{"key":"b","id":1},{"key":"a","id":1,"bv":true,"nv":1}]}',
      S(),
      S(P('list', K('key', 'a', 'id', 1))),
      S(),
    ],
    [
      associativeRoot,
      '{"list":[{"key":"a","id":1},{"key":"b","id":1},{"key":"a","id":1,"bv":true}]}',
      '{"list":[{"key":"a","id":1},{"key":"b","id":1,"bv":true},{"key":"a","id":1,"bv":true}]}',
      S(),
      S(),
      S(P('list', K('key', 'b', 'id', 1), 'bv')),
    ],
  ];
  test.each(cases.map((c, i) => [i, ...c] as const))('case %i', (_i, t, l, r, removed, modified, added) => {
    const got = compare(J(l), J(r), t);
    expect([lines(got.removed), lines(got.modified), lines(got.added)]).toEqual([lines(removed), lines(modified), lines(added)]);
    expect(got.removed.equals(removed) && got.modified.equals(modified) && got.added.equals(added)).toBe(true);
    // SMD checks every case both ways: added and removed swap, modified stays.
    const back = compare(J(r), J(l), t);
    expect([lines(back.removed), lines(back.modified), lines(back.added)]).toEqual([lines(added), lines(modified), lines(removed)]);
  });

  test('against nothing, every path is added (a create)', () => {
    const got = compare(undefined, J('{"list":[{"key":"a","id":1}]}'), associativeRoot);
    expect(lines(got.added)).toBe(['.list', '.list[id=1,key="a"]', '.list[id=1,key="a"].id', '.list[id=1,key="a"].key'].join('\n'));
  });
});

describe('merge', () => {
  const cases: [SmdType, string, string, string][] = [
    [stringPair, '{"key":"foo","value":{}}', '{"key":"foo","value":1}', '{"key":"foo","value":1}'],
    [stringPair, '{"key":"foo","value":1}', '{"key":"foo","value":{}}', '{"key":"foo","value":{}}'],
    [stringPair, '{"key":"foo","value":null}', '{"key":"foo","value":{}}', '{"key":"foo","value":{}}'],
    [stringPair, '{"key":"foo"}', '{"value":true}', '{"key":"foo","value":true}'],
    [nestedMapOfUntypedAtomic, '{}', '{"inner":{}}', '{"inner":{}}'],
    [nestedMapOfUntypedAtomic, '{}', '{"inner":null}', '{"inner":null}'],
    [nestedMapOfUntypedAtomic, '{"inner":null}', '{"inner":{}}', '{"inner":{}}'],
    [nestedMapOfUntypedAtomic, '{"inner":{}}', '{"inner":null}', '{"inner":null}'],
    [nestedStruct, '{"inner":{}}', '{"inner":null}', '{"inner":null}'],
    [nestedAtomicList, '{"inner":[]}', '{"inner":null}', '{"inner":null}'],
    [nestedAtomicList, '{"inner":null}', '{"inner":[]}', '{"inner":[]}'],
    [structGrabBag, '{"numeric":1}', '{"numeric":3.14159}', '{"numeric":3.14159}'],
    [structGrabBag, '{"string":"aoeu"}', '{"bool":true}', '{"string":"aoeu","bool":true}'],
    [structGrabBag, '{"setStr":["a","b","c"]}', '{"setStr":["a","b"]}', '{"setStr":["a","b","c"]}'],
    [structGrabBag, '{"setStr":["a","b"]}', '{"setStr":["a","b","c"]}', '{"setStr":["a","b","c"]}'],
    [structGrabBag, '{"setStr":["a","b","c"]}', '{"setStr":[]}', '{"setStr":["a","b","c"]}'],
    [structGrabBag, '{"setStr":[]}', '{"setStr":["a","b","c"]}', '{"setStr":["a","b","c"]}'],
    [structGrabBag, '{"setStr":["a","b"]}', '{"setStr":["b","a"]}', '{"setStr":["b","a"]}'],
    [structGrabBag, '{"setStr":["a","b","c"]}', '{"setStr":["d","e","f"]}', '{"setStr":["a","b","c","d","e","f"]}'],
    [structGrabBag, '{"setStr":["a","b","c"]}', '{"setStr":["c","d","e","f"]}', '{"setStr":["a","b","c","d","e","f"]}'],
    [structGrabBag, '{"setStr":["a","b","c","g","f"]}', '{"setStr":["c","d","e","f"]}', '{"setStr":["a","b","c","g","d","e","f"]}'],
    [structGrabBag, '{"setStr":["c","d","e","f"]}', '{"setStr":["a","c","e"]}', '{"setStr":["a","c","d","e","f"]}'],
    [structGrabBag, '{"setStr":["a","b","c","x","y","z"]}', '{"setStr":["d","e","f"]}', '{"setStr":["a","b","c","x","y","z","d","e","f"]}'],
    [structGrabBag, '{"setStr":["a","b","c","x","y","z"]}', '{"setStr":["d","e","f","x","y","z"]}', '{"setStr":["a","b","c","d","e","f","x","y","z"]}'],
    [structGrabBag, '{"setStr":["c","a","g","f"]}', '{"setStr":["c","f","a","g"]}', '{"setStr":["c","f","a","g"]}'],
    [structGrabBag, '{"setStr":["a","b","c","d"]}', '{"setStr":["d","e","f","a"]}', '{"setStr":["b","c","d","e","f","a"]}'],
    [structGrabBag, '{"setStr":["c","d","e","f","g","h","i","j"]}', '{"setStr":["2","h","3","e","4","k","l"]}', '{"setStr":["c","d","f","g","2","h","i","j","3","e","4","k","l"]}'],
    [
      structGrabBag,
      '{"setStr":["a","b","c","d","e","f","g","h","i","j"]}',
      '{"setStr":["1","b","2","h","3","e","4","k","l"]}',
      '{"setStr":["a","1","b","c","d","f","g","2","h","i","j","3","e","4","k","l"]}',
    ],
    [structGrabBag, '{"setStr":["a","b","b"]}', '{"setStr":["c"]}', '{"setStr":["a","b","b","c"]}'],
    [structGrabBag, '{"setStr":["a","b","b"]}', '{"setStr":["b"]}', '{"setStr":["a","b"]}'],
    [structGrabBag, '{"setStr":["a","b","b"]}', '{"setStr":["a"]}', '{"setStr":["a","b","b"]}'],
    [structGrabBag, '{"setStr":["a","b","c","d","e","c"]}', '{"setStr":["1","b","2","e","d"]}', '{"setStr":["a","1","b","c","2","e","c","d"]}'],
    [structGrabBag, '{"setStr":["a","b","c","d","e","c"]}', '{"setStr":["1","b","2","c","e","d"]}', '{"setStr":["a","1","b","2","c","e","d"]}'],
    [structGrabBag, '{"setStr":["a","a","b","b"]}', '{"setStr":["b","c","d"]}', '{"setStr":["a","a","b","c","d"]}'],
    [structGrabBag, '{"setStr":["a","a","b","b"]}', '{"setStr":[]}', '{"setStr":["a","a","b","b"]}'],
    [structGrabBag, '{"setBool":[true]}', '{"setBool":[false]}', '{"setBool":[true, false]}'],
    [structGrabBag, '{"setNumeric":[1,2,3.14159]}', '{"setNumeric":[1,2,3]}', '{"setNumeric":[1,2,3.14159,3]}'],
    [structGrabBag, '{"setStr":["c","a","g","f","c","a"]}', '{"setStr":["c","f","a","g"]}', '{"setStr":["c","f","a","g"]}'],
    [structGrabBag, '{"setNumeric":[1,2,3.14159,1,2]}', '{"setNumeric":[1,2,3]}', '{"setNumeric":[1,2,3.14159,3]}'],
    [structGrabBag, '{"setBool":[true,false,true]}', '{"setBool":[false]}', '{"setBool":[true,false,true]}'],
    [structGrabBag, '{"setBool":[true,false,true]}', '{"setBool":[true]}', '{"setBool":[true, false]}'],
    [associativeRoot, '{"list":[{"key":"a","id":1,"value":{"a":"a"}}]}', '{"list":[{"key":"a","id":1,"value":{"a":"a"}}]}', '{"list":[{"key":"a","id":1,"value":{"a":"a"}}]}'],
    [
      associativeRoot,
      '{"list":[{"key":"a","id":1,"value":{"a":"a"}}]}',
      '{"list":[{"key":"a","id":2,"value":{"a":"a"}}]}',
      '{"list":[{"key":"a","id":1,"value":{"a":"a"}},{"key":"a","id":2,"value":{"a":"a"}}]}',
    ],
    [associativeRoot, '{"list":[{"key":"a","id":1},{"key":"b","id":1}]}', '{"list":[{"key":"a","id":1},{"key":"a","id":2}]}', '{"list":[{"key":"a","id":1},{"key":"b","id":1},{"key":"a","id":2}]}'],
    [associativeRoot, '{"list":[{"key":"b","id":2}]}', '{"list":[{"key":"a","id":1},{"key":"b","id":2},{"key":"c","id":3}]}', '{"list":[{"key":"a","id":1},{"key":"b","id":2},{"key":"c","id":3}]}'],
    [associativeRoot, '{"list":[{"key":"a","id":1},{"key":"b","id":2},{"key":"c","id":3}]}', '{"list":[{"key":"c","id":3},{"key":"b","id":2}]}', '{"list":[{"key":"a","id":1},{"key":"c","id":3},{"key":"b","id":2}]}'],
    [associativeRoot, '{"list":[{"key":"a","id":1},{"key":"b","id":2},{"key":"c","id":3}]}', '{"list":[{"key":"c","id":3},{"key":"a","id":1}]}', '{"list":[{"key":"b","id":2},{"key":"c","id":3},{"key":"a","id":1}]}'],
    [associativeRoot, '{"atomicList":["a","a","a"]}', '{"atomicList":null}', '{"atomicList":null}'],
    [associativeRoot, '{"atomicList":["a","b","c"]}', '{"atomicList":[]}', '{"atomicList":[]}'],
    [associativeRoot, '{"atomicList":["a","a","a"]}', '{"atomicList":["a","a"]}', '{"atomicList":["a","a"]}'],
    [
      associativeRoot,
      '{"list":[{"key":"a","id":1,"bv":true},{"key":"b","id":2},{"key":"a","id":1,"bv":false,"nv":2}]}',
      '{"list":[{"key":"a","id":1,"nv":3},{"key":"c","id":3},{"key":"b","id":2}]}',
      '{"list":[{"key":"a","id":1,"nv":3},{"key":"c","id":3},{"key":"b","id":2}]}',
    ],
    [associativeRoot, '{"list":[{"key":"a","id":1,"nv":1},{"key":"a","id":1,"nv":2}]}', '{"list":[]}', '{"list":[{"key":"a","id":1,"nv":1},{"key":"a","id":1,"nv":2}]}'],
    [associativeRoot, '{"list":[{"key":"a","id":1,"nv":1},{"key":"a","id":1,"nv":2}]}', '{}', '{"list":[{"key":"a","id":1,"nv":1},{"key":"a","id":1,"nv":2}]}'],
  ];
  test.each(cases.map((c, i) => [i, ...c] as const))('case %i', (_i, t, l, r, out) => {
    // toStrictEqual on arrays checks order, which SMD's value.Equals does too.
    expect(merge(J(l), J(r), t)).toStrictEqual(J(out));
  });

  test('duplicate keys in the applied value are an error', () => {
    expect(() => merge(J('{}'), J('{"setStr":["a","a"]}'), structGrabBag)).toThrow('.setStr: duplicate entries for key [="a"]');
  });

  test('inputs are not modified', () => {
    const l = J('{"list":[{"key":"a","id":1,"value":{"a":"a"}}]}');
    const r = J('{"list":[{"key":"a","id":1,"value":{"b":"b"}}]}');
    const before = JSON.stringify([l, r]);
    expect(merge(l, r, associativeRoot)).toEqual(J('{"list":[{"key":"a","id":1,"value":{"a":"a","b":"b"}}]}'));
    expect(JSON.stringify([l, r])).toBe(before);
  });
});

describe('removeItems and extractItems', () => {
  // [type, object, set, remove output, extract output]; undefined = SMD's "unparseable" (not checked).
  type Quad = [SmdType, string, FieldSet, string | undefined, string | undefined];
  const cases: Quad[] = [
    [stringPair, '{"key":"foo"}', S(P('key')), 'null', '{"key":"foo"}'],
    [stringPair, '{"key":"foo"}', S(), '{"key":"foo"}', 'null'],
    [stringPair, '{"key":"foo","value":true}', S(P('key')), '{"value":true}', '{"key":"foo"}'],
    [stringPair, '{"key":"foo","value":{"a": "b"}}', S(P('value')), '{"key":"foo"}', '{"value":{"a": "b"}}'],
    [structGrabBag, '{"setBool":[false]}', S(P('setBool', V(false))), '{"setBool":null}', '{"setBool":[false]}'],
    [structGrabBag, '{"setBool":[false]}', S(P('setBool', V(true))), '{"setBool":[false]}', '{"setBool":null}'],
    [structGrabBag, '{"setBool":[true,false]}', S(P('setBool', V(true))), '{"setBool":[false]}', '{"setBool":[true]}'],
    [structGrabBag, '{"setBool":[true,false]}', S(P('setBool')), 'null', '{"setBool":null}'],
    [structGrabBag, '{"setNumeric":[1,2,3,4.5]}', S(P('setNumeric', V(1)), P('setNumeric', V(4.5))), '{"setNumeric":[2,3]}', '{"setNumeric":[1,4.5]}'],
    [
      associativeAndAtomic,
      '{"list":[{"key":"a","id":1},{"key":"a","id":2},{"key":"b","id":1}]}',
      S(P('list', K('key', 'a', 'id', 1), 'key'), P('list', K('key', 'a', 'id', 1), 'id')),
      undefined,
      '{"list":[{"key":"a","id":1}]}',
    ],
    [associativeAndAtomic, '{"list":[{"key":"a","id":1},{"key":"a","id":2},{"key":"b","id":1}]}', S(P('list', K('key', 'a', 'id', 1))), '{"list":[{"key":"a","id":2},{"key":"b","id":1}]}', undefined],
    [associativeAndAtomic, '{"atomicList":["a", "a", "a"]}', S(P('atomicList')), 'null', '{"atomicList":["a", "a", "a"]}'],
    [associativeAndAtomic, '{"atomicMap":{"a": "c", "b": "d"}}', S(P('atomicMap')), 'null', '{"atomicMap":{"a": "c", "b": "d"}}'],
    [nestedTypes, '{"listOfLists": [{"name": "a", "value": ["b", "c"]}, {"name": "d"}]}', S(P('listOfLists')), 'null', '{"listOfLists": null}'],
    [nestedTypes, '{"listOfLists": [{"name": "a", "value": ["b", "c"]}, {"name": "d"}]}', S(P('listOfLists', K('name', 'd'), 'name')), undefined, '{"listOfLists": [{"name": "d"}]}'],
    [nestedTypes, '{"listOfLists": [{"name": "a", "value": ["b", "c"]}, {"name": "d"}]}', S(P('listOfLists', K('name', 'd'))), '{"listOfLists": [{"name": "a", "value": ["b", "c"]}]}', undefined],
    [
      nestedTypes,
      '{"listOfLists": [{"name": "a", "value": ["b", "c"]}, {"name": "d"}]}',
      S(P('listOfLists', K('name', 'a'), 'value', V('b'))),
      '{"listOfLists": [{"name":"a", "value": ["c"]}, {"name": "d"}]}',
      undefined,
    ],
    [
      nestedTypes,
      '{"listOfLists": [{"name": "a", "value": ["b", "c"]}, {"name": "d"}]}',
      S(P('listOfLists', K('name', 'a'), 'name'), P('listOfLists', K('name', 'a'), 'value', V('b'))),
      undefined,
      '{"listOfLists": [{"name": "a", "value": ["b"]}]}',
    ],
    [nestedTypes, '{"listOfLists": [{"name": "a", "value": ["b", "c"]}, {"name": "d"}]}', S(P('listOfLists', K('name', 'x'))), '{"listOfLists": [{"name": "a", "value": ["b", "c"]}, {"name": "d"}]}', '{"listOfLists":null}'],
    [nestedTypes, '{"listOfLists": [{"name": "a", "value": ["b", "c"]}, {"name": "d"}]}', S(P(V('b'))), '{"listOfLists": [{"name": "a", "value": ["b", "c"]}, {"name": "d"}]}', 'null'],
    [
      nestedTypes,
      '{"listOfMaps": [{"name": "a", "value": {"b":"x", "c":"y"}}, {"name": "d", "value": {"e":"z"}}]}',
      S(P('listOfMaps', K('name', 'a'), 'value', 'b')),
      '{"listOfMaps": [{"name": "a", "value": {"c":"y"}}, {"name": "d", "value": {"e":"z"}}]}',
      undefined,
    ],
    [
      nestedTypes,
      '{"listOfMaps": [{"name": "a", "value": {"b":"x", "c":"y"}}, {"name": "d", "value": {"e":"z"}}]}',
      S(P('listOfMaps', K('name', 'a'), 'name'), P('listOfMaps', K('name', 'a'), 'value', 'q')),
      undefined,
      '{"listOfMaps": [{"name":"a", "value": null}]}',
    ],
    [nestedTypes, '{"mapOfLists": {"b":["a","c"], "d":["e", "f"]}}', S(P('mapOfLists', 'b')), '{"mapOfLists": {"d":["e", "f"]}}', '{"mapOfLists": {"b":null}}'],
    [nestedTypes, '{"mapOfLists": {"b":["a","c"], "d":["e", "f"]}}', S(P('mapOfLists', 'b', V('a'))), '{"mapOfLists":{"b":["c"],"d":["e", "f"]}}', '{"mapOfLists":{"b":["a"]}}'],
    [nestedTypes, '{"mapOfLists": {"b":["a","c"], "d":["e", "f"]}}', S(P('mapOfLists', 'b', V('q'))), '{"mapOfLists": {"b":["a","c"], "d":["e", "f"]}}', '{"mapOfLists":{"b":null}}'],
    [nestedTypes, '{"mapOfMaps": {"b":{"a":"x","c":"z"}, "d":{"e":"y", "f":"w"}}}', S(P('mapOfMaps', 'b', 'a')), '{"mapOfMaps": {"b":{"c":"z"},"d":{"e":"y", "f":"w"}}}', '{"mapOfMaps": {"b":{"a":"x"}}}'],
    [nestedTypes, '{"mapOfMapsRecursive": {"a":{"b":{"c":null}}}}', S(P('mapOfMapsRecursive', 'a')), '{"mapOfMapsRecursive":null}', '{"mapOfMapsRecursive": {"a":null}}'],
    [nestedTypes, '{"mapOfMapsRecursive": {"a":{"b":{"c":null}}}}', S(P('mapOfMapsRecursive', 'a', 'b')), '{"mapOfMapsRecursive":{"a":null}}', '{"mapOfMapsRecursive": {"a":{"b":null}}}'],
    [nestedTypes, '{"mapOfMapsRecursive": {"a":{"b":{"c":null}}}}', S(P('mapOfMapsRecursive', 'a', 'b', 'c')), '{"mapOfMapsRecursive":{"a":{"b":null}}}', '{"mapOfMapsRecursive": {"a":{"b":{"c":null}}}}'],
    [nestedTypes, '{"listOfLists": []}', S(P('listOfLists')), 'null', '{"listOfLists": []}'],
    [nestedTypes, '{"mapOfMaps": {}}', S(P('mapOfMaps')), 'null', '{"mapOfMaps": {}}'],
    [nestedTypes, '{"mapOfMaps": null}', S(P('mapOfMaps')), 'null', '{"mapOfMaps": null}'],
  ];
  test.each(cases.map((c, i) => [i, ...c] as const))('case %i', (_i, t, obj, set, rm, ex) => {
    if (rm !== undefined) expect(removeItems(J(obj), t, set)).toStrictEqual(J(rm));
    if (ex !== undefined) expect(extractItems(J(obj), t, set)).toStrictEqual(J(ex));
  });
});

describe('schema-aware set operations', () => {
  test('ensureNamedFieldsAreMembers adds declared fields that only appear as prefixes', () => {
    const t = struct({ spec: struct({ a: scalar, m: struct({}, { elementType: struct({ x: scalar }) }) }) });
    const s = S(P('spec', 'a'), P('spec', 'm', 'k', 'x'));
    expect(lines(ensureNamedFieldsAreMembers(s, t))).toBe(['.spec', '.spec.a', '.spec.m', '.spec.m.k.x'].join('\n'));
  });

  test('reconcileFieldSetWithSchema: a field that became atomic is owned whole', () => {
    const granular = S(P('list', K('key', 'a', 'id', 1), 'key'), P('list', K('key', 'a', 'id', 1)), P('other'));
    const atomicNow = struct({ list: list(struct({ key: scalar, id: scalar }), 'atomic'), other: scalar });
    expect(lines(reconcileFieldSetWithSchema(granular, atomicNow)!)).toBe(['.list', '.other'].join('\n'));
    expect(reconcileFieldSetWithSchema(granular, associativeRoot)).toBeUndefined();
  });
});
