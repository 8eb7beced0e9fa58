/** kube's url library: the examples of pkg/cel/library/urls.go and Go's url parsing errors. */
import { expectCases } from './testhelpers.js';

test('url() and isURL() accept what url.ParseRequestURI accepts, with its errors', () => {
  expectCases([
    ['isURL("https://user:pass@example.com:80/path?query=val#fragment")', true],
    ['isURL("/relative-path")', true],
    ['isURL("https://a:b:c/")', false],
    ['isURL("../relative-path")', false],
    ['isURL("example.com")', false],
    ['url("../relative-path")', { error: 'URL parse error during conversion from string: parse "../relative-path": invalid URI for request' }],
    ['url("https://a:b:c/")', { error: 'URL parse error during conversion from string: parse "https://a:b:c/": invalid port ":c" after host' }],
    ['url("https://exa mple.com/")', { error: 'URL parse error during conversion from string: parse "https://exa mple.com/": invalid character " " in host name' }],
    ['url("https://example.com/%zz")', { error: 'URL parse error during conversion from string: parse "https://example.com/%zz": invalid URL escape "%zz"' }],
    ['url("https://example.com/x") == url("https://example.com/x")', true],
    ['url("https://example.com/x") == url("https://example.com/y")', false],
    ['type(url("/a")) == kubernetes.URL', true],
  ]);
});

test('the getters answer as Go\'s url.URL does', () => {
  expectCases([
    ['url("https://example.com/").getScheme()', 'https'],
    ['url("HTTPS://example.com/").getScheme()', 'https'],
    ['url("/absolute-path").getScheme()', ''],
    ['url("https://example.com:80/").getHost()', 'example.com:80'],
    ['url("https://[::1]:80/").getHost()', '[::1]:80'],
    ['url("https://example.com/").getHost()', 'example.com'],
    ['url("/absolute-path").getHost()', ''],
    ['url("https://example.com:80/").getHostname()', 'example.com'],
    ['url("https://127.0.0.1/").getHostname()', '127.0.0.1'],
    ['url("https://[::1]:80/").getHostname()', '::1'],
    ['url("/absolute-path").getHostname()', ''],
    ['url("https://example.com:80/").getPort()', '80'],
    ['url("https://example.com/").getPort()', ''],
    ['url("https://example.com/path").getEscapedPath()', '/path'],
    ['url("https://example.com/path with spaces/").getEscapedPath()', '/path%20with%20spaces/'],
    ['url("https://example.com/a%2Fb").getEscapedPath()', '/a%2Fb'],
    ['url("https://example.com").getEscapedPath()', ''],
    ['url("https://example.com/path?k1=a&k2=b&k2=c").getQuery()', { k1: ['a'], k2: ['b', 'c'] }],
    ['url("https://example.com/path?key with spaces=value with spaces").getQuery()', { 'key with spaces': ['value with spaces'] }],
    ['url("https://example.com/path?").getQuery()', {}],
    ['url("https://example.com/path").getQuery()', {}],
    ['url("https://example.com/path?a=%20b+c&bad=%zz").getQuery()', { a: [' b c'] }],
  ]);
});
