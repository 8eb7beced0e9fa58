import { toAltName, toAltNames } from './hosts.js';

describe('toAltName', () => {
  it.each([
    ['localhost', { type: 'dns', value: 'localhost' }],
    ['My-Host.Example.', { type: 'dns', value: 'my-host.example' }],
    ['127.0.0.1', { type: 'ip', value: '127.0.0.1' }],
    ['0.0.0.0', { type: 'ip', value: '0.0.0.0' }],
    ['::1', { type: 'ip', value: '::1' }],
    ['[::1]', { type: 'ip', value: '::1' }],
    ['0:0:0:0:0:0:0:1', { type: 'ip', value: '::1' }],
    ['FE80::1%eth0', { type: 'ip', value: 'fe80::1' }],
    [' 10.0.0.1 ', { type: 'ip', value: '10.0.0.1' }],
  ])('%s', (host, want) => {
    expect(toAltName(host)).toEqual(want);
  });

  it.each(['', 'has space', 'host:6443', 'https://localhost', 'a,b', 'ünïcode'])('rejects %j', (host) => {
    expect(() => toAltName(host)).toThrow(/invalid host/);
  });
});

describe('toAltNames', () => {
  it('drops duplicates across spellings and keeps first-seen order', () => {
    expect(toAltNames(['localhost', '::1', 'LOCALHOST', '[::1]', '127.0.0.1'])).toEqual([
      { type: 'dns', value: 'localhost' },
      { type: 'ip', value: '::1' },
      { type: 'ip', value: '127.0.0.1' },
    ]);
  });
});
