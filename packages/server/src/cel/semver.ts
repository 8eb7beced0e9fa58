/**
 * kube's semver library (k8s.io/apiserver pkg/cel/library/semverlib.go, version 1 as kube 1.35
 * enables it): `semver(s)`, `semver(s, normalize)`, `isSemver`, comparisons and the numeric
 * parts, parsing as blang/semver v4's Parse does, with its errors.
 */
import { celFunc, celMethod, CelScalar } from '@bufbuild/cel';
import { opaqueType } from './opaque.js';
import { goSplitN } from './strings.js';

const { INT, BOOL, STRING } = CelScalar;

interface Version {
  major: bigint;
  minor: bigint;
  patch: bigint;
  pre: (bigint | string)[];
  build: string[];
}

const quote = (s: string) => JSON.stringify(s);
const numbers = /^[0-9]*$/;
const alphanum = /^[0-9A-Za-z-]*$/;
const leadingZero = (s: string) => s.length > 1 && s[0] === '0';
const maxUint64 = (1n << 64n) - 1n;

/** strconv.ParseUint(s, 10, 64) over digits (containsOnly already held). */
function parseUint(s: string): bigint {
  if (s === '') throw new Error(`strconv.ParseUint: parsing ${quote(s)}: invalid syntax`);
  const v = BigInt(s);
  if (v > maxUint64) throw new Error(`strconv.ParseUint: parsing ${quote(s)}: value out of range`);
  return v;
}

function part(s: string, name: string): bigint {
  if (!numbers.test(s)) throw new Error(`Invalid character(s) found in ${name} number ${quote(s)}`);
  if (leadingZero(s)) throw new Error(`${name[0].toUpperCase()}${name.slice(1)} number must not contain leading zeroes ${quote(s)}`);
  return parseUint(s);
}

/** semver.Parse. */
export function parseSemver(s: string): Version {
  if (s.length === 0) throw new Error('Version string empty');
  const parts = s.split('.');
  if (parts.length < 3) throw new Error('No Major.Minor.Patch elements found');
  const [maj, min] = parts;
  let rest = parts.slice(2).join('.');
  const major = part(maj, 'major');
  const minor = part(min, 'minor');
  let build: string[] = [];
  let prerelease: string[] = [];
  const plus = rest.indexOf('+');
  if (plus !== -1) {
    build = rest.slice(plus + 1).split('.');
    rest = rest.slice(0, plus);
  }
  const dash = rest.indexOf('-');
  if (dash !== -1) {
    prerelease = rest.slice(dash + 1).split('.');
    rest = rest.slice(0, dash);
  }
  const patch = part(rest, 'patch');
  const pre = prerelease.map((p) => {
    if (p.length === 0) throw new Error('Prerelease is empty');
    if (numbers.test(p)) {
      if (leadingZero(p)) throw new Error(`Numeric PreRelease version must not contain leading zeroes ${quote(p)}`);
      return parseUint(p);
    }
    if (alphanum.test(p)) return p;
    throw new Error(`Invalid character(s) found in prerelease ${quote(p)}`);
  });
  for (const b of build) {
    if (b.length === 0) throw new Error('Build meta data is empty');
    if (!alphanum.test(b)) throw new Error(`Invalid character(s) found in build meta data ${quote(b)}`);
  }
  return { major, minor, patch, pre, build };
}

/** kube's normalizeAndParse: a leading v dropped, leading zeros trimmed, missing parts zero. */
function normalizeAndParse(s: string): Version {
  if (s.startsWith('v')) s = s.slice(1);
  const parts = goSplitN(s, '.', 3).map((p) => {
    if (p.length <= 1) return p;
    p = p.replace(/^0+/, '');
    return p.length === 0 || !/[0-9]/.test(p[0]) ? `0${p}` : p;
  });
  if (parts.length < 3) {
    if (/[+-]/.test(parts[parts.length - 1])) throw new Error('short version cannot contain PreRelease/Build meta data');
    while (parts.length < 3) parts.push('0');
  }
  return parseSemver(parts.join('.'));
}

const cmp = (a: bigint, b: bigint) => (a < b ? -1 : a > b ? 1 : 0);

/** Version.Compare: numbers, then a release above its pre-releases, then the pre-release parts. */
function compare(a: Version, b: Version): number {
  const c = cmp(a.major, b.major) || cmp(a.minor, b.minor) || cmp(a.patch, b.patch);
  if (c !== 0) return c;
  if (a.pre.length === 0 && b.pre.length === 0) return 0;
  if (a.pre.length === 0) return 1;
  if (b.pre.length === 0) return -1;
  for (let i = 0; i < Math.min(a.pre.length, b.pre.length); i++) {
    const x = a.pre[i];
    const y = b.pre[i];
    if (typeof x === 'bigint' && typeof y === 'bigint') {
      if (x !== y) return cmp(x, y);
    } else if (typeof x === 'bigint') return -1;
    else if (typeof y === 'bigint') return 1;
    else if (x !== y) return x < y ? -1 : 1;
  }
  return cmp(BigInt(a.pre.length), BigInt(b.pre.length));
}

/** Versions equal under Compare (build metadata ignored) share a key. */
const key = (v: Version) => `${v.major}.${v.minor}.${v.patch}${v.pre.length ? `-${v.pre.join('.')}` : ''}`;
export const SemverType = opaqueType<Version>('kubernetes.Semver', key, parseSemver);
const S = SemverType.type;
const get = SemverType.get;

const parses = (f: () => unknown) => {
  try {
    f();
    return true;
  } catch {
    return false;
  }
};

export const semverFunctions = [
  celFunc('semver', [STRING], S, (s) => SemverType.of(parseSemver(s))),
  celFunc('semver', [STRING, BOOL], S, (s, n) => SemverType.of(n ? normalizeAndParse(s) : parseSemver(s))),
  celFunc('isSemver', [STRING], BOOL, (s) => parses(() => parseSemver(s))),
  celFunc('isSemver', [STRING, BOOL], BOOL, (s, n) => parses(() => (n ? normalizeAndParse(s) : parseSemver(s)))),
  celMethod('isGreaterThan', S, [S], BOOL, function (o) { return compare(get(this), get(o)) === 1; }),
  celMethod('isLessThan', S, [S], BOOL, function (o) { return compare(get(this), get(o)) === -1; }),
  celMethod('compareTo', S, [S], INT, function (o) { return BigInt(compare(get(this), get(o))); }),
  celMethod('major', S, [], INT, function () { return get(this).major; }),
  celMethod('minor', S, [], INT, function () { return get(this).minor; }),
  celMethod('patch', S, [], INT, function () { return get(this).patch; }),
];
