/**
 * The location helpers of the connect subresources against kube's own cases: utilnet's
 * SplitSchemeNamePort and JoinPreservingTrailingSlash, net.IP.IsGlobalUnicast, and the pod
 * strategy's validateContainer messages.
 */
import { isGlobalUnicast, joinPreservingTrailingSlash, splitSchemeNamePort, validateContainer, type Pod } from './connectlocation.js';
import { goQueryEncode, kubeletLogQuery, kubeletStreamQuery } from './connectoptions.js';

test('SplitSchemeNamePort (port_split_test.go)', () => {
  expect(splitSchemeNamePort('aoeu:asdf')).toEqual({ scheme: '', name: 'aoeu', port: 'asdf' });
  expect(splitSchemeNamePort('http:aoeu:asdf')).toEqual({ scheme: 'http', name: 'aoeu', port: 'asdf' });
  expect(splitSchemeNamePort('https:aoeu:')).toEqual({ scheme: 'https', name: 'aoeu', port: '' });
  expect(splitSchemeNamePort('aoeu:')).toEqual({ scheme: '', name: 'aoeu', port: '' });
  expect(splitSchemeNamePort('aoeu')).toEqual({ scheme: '', name: 'aoeu', port: '' });
  expect(splitSchemeNamePort(':asdf')).toBeUndefined();
  expect(splitSchemeNamePort('aoeu:asdf:htns')).toBeUndefined();
  expect(splitSchemeNamePort('aoeu::')).toBeUndefined();
  expect(splitSchemeNamePort('a:b:c:d')).toBeUndefined();
});

test('JoinPreservingTrailingSlash (http_test.go)', () => {
  const cases: Array<[string, string, string]> = [
    ['', '', ''], ['', '/', '/'], ['', 'foo', 'foo'], ['', '/foo', '/foo'], ['', '/foo/', '/foo/'],
    ['/', '', '/'], ['foo', '', 'foo'], ['/foo', '', '/foo'], ['/foo/', '', '/foo/'],
    ['/', '/', '/'], ['foo', 'foo', 'foo/foo'], ['/foo', '/foo', '/foo/foo'], ['/foo/', '/foo/', '/foo/foo/'],
  ];
  for (const [a, b, want] of cases) expect([a, b, joinPreservingTrailingSlash(a, b)]).toEqual([a, b, want]);
  // path.Join cleans what it joins.
  expect(joinPreservingTrailingSlash('', '/a/../b/./c/')).toBe('/b/c/');
});

test('IsGlobalUnicast: what pods/proxy and another node port accept', () => {
  for (const ip of ['10.0.0.1', '192.0.2.2', '8.8.8.8', '2001:db8::1', 'fd00::2']) expect([ip, isGlobalUnicast(ip)]).toEqual([ip, true]);
  for (const ip of ['', 'pod', '127.0.0.1', '0.0.0.0', '255.255.255.255', '224.0.0.1', '169.254.1.1', '::1', '::', 'fe80::1', 'ff02::1', '::ffff:127.0.0.1']) expect([ip, isGlobalUnicast(ip)]).toEqual([ip, false]);
});

test('validateContainer: the only container, or kube\'s messages', () => {
  const pod = (containers: string[], init: string[] = [], ephemeral: string[] = []): Pod => ({
    metadata: { name: 'p' },
    spec: { containers: containers.map((name) => ({ name })), initContainers: init.map((name) => ({ name })), ephemeralContainers: ephemeral.map((name) => ({ name })) },
  });
  expect(validateContainer('', pod(['c']))).toBe('c');
  expect(() => validateContainer('', pod([]))).toThrow('a container name must be specified for pod p');
  expect(() => validateContainer('', pod(['a', 'b'], ['i'], ['e']))).toThrow('a container name must be specified for pod p, choose one of: [i a b e]');
  expect(validateContainer('e', pod(['a', 'b'], ['i'], ['e']))).toBe('e');
  expect(() => validateContainer('z', pod(['c']))).toThrow('container z is not valid for pod p');
});

test('the kubelet queries are url.Values.Encode: keys sorted, QueryEscape', () => {
  expect(goQueryEncode(new URLSearchParams([['b', 'x y'], ['a', '1/2'], ['b', "it's"]]))).toBe("a=1%2F2&b=x+y&b=it%27s");
  expect(kubeletStreamQuery({ stdin: true, stdout: true, stderr: false, tty: true, container: 'c', command: ['sh', '-c', 'echo a && echo b'] }))
    .toBe('command=sh&command=-c&command=echo+a+%26%26+echo+b&input=1&output=1&tty=1');
  expect(kubeletLogQuery({ container: 'c', follow: true, previous: true, timestamps: false, insecureSkipTLSVerifyBackend: false, limitBytes: 10n, sinceSeconds: 60n }))
    .toBe('follow=true&limitBytes=10&previous=true&sinceSeconds=60');
});
