import { createHash, createPublicKey, generateKeyPairSync, type KeyObject } from 'node:crypto';
import { algorithmFor, keyIDFor, parseJWS, publicJWK, signJWT, sortedJSON, verifyJWS } from './jose.js';

const rsa = generateKeyPairSync('rsa', { modulusLength: 2048 });
const p256 = generateKeyPairSync('ec', { namedCurve: 'P-256' });
const p384 = generateKeyPairSync('ec', { namedCurve: 'P-384' });
const p521 = generateKeyPairSync('ec', { namedCurve: 'P-521' });
const ed = generateKeyPairSync('ed25519');

const decode = (part: string) => JSON.parse(Buffer.from(part, 'base64url').toString('utf8')) as Record<string, unknown>;

describe('algorithms and key ids as kube derives them', () => {
  it.each<[string, KeyObject, string]>([
    ['RSA', rsa.privateKey, 'RS256'], ['P-256', p256.privateKey, 'ES256'], ['P-384', p384.privateKey, 'ES384'], ['P-521', p521.privateKey, 'ES512'],
  ])('%s signs with %s', (_name, key, alg) => {
    expect(algorithmFor(key)).toBe(alg);
  });

  it('refuses keys kube cannot sign with', () => {
    expect(() => algorithmFor(ed.privateKey)).toThrow('must be RSA or ECDSA');
    const k1 = generateKeyPairSync('ec', { namedCurve: 'secp256k1' });
    expect(() => algorithmFor(k1.privateKey)).toThrow('unknown private key curve, must be 256, 384, or 521');
  });

  it('names a key by the unpadded base64url SHA-256 of its PKIX DER, the same from either half', () => {
    const der = p256.publicKey.export({ type: 'spki', format: 'der' });
    const expected = createHash('sha256').update(der).digest('base64').replace(/\+/g, '-').replace(/\//g, '_').replace(/=+$/, '');
    expect(keyIDFor(p256.publicKey)).toBe(expected);
    expect(keyIDFor(p256.privateKey)).toBe(expected);
  });

  it('writes JWKs with go-jose field order and the key id', () => {
    const ec = publicJWK(p256.privateKey);
    expect(Object.keys(ec)).toEqual(['use', 'kty', 'kid', 'crv', 'alg', 'x', 'y']);
    expect(ec).toMatchObject({ use: 'sig', kty: 'EC', crv: 'P-256', alg: 'ES256', kid: keyIDFor(p256.publicKey) });
    const r = publicJWK(rsa.publicKey);
    expect(Object.keys(r)).toEqual(['use', 'kty', 'kid', 'alg', 'n', 'e']);
    expect(r.e).toBe('AQAB');
    // The JWK is the same key: it verifies what the private key signed.
    const token = signJWT({ sub: 'x' }, rsa.privateKey);
    expect(verifyJWS(parseJWS(token)!, createPublicKey({ key: r, format: 'jwk' }))).toBe(true);
  });
});

describe('JWS compact serialization', () => {
  it('sorts header and claim keys at every level, as go-jose marshals its claim map', () => {
    expect(sortedJSON({ sub: 1, aud: ['b', 'a'], 'kubernetes.io': { serviceaccount: { uid: 'u', name: 'n' }, namespace: 'ns' } }))
      .toBe('{"aud":["b","a"],"kubernetes.io":{"namespace":"ns","serviceaccount":{"name":"n","uid":"u"}},"sub":1}');
    const [header, payload] = signJWT({ sub: 's', iss: 'i' }, p256.privateKey).split('.');
    expect(Buffer.from(header!, 'base64url').toString()).toBe(`{"alg":"ES256","kid":"${keyIDFor(p256.publicKey)}"}`);
    expect(Buffer.from(payload!, 'base64url').toString()).toBe('{"iss":"i","sub":"s"}');
  });

  it.each<[string, KeyObject, KeyObject]>([
    ['RS256', rsa.privateKey, rsa.publicKey], ['ES256', p256.privateKey, p256.publicKey], ['ES384', p384.privateKey, p384.publicKey], ['ES512', p521.privateKey, p521.publicKey],
  ])('%s: verifies with the public key, and ECDSA signatures are r||s', (alg, priv, pub) => {
    const token = signJWT({ sub: 'x' }, priv);
    const jws = parseJWS(token)!;
    expect(jws.header.alg).toBe(alg);
    expect(verifyJWS(jws, pub)).toBe(true);
    if (alg !== 'RS256') expect(jws.signature.length).toBe({ ES256: 64, ES384: 96, ES512: 132 }[alg]);
  });

  it('refuses another key, a changed payload, and an algorithm the key does not have', () => {
    const token = signJWT({ sub: 'x' }, p256.privateKey);
    expect(verifyJWS(parseJWS(token)!, p384.publicKey)).toBe(false);
    const [h, , sig] = token.split('.');
    const forged = `${h}.${Buffer.from('{"sub":"admin"}').toString('base64url')}.${sig}`;
    expect(verifyJWS(parseJWS(forged)!, p256.publicKey)).toBe(false);
    // alg "none" or HS256 over a public key is never accepted.
    for (const alg of ['none', 'HS256', 'RS256']) {
      const header = Buffer.from(JSON.stringify({ alg })).toString('base64url');
      expect(verifyJWS(parseJWS(`${header}.${token.split('.')[1]}.${sig}`)!, p256.publicKey)).toBe(false);
    }
  });

  it.each(['', 'abc', 'a.b', 'a.b.c.d', '{"alg":"RS256"}.e30.', 'e30.!!.e30', `${Buffer.from('[]').toString('base64url')}.e30.`])('%j is not a JWS', (t) => {
    expect(parseJWS(t)).toBeNull();
  });

  it('reads the unverified claims of a well-formed token', () => {
    expect(decode(signJWT({ iss: 'me' }, p256.privateKey).split('.')[1]!)).toEqual({ iss: 'me' });
    expect(parseJWS(signJWT({ iss: 'me' }, p256.privateKey))!.claims).toEqual({ iss: 'me' });
  });
});
