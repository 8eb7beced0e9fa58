/**
 * The golden replay (issue 6's done-when): a real kube-apiserver's recorded answers,
 * replayed against Windlass on both backends with the reference's own compare.py. Every case
 * must answer as kube does (status codes and whole normalized bodies) unless it is listed in
 * test/golden/known-differences.json with its reason; a listed case that now passes fails
 * the test too, so the list only ever shrinks to what is really left. A second comparison takes
 * metadata.managedFields in as well (server-side apply's field sets); the cases that differ only
 * there are listed in test/golden/known-managedfields-differences.json. Both compare the answers
 * of one replay: test/golden/compare-both.py runs compare.py's two passes over them.
 */
import { spawnSync } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { startEtcd, type EtcdServer } from '@windlass/storage/testing';
import { removeDir, startWindlass, tempDir, type RunningServer } from './harness.js';

const here = dirname(fileURLToPath(import.meta.url));
const golden = join(here, '..', '..', '..', 'shared', 'reference', 'golden');
const readKnown = (file: string): Record<string, string> => JSON.parse(readFileSync(join(here, '..', 'golden', file), 'utf8'));
const known = readKnown('known-differences.json');
const knownManagedFields = { ...known, ...readKnown('known-managedfields-differences.json') };
/** Every case: built-in kinds (issue 6), server-side apply, and CRDs with their custom resources. */
const only = '.*';

interface Answer { code: number; body: unknown }
interface CaseReport { id: string; passed: boolean; codes: boolean; diff: string[]; got?: Answer[] }

/** The recorded answers by case id, normalized as compare.py writes the replayed ones. */
const recorded = new Map<string, Answer[]>(
  readFileSync(join(golden, 'responses.jsonl'), 'utf8').split('\n').filter(Boolean).map((l) => {
    const c = JSON.parse(l) as { id: string; responses: Answer[] };
    return [c.id, c.responses];
  }),
);

/** JSON with keys sorted and managedFields entries in one fixed order. */
function canonical(v: unknown, key = ''): unknown {
  if (Array.isArray(v)) {
    const items = v.map((x) => canonical(x));
    return key === 'managedFields' ? items.sort((a, b) => (JSON.stringify(a) < JSON.stringify(b) ? -1 : 1)) : items;
  }
  if (v && typeof v === 'object') return Object.fromEntries(Object.keys(v).sort().map((k) => [k, canonical((v as Record<string, unknown>)[k], k)]));
  return v;
}

/**
 * kube sorts managedFields entries by their time in whole seconds: entries written in different
 * steps of a case swap places when the steps straddle a second boundary, as they would on kube.
 * Such a case answers as recorded once the entries' order is set aside.
 */
function sameUpToEntryOrder(c: CaseReport): boolean {
  const want = recorded.get(c.id);
  if (!want || !c.got || want.length !== c.got.length) return false;
  return want.every((r, i) => r.code === c.got![i].code && JSON.stringify(canonical(r.body)) === JSON.stringify(canonical(c.got![i].body)));
}

interface Reports { withManagedFields: CaseReport[]; withoutManagedFields: CaseReport[] }

/** One replay of every case, compared by compare.py with and without managedFields. */
function replay(s: RunningServer): Reports {
  const [withOut, withoutOut] = [join(s.dataDir, 'golden-report-true.json'), join(s.dataDir, 'golden-report-false.json')];
  const r = spawnSync('/usr/bin/python3', [join(here, '..', 'golden', 'compare-both.py'), golden, withOut, withoutOut, '--kubeconfig', s.kubeconfig,
    '--golden', join(golden, 'responses.jsonl'), '--only', only, '--quiet'], { encoding: 'utf8', timeout: 240_000 });
  const read = (out: string) => {
    if (!existsSync(out)) throw new Error(`compare.py wrote no report (exit ${r.status}): ${r.stderr}`);
    return JSON.parse(readFileSync(out, 'utf8')) as CaseReport[];
  };
  return { withManagedFields: read(withOut), withoutManagedFields: read(withoutOut) };
}

function check(cases: CaseReport[], known: Record<string, string>): void {
  expect(cases.length).toBeGreaterThan(450);
  for (const c of cases) if (!c.passed && !(c.id in known) && sameUpToEntryOrder(c)) c.passed = true;
  const unexpected = cases.filter((c) => !c.passed && !(c.id in known)).map((c) => `${c.id}: ${c.diff.slice(0, 3).join(' | ')}`);
  // A listed case that now passes must leave the list, unless its answer depends on timing ("sometimes: …").
  const stale = cases.filter((c) => c.passed && c.id in known && !known[c.id].startsWith('sometimes: ')).map((c) => c.id);
  expect(unexpected).toEqual([]);
  expect(stale).toEqual([]);
}

describe.each(['embedded', 'etcd'])('golden replay on %s', (backend) => {
  let etcd: EtcdServer | undefined;
  let s: RunningServer;
  let reports: Reports | undefined;
  const replayed = (): Reports => (reports ??= replay(s));
  beforeAll(async () => {
    if (backend === 'etcd') etcd = await startEtcd();
    // The recording identity: user admin, uid admin, in system:masters (CSRs record it, the self-reviews answer for it).
    const dir = tempDir();
    const tokens = join(dir, 'tokens.csv');
    writeFileSync(tokens, `${randomBytes(16).toString('hex')},admin,admin,"system:masters"\n`);
    s = await startWindlass(['--token-auth-file', tokens, ...(etcd ? ['--storage', 'etcd', '--etcd-servers', etcd.endpoints.join(',')] : [])], dir);
  }, 60_000);
  afterAll(async () => {
    await s?.stop();
    await etcd?.stop();
    if (s) removeDir(s.dataDir);
  });

  test('every case answers as kube-apiserver did, except the listed differences', () => {
    check(replayed().withoutManagedFields, known);
  }, 300_000);

  test('managedFields too: every write records the field sets kube records', () => {
    check(replayed().withManagedFields, knownManagedFields);
  }, 300_000);
});
