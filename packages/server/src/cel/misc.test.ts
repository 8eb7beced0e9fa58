/**
 * kube's regex, format and semver libraries (pkg/cel/library/format_test.go and semver_test.go
 * cases, 1.35), the strings extension kube pins, and optional values reached through functions.
 */
import { evalCel, expectCases } from './testhelpers.js';

test('regex: find and findAll with Go\'s FindString / FindAllString results', () => {
  expectCases([
    ['"abc 123".find("[0-9]+")', '123'],
    ['"abc".find("[0-9]+")', ''],
    ['"123 abc 456".findAll("[0-9]+")', ['123', '456']],
    ['"123 abc 456".findAll("[0-9]+", 1)', ['123']],
    ['"123 abc 456".findAll("[0-9]+", 0)', []],
    ['"abc".findAll("b*")', ['', 'b', '']],
    ['"a-b_c".find("\\\\-")', '-'],
    ['"ABC".find("(?i)b")', 'B'],
    ['"abc".find("[[:digit:]]|c")', 'c'],
  ]);
  expect(evalCel('"abc".find("(")')).toEqual({ error: expect.stringMatching(/^Illegal regex: error parsing regexp: /) });
});

const dns1123LabelError = "a lowercase RFC 1123 label must consist of lower case alphanumeric characters or '-', and must start and end with an alphanumeric character (e.g. 'my-name',  or '123-abc', regex used for validation is '[a-z0-9]([-a-z0-9]*[a-z0-9])?')";

test('format: validate() is none for valid values and kube\'s messages otherwise', () => {
  const valid = (expr: string) => [`${expr}.hasValue()`, false] as [string, unknown];
  expectCases([
    valid('format.dns1123Label().validate("my-label-name")'),
    valid('format.dns1123Subdomain().validate("apiextensions.k8s.io")'),
    valid('format.qualifiedName().validate("apiextensions.k8s.io/v1beta1")'),
    valid('format.dns1123LabelPrefix().validate("my-label-prefix-")'),
    valid('format.dns1123SubdomainPrefix().validate("mysubdomain.prefix.-")'),
    valid('format.dns1035LabelPrefix().validate("my-label-prefix-")'),
    valid('format.uri().validate("http://example.com")'),
    valid('format.uuid().validate("123e4567-e89b-12d3-a456-426614174000")'),
    valid('format.byte().validate("aGVsbG8=")'),
    valid('format.date().validate("2021-01-01")'),
    valid('format.datetime().validate("2021-01-01T00:00:00Z")'),
    valid('format.labelValue().validate("my-cool-label-Value")'),
    ['format.dns1123Label().validate("contains a space").value()', [dns1123LabelError]],
    ['format.dns1123LabelPrefix().validate("contains a space-").value()', [dns1123LabelError]],
    ['format.dns1035Label().validate("contains a space").value()', ["a DNS-1035 label must consist of lower case alphanumeric characters or '-', start with an alphabetic character, and end with an alphanumeric character (e.g. 'my-name',  or 'abc-123', regex used for validation is '[a-z]([-a-z0-9]*[a-z0-9])?')"]],
    ['format.qualifiedName().validate("contains a space").value()', ["name part must consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character (e.g. 'MyName',  or 'my.name',  or '123-abc', regex used for validation is '([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]')"]],
    ['format.labelValue().validate("my-cool-label-Value!!\\n\\n!!!").value()', ["a valid label must be an empty string or consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character (e.g. 'MyValue',  or 'my_value',  or '12345', regex used for validation is '(([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9])?')"]],
    ['format.byte().validate("aGVsbG8").value()', ['invalid base64']],
    ['format.date().validate("2020-01-32").value()', ['invalid date']],
    ['format.datetime().validate("2020-01-32T00:00:00Z").value()', ['invalid datetime']],
    ['format.uuid().validate("not-a-uuid").value()', ['does not match the UUID format']],
    ['format.uri().validate("example.com").value()', ['parse "example.com": invalid URI for request']],
    ['format.named("unknown").hasValue()', false],
    ['format.named("dns1123Label").value() == format.dns1123Label()', true],
    ['format.dns1123Label() == format.dns1123Subdomain()', false],
    ['!format.dns1123Label().validate("Bad_Name").hasValue()', false],
  ]);
});

