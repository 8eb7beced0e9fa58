/**
 * Request-header (front proxy) authentication over real TLS: the listener trusts the client CA
 * and the front-proxy CA, as the API server's does once --requestheader-client-ca-file is set.
 */
import type { IncomingMessage } from 'node:http';
import { request, type Server } from 'node:https';
import { adminTokenEntry } from './admintoken.js';
import { Authentication, type RequestAuthentication } from './authentication.js';
import { generateCa, type KeyPairPem } from './certgen.js';
import { issueClientCert } from './clientcert.js';
import { ensureServingCredentials, type ServingCredentials } from './serving.js';
import { listenTLS, tempDirs } from './testutil.js';

const ADMIN = 'admin-token-0123456789';
const dirs = tempDirs();
let creds: ServingCredentials;
let clientCA: KeyPairPem;
let proxyCA: KeyPairPem;
let proxy: KeyPairPem;
let server: Server;
let port: number;
/** The headers the handler saw after authentication. */
let after: Record<string, unknown> = {};

beforeAll(async () => {
  creds = await ensureServingCredentials(await dirs.make(), { hosts: ['127.0.0.1'] });
  [clientCA, proxyCA] = await Promise.all([generateCa(), generateCa(new Date(), 'front-proxy-ca')]);
  proxy = await issueClientCert(proxyCA, { commonName: 'front-proxy-client' });
  const authn = new Authentication({
    tokens: [adminTokenEntry(ADMIN)], clientCA: clientCA.certPem,
    requestHeader: {
      clientCA: proxyCA.certPem, allowedNames: ['front-proxy-client'],
      usernameHeaders: ['X-Remote-User'], uidHeaders: ['X-Remote-Uid'], groupHeaders: ['X-Remote-Group'], extraHeaderPrefixes: ['X-Remote-Extra-'],
    },
  });
  ({ server, port } = await listenTLS({ cert: creds.certPem, key: creds.keyPem, ca: authn.tlsClientCAs, requestCert: true, rejectUnauthorized: false }, (req: IncomingMessage, res) => {
    void Promise.resolve(authn.authenticateRequest(req)).then((u: RequestAuthentication) => {
      after = { ...req.headers };
      res.end(JSON.stringify(u === undefined ? 'none' : u));
    });
  }));
});

afterAll(async () => {
  server.close();
  await dirs.cleanup();
});

function who(opts: { cert?: KeyPairPem; headers?: Record<string, string | string[]> }): Promise<unknown> {
  return new Promise((resolve, reject) => {
    const req = request({ host: '127.0.0.1', port, path: '/', ca: creds.caCertPem, agent: false, headers: opts.headers, cert: opts.cert?.certPem, key: opts.cert?.keyPem }, (res) => {
      let body = '';
      res.on('data', (c: Buffer) => (body += c.toString()));
      res.on('end', () => resolve(JSON.parse(body)));
    });
    req.on('error', reject);
    req.end();
  });
}

test('the front proxy\'s certificate makes the user its headers name, and those headers are gone afterwards', async () => {
  const user = await who({
    cert: proxy,
    headers: { 'X-Remote-User': 'jane', 'X-Remote-Uid': 'u-7', 'X-Remote-Group': ['dev', 'ops'], 'X-Remote-Extra-Example.com%2Fteam': 'blue', 'X-Remote-Extra-scopes': ['a', 'b'], accept: 'application/json' },
  });
  expect(user).toEqual({ name: 'jane', uid: 'u-7', groups: ['dev', 'ops', 'system:authenticated'], extra: { 'example.com/team': ['blue'], scopes: ['a', 'b'] } });
  expect(Object.keys(after).filter((h) => h.startsWith('x-remote-'))).toEqual([]);
  expect(after.accept).toBe('application/json');
});

test('without a username header the proxy\'s certificate is no user: another authenticator decides, else 401', async () => {
  expect(await who({ cert: proxy, headers: { authorization: `Bearer ${ADMIN}` } })).toMatchObject({ name: 'windlass-admin' });
  // The proxy's certificate is not a client certificate of the client CA.
  expect(await who({ cert: proxy })).toBeNull();
});

test('identity headers from a client of the client CA, or from a proxy whose name is not allowed, are ignored', async () => {
  const alice = await issueClientCert(clientCA, { commonName: 'alice', organizations: ['dev'] });
  expect(await who({ cert: alice, headers: { 'X-Remote-User': 'root', 'X-Remote-Group': 'system:masters' } })).toMatchObject({ name: 'alice', groups: ['dev', 'system:authenticated'] });
  const other = await issueClientCert(proxyCA, { commonName: 'some-other-proxy' });
  expect(await who({ cert: other, headers: { 'X-Remote-User': 'root' } })).toBeNull();
  expect(await who({ cert: other, headers: { 'X-Remote-User': 'root', authorization: `Bearer ${ADMIN}` } })).toMatchObject({ name: 'windlass-admin' });
  // Without a certificate, the headers are nobody's.
  expect(await who({ headers: { 'X-Remote-User': 'root' } })).toBe('none');
});
