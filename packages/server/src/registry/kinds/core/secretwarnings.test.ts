/** The Secret and ServiceAccount strategies' warnings, worded as Go's tls.X509KeyPair and kube 1.35 word them. */
import { createPrivateKey, generateKeyPairSync } from 'node:crypto';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { ensureServingCredentials, type ServingCredentials } from '@windlass/auth';
import type { KubeObject } from '../../types.js';
import { secretWarnings, serviceAccountWarnings } from './secretwarnings.js';
import { x509KeyPairError } from './tlskeypair.js';

let creds: ServingCredentials;
let dir: string;
beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'windlass-tls-'));
  creds = await ensureServingCredentials(dir, { hosts: ['127.0.0.1'] });
});
afterAll(() => rm(dir, { recursive: true, force: true }));

const pair = (cert: string, key: string) => x509KeyPairError(Buffer.from(cert), Buffer.from(key));
const b64 = (s: string) => Buffer.from(s).toString('base64');
const tlsSecret = (cert: string, key: string, type = 'kubernetes.io/tls'): KubeObject => ({ metadata: { name: 's' }, type, data: { 'tls.crt': b64(cert), 'tls.key': b64(key) } });

describe('tls.X509KeyPair', () => {
  test('a certificate with its own key is a pair, as PKCS#8 or SEC 1', () => {
    expect(pair(creds.certPem, creds.keyPem)).toBeUndefined();
    const sec1 = createPrivateKey(creds.keyPem).export({ format: 'pem', type: 'sec1' }).toString();
    expect(sec1).toContain('BEGIN EC PRIVATE KEY');
    expect(pair(creds.certPem + creds.caCertPem, sec1)).toBeUndefined();
  });

  test('keys that do not belong to the certificate', () => {
    expect(pair(creds.caCertPem, creds.keyPem)).toBe('tls: private key does not match public key');
    const rsa = generateKeyPairSync('rsa', { modulusLength: 1024 }).privateKey.export({ format: 'pem', type: 'pkcs1' }).toString();
    expect(pair(creds.certPem, rsa)).toBe('tls: private key type does not match public key type');
  });

  test('PEM input that holds no certificate or no key', () => {
    expect(pair('', creds.keyPem)).toBe('tls: failed to find any PEM data in certificate input');
    expect(pair(creds.keyPem, creds.certPem)).toBe('tls: failed to find certificate PEM data in certificate input, but did find a private key; PEM inputs may have been switched');
    const other = '-----BEGIN PUBLIC KEY-----\nAAAA\n-----END PUBLIC KEY-----\n';
    expect(pair(other + creds.keyPem, creds.keyPem)).toBe('tls: failed to find "CERTIFICATE" PEM block in certificate input after skipping PEM blocks of the following types: [PUBLIC KEY PRIVATE KEY]');
    expect(pair(creds.certPem, 'not pem')).toBe('tls: failed to find any PEM data in key input');
    expect(pair(creds.certPem, creds.certPem)).toBe('tls: found a certificate rather than a key in the PEM for the private key');
    expect(pair(creds.certPem, creds.certPem + other)).toBe('tls: failed to find PEM block with type ending in "PRIVATE KEY" in key input after skipping PEM blocks of the following types: [CERTIFICATE PUBLIC KEY]');
  });

  test('blocks that do not parse', () => {
    expect(pair('-----BEGIN CERTIFICATE-----\nAAAA\n-----END CERTIFICATE-----\n', creds.keyPem)).toBe('x509: malformed certificate');
    expect(pair(creds.certPem, '-----BEGIN PRIVATE KEY-----\nAAAA\n-----END PRIVATE KEY-----\n')).toBe('tls: failed to parse private key');
    const x25519 = generateKeyPairSync('x25519').privateKey.export({ format: 'pem', type: 'pkcs8' }).toString();
    expect(pair(creds.certPem, x25519)).toBe('tls: found unknown private key type in PKCS#8 wrapping');
  });
});

test('Secrets: only kubernetes.io/tls ones are checked', () => {
  expect(secretWarnings(tlsSecret(creds.certPem, creds.keyPem))).toEqual([]);
  expect(secretWarnings(tlsSecret(creds.caCertPem, creds.keyPem))).toEqual(['tls: private key does not match public key']);
  expect(secretWarnings(tlsSecret('', '', 'Opaque'))).toEqual([]);
});

test('ServiceAccounts: the enforce-mountable-secrets annotation warns when a write newly sets it, whatever its value', () => {
  const sa = (annotations?: Record<string, string>): KubeObject => ({ metadata: { name: 'sa', ...(annotations ? { annotations } : {}) } });
  const message = 'metadata.annotations[kubernetes.io/enforce-mountable-secrets]: deprecated in v1.32+; prefer separate namespaces to isolate access to mounted secrets';
  expect(serviceAccountWarnings(sa())).toEqual([]);
  expect(serviceAccountWarnings(sa({ 'kubernetes.io/enforce-mountable-secrets': 'false' }))).toEqual([message]);
  expect(serviceAccountWarnings(sa({ 'kubernetes.io/enforce-mountable-secrets': 'true' }), sa())).toEqual([message]);
  expect(serviceAccountWarnings(sa({ 'kubernetes.io/enforce-mountable-secrets': 'true' }), sa({ 'kubernetes.io/enforce-mountable-secrets': '' }))).toEqual([]);
});