test('semver: parsing as blang/semver, normalization, comparisons', () => {
  expectCases([
    ['semver("1.2.3") == semver("1.2.3")', true],
    ['semver("v1.0")', { error: 'No Major.Minor.Patch elements found' }],
    ['semver("01.0.0")', { error: 'Major number must not contain leading zeroes "01"' }],
    ['semver("1.0.0-beta.01")', { error: 'Numeric PreRelease version must not contain leading zeroes "01"' }],
    ['isSemver("1.2.3-beta.1+build.1")', true],
    ['isSemver("")', false],
    ['isSemver("v1.0.0")', false],
    ['isSemver(" 1.0.0")', false],
    ['isSemver("1. 0.0")', false],
    ['isSemver("1.0.0 ")', false],
    ['isSemver("01.01.01")', false],
    ['isSemver("1")', false],
    ['isSemver("1.1")', false],
    ['isSemver("", true)', false],
    ['isSemver(" 1.0.0", true)', false],
    ['isSemver("v1.0.0", true)', true],
    ['isSemver("01.01.01", true)', true],
    ['isSemver("1", true)', true],
    ['isSemver("1.1", true)', true],
    ['semver("v01.01", true) == semver("1.1.0")', true],
    ['semver("1.2.3") == semver("1.0.0")', false],
    ['semver("1.0.0").isLessThan(semver("1.2.3"))', true],
    ['semver("1.0.0").isLessThan(semver("1.0.0"))', false],
    ['semver("1.2.3").isGreaterThan(semver("1.0.0"))', true],
    ['semver("1.0.0").isGreaterThan(semver("1.0.0"))', false],
    ['semver("1.2.3").compareTo(semver("1.2.3"))', 0n],
    ['semver("1.0.0").compareTo(semver("1.2.3"))', -1n],
    ['semver("1.2.3").compareTo(semver("1.0.0"))', 1n],
    ['semver("1.0.0-alpha").isLessThan(semver("1.0.0-alpha.1"))', true],
    ['semver("1.0.0-alpha.1").isLessThan(semver("1.0.0-beta"))', true],
    ['semver("1.0.0-rc.1").isLessThan(semver("1.0.0"))', true],
    ['semver("1.0.0+a") == semver("1.0.0+b")', true],
    ['semver("1.2.3").major()', 1n],
    ['semver("1.2.3").minor()', 2n],
    ['semver("1.2.3").patch()', 3n],
  ]);
});

test('the strings extension at the version kube pins (2), and optional values through functions', () => {
  expectCases([
    ['["a", "b"].join("-")', 'a-b'],
    ['"%s is %d".format(["x", 1])', 'x is 1'],
    ['strings.quote("a\\"b")', '"a\\"b"'],
    ['"  x ".trim()', 'x'],
    ['optional.of(1).hasValue()', true],
    ['optional.none().hasValue()', false],
    ['optional.of(1).value()', 1n],
    ['optional.none().value()', { error: 'optional.none() dereference' }],
    ['optional.none().orValue("d")', 'd'],
    ['optional.none().or(optional.of(2)).value()', 2n],
    ['optional.ofNonZeroValue("").hasValue()', false],
    ['optional.ofNonZeroValue([1]).hasValue()', true],
    ['optional.of("a") == optional.of("a") && optional.none() == optional.none()', true],
  ]);
});

test('a map entry whose value is null is present: has(), in and optional selects see it (patches/@bufbuild__cel: NativeMap.has)', () => {
  expectCases([
    ["has({'k': null}.k)", true],
    ["'k' in {'k': null}", true],
    ["{'k': null}.?k.hasValue()", true],
    ["has({'k': null}.other)", false],
  ]);
  expect(evalCel('has(self.note)', { self: new Map([['note', null]]) })).toBe(true);
});
