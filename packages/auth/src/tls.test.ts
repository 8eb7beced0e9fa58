import { get, type Server } from 'node:https';
import { ensureServingCredentials, type ServingCredentials } from './serving.js';
import { listenTLS, tempDirs } from './testutil.js';

const dirs = tempDirs();
let creds: ServingCredentials;
let otherCa: string;
let server: Server;
let port: number;

beforeAll(async () => {
  creds = await ensureServingCredentials(await dirs.make(), { hosts: ['localhost', '127.0.0.1', '::1'] });
  otherCa = (await ensureServingCredentials(await dirs.make(), { hosts: ['localhost'] })).caCertPem;
  ({ server, port } = await listenTLS({ cert: creds.certPem, key: creds.keyPem }, (_req, res) => res.end('ok')));
});

afterAll(async () => {
  server.close();
  await dirs.cleanup();
});

/** The response body, or the client-side error code. */
function fetchOnce(opts: { ca?: string; servername?: string }): Promise<string> {
  return new Promise((resolve) => {
    const req = get({ host: '127.0.0.1', port, path: '/', agent: false, ...opts }, (res) => {
      let body = '';
      res.setEncoding('utf8');
      res.on('data', (c: string) => (body += c));
      res.on('end', () => resolve(body));
    });
    req.on('error', (err: NodeJS.ErrnoException) => resolve(`error:${err.code}`));
  });
}

describe('TLS handshake with the generated credentials', () => {
  it('succeeds for a client that trusts the CA and asks for localhost', async () => {
    expect(await fetchOnce({ ca: creds.caCertPem, servername: 'localhost' })).toBe('ok');
  });

  it('succeeds when the client checks the IP address itself', async () => {
    expect(await fetchOnce({ ca: creds.caCertPem })).toBe('ok');
  });

  it('fails for a client that does not trust the CA', async () => {
    expect(await fetchOnce({ servername: 'localhost' })).toBe('error:UNABLE_TO_VERIFY_LEAF_SIGNATURE');
  });

  it('fails for a client that trusts a different windlass CA', async () => {
    expect(await fetchOnce({ ca: otherCa, servername: 'localhost' })).toBe('error:UNABLE_TO_VERIFY_LEAF_SIGNATURE');
  });

  it('fails for a host name the certificate does not carry', async () => {
    expect(await fetchOnce({ ca: creds.caCertPem, servername: 'not-this-host.example' })).toBe('error:ERR_TLS_CERT_ALTNAME_INVALID');
  });
});
