import { isStatusError } from '@windlass/machinery';
import type { AdmissionAttributes, KubeObject } from '../../types.js';
import { certificateSigningRequests } from './certificatesigningrequests.js';
import { goBase64ErrorOffset } from './base64.js';
import { create, messages, object, update } from '../networking/testing.js';

/** An ECDSA P-256 request for CN=golden-user, O=golden-team. */
const request = 'LS0tLS1CRUdJTiBDRVJUSUZJQ0FURSBSRVFVRVNULS0tLS0KTUlIbk1JR09BZ0VBTUN3eEZEQVNCZ05WQkFNTUMyZHZiR1JsYmkxMWMyVnlNUlF3RWdZRFZRUUtEQXRuYjJ4awpaVzR0ZEdWaGJUQlpNQk1HQnlxR1NNNDlBZ0VHQ0NxR1NNNDlBd0VIQTBJQUJPTmcxNG5udnJKZU5tdjcvRGhCCko1UjNMRFZqeW9wSVVOTThtN0svWlhsd2xxeVd6eGpLRVh4bVU5dy8vajhQQld5N2ZVN0tCdjAwVHFlQ2xCVnIKQ0VlZ0FEQUtCZ2dxaGtqT1BRUURBZ05JQURCRkFpQWRmb05jOWlEdEwwZWJxSzk0NWtra3ZmWTZoWStPb0E5eApZNzBLQzBiRW5nSWhBTXR4S0tEVlJyZDduU0xqZ2RxSHNadXZmTUVGNW1COU9Ma2d3UnRZdUhMSAotLS0tLUVORCBDRVJUSUZJQ0FURSBSRVFVRVNULS0tLS0K';
/** The same kind of request for O=system:masters. */
const mastersRequest = 'LS0tLS1CRUdJTiBDRVJUSUZJQ0FURSBSRVFVRVNULS0tLS0KTUlIbU1JR05BZ0VBTUNzeEVEQU9CZ05WQkFNTUIyMWhiR3h2Y25reEZ6QVZCZ05WQkFvTURuTjVjM1JsYlRwdApZWE4wWlhKek1Ga3dFd1lIS29aSXpqMENBUVlJS29aSXpqMERBUWNEUWdBRTJjdDZxMDkrdlFTZWdvRlhxTCtjCmowR0o1SEszS3NGK1J3eGRFb2F2ZVBtRU1vSGdtcmFnM2UrZGRtMHlvNWhoMmU5SFBuWVhHUmtObVJ1aTlacm0KOXFBQU1Bb0dDQ3FHU000OUJBTUNBMGdBTUVVQ0lRQ29Sd2owS3F2cE51VXNDWUxyMEo1bE55bGxhczZ6aXFZdQpRbzRrNlVVbmp3SWdWVTg3YldqR2xTN2FKWGIzYTFTWWdTOHZ6WHg4aDMvSjV3MysrbktNMHAwPQotLS0tLUVORCBDRVJUSUZJQ0FURSBSRVFVRVNULS0tLS0K';
const certificate = 'LS0tLS1CRUdJTiBDRVJUSUZJQ0FURS0tLS0tCk1JSUJpakNDQVMrZ0F3SUJBZ0lVWHdwbkhwMEh1d2hMQk9qTHBJSldUcmI0YlpBd0NnWUlLb1pJemowRUF3SXcKR2pFWU1CWUdBMVVFQXd3UGQyVmlMbVY0WVcxd2JHVXVZMjl0TUI0WERUSTJNVEV5TXpBd01URXdNRm9YRFRNMgpNVEV5TURBd01URXdNRm93R2pFWU1CWUdBMVVFQXd3UGQyVmlMbVY0WVcxd2JHVXVZMjl0TUZrd0V3WUhLb1pJCnpqMENBUVlJS29aSXpqMERBUWNEUWdBRUl5K3o2bnc1eGJsaDhnejF6SFVCUXJmTGU0dnZFMHUza3FvU0plcS8KZFdFVWJTd3JvMGg3K2NHMjFyK3loVk1EZDBmK3VxM3VnaEIxa2wvVFhMSUU1YU5UTUZFd0hRWURWUjBPQkJZRQpGT1Mvamd5bzhMWUJXeXVFK0JpMFEwNlhqWXZkTUI4R0ExVWRJd1FZTUJhQUZPUy9qZ3lvOExZQld5dUUrQmkwClEwNlhqWXZkTUE4R0ExVWRFd0VCL3dRRk1BTUJBZjh3Q2dZSUtvWkl6ajBFQXdJRFNRQXdSZ0loQUlMVlB0WHkKQXVScDZMclIrMkxkME5zMmJlUm5acEZwZTVyWXJGdzQrVDhzQWlFQTV0OE1OVkZwOU5mNkxmaXlYeGhnc2d2YwpMUVZSNGhYWVl6clh6T3Avd2cwPQotLS0tLUVORCBDRVJUSUZJQ0FURS0tLS0tCg==';

const csr = (spec: Record<string, unknown> = {}) => object({ spec: { request, signerName: 'example.com/golden', usages: ['client auth'], ...spec } });
const admin = { name: 'admin', uid: 'admin', groups: ['system:masters', 'system:authenticated'] };

function attrs(obj: KubeObject, operation: 'CREATE' | 'UPDATE' = 'CREATE'): AdmissionAttributes {
  return { operation, subresource: '', obj, dryRun: true, user: admin, ctx: undefined as never, lookup: () => undefined, warn: () => {} };
}

describe('CertificateSigningRequest', () => {
  it('records the requester and starts with an empty status', async () => {
    const obj = csr({ username: 'mallory', groups: ['system:masters'] });
    for (const p of certificateSigningRequests.admission!) await p.mutate?.(attrs(obj));
    expect(create(certificateSigningRequests, obj)).toEqual([]);
    expect(obj.spec).toMatchObject({ username: 'admin', uid: 'admin', groups: ['system:masters', 'system:authenticated'] });
    expect(obj.status).toEqual({});
  });

  it('checks the request, signer name, usages and expiration with kube\'s messages', () => {
    expect(create(certificateSigningRequests, csr({ request: 'bm90IGEgY3NyCg==' })))
      .toEqual(['spec.request: Invalid value: "bm90IGEgY3NyCg==": PEM block type must be CERTIFICATE REQUEST']);
    expect(create(certificateSigningRequests, csr({ signerName: undefined }))).toEqual(['spec.signerName: Required value']);
    expect(create(certificateSigningRequests, csr({ signerName: 'golden' })))
      .toEqual(["spec.signerName: Invalid value: \"golden\": must be a fully qualified domain and path of the form 'example.com/signer-name'"]);
    expect(create(certificateSigningRequests, csr({ signerName: 'kubernetes.io/legacy-unknown' })))
      .toEqual(['spec.signerName: Invalid value: "kubernetes.io/legacy-unknown": the legacy signerName is not allowed via this API version']);
    expect(create(certificateSigningRequests, csr({ usages: ['flying', 'client auth', 'client auth'] }))[0]).toMatch(/^spec.usages\[0\]: Unsupported value: "flying": supported values: "any", "cert sign",/);
    expect(create(certificateSigningRequests, csr({ usages: ['client auth', 'client auth'] }))).toEqual(['spec.usages[1]: Duplicate value: "client auth"']);
    expect(create(certificateSigningRequests, csr({ expirationSeconds: 60 })))
      .toEqual(['spec.expirationSeconds: Invalid value: 60: may not specify a duration less than 600 seconds (10 minutes)']);
  });

  it('refuses a request whose signature does not verify', () => {
    const der = Buffer.from(Buffer.from(request, 'base64').toString().replace(/-----[^\n]+-----\n?/g, ''), 'base64');
    der[der.length - 5] ^= 0xff;
    const pem = `-----BEGIN CERTIFICATE REQUEST-----\n${der.toString('base64')}\n-----END CERTIFICATE REQUEST-----\n`;
    expect(create(certificateSigningRequests, csr({ request: Buffer.from(pem).toString('base64') }))[0]).toMatch(/^spec.request: Invalid value: ".*": (x509|crypto)/);
  });

  it('reads []byte fields as strict base64', () => {
    expect(goBase64ErrorOffset('-----BEGIN')).toBe(0);
    expect(goBase64ErrorOffset('QUJD')).toBeUndefined();
    expect(goBase64ErrorOffset('QUJ')).toBe(0);
    expect(goBase64ErrorOffset('QUI=x')).toBe(4);
    expect(() => certificateSigningRequests.strategy!.normalize!(csr({ request: '-----BEGIN' }))).toThrow('CertificateSigningRequest in version "v1" cannot be handled as a CertificateSigningRequest: illegal base64 data at input byte 0');
  });

  it('forbids kube-apiserver-client certificates for system:masters (CertificateSubjectRestriction)', async () => {
    const obj = csr({ request: mastersRequest, signerName: 'kubernetes.io/kube-apiserver-client' });
    let err: unknown;
    try {
      for (const p of certificateSigningRequests.admission!) await p.validate?.(attrs(obj));
    } catch (e) {
      err = e;
    }
    expect(isStatusError(err) && err.status.code).toBe(403);
    expect((err as Error).message).toBe('certificatesigningrequests.certificates.k8s.io "x" is forbidden: use of kubernetes.io/kube-apiserver-client signer with system:masters group is not allowed');
    // Another signer may issue it.
    for (const p of certificateSigningRequests.admission!) await p.validate?.(attrs(csr({ request: mastersRequest })));
  });

  it('keeps spec and status on main-resource updates', () => {
    const old = csr({ username: 'admin' });
    old.status = { conditions: [{ type: 'Approved', status: 'True' }] };
    const next = csr({ username: 'someone-else', usages: ['server auth'] });
    next.status = {};
    expect(update(certificateSigningRequests, next, old)).toEqual([]);
    expect(next.spec).toEqual(old.spec);
    expect(next.status).toEqual(old.status);
  });

  it('lets approval write only the conditions, with timestamps, never both Approved and Denied', () => {
    const approval = certificateSigningRequests.subresourceStrategies!.approval;
    const old = csr();
    old.status = {};
    const approved = csr({ usages: ['server auth'] });
    approved.status = { certificate: Buffer.from('x').toString('base64'), conditions: [{ type: 'Approved', status: 'True', reason: 'R', message: 'ok' }] };
    approval.prepareForUpdate!(approved, old);
    expect(approved.spec).toEqual(old.spec);
    expect(approved.status).toEqual({ conditions: [expect.objectContaining({ type: 'Approved', lastUpdateTime: expect.any(String), lastTransitionTime: expect.any(String) })] });
    expect(messages(approval.validateUpdate!(approved, old))).toEqual([]);

    const both = structuredClone(approved);
    (both.status as { conditions: unknown[] }).conditions.push({ type: 'Denied', status: 'True' });
    approval.prepareForUpdate!(both, approved);
    expect(messages(approval.validateUpdate!(both, approved))).toEqual(['status.conditions[1].type: Invalid value: "Denied": Approved and Denied conditions are mutually exclusive']);

    // The status subresource may not approve.
    const viaStatus = structuredClone(old);
    viaStatus.status = { conditions: [{ type: 'Approved', status: 'True' }] };
    const status = certificateSigningRequests.subresourceStrategies!.status;
    status.prepareForUpdate!(viaStatus, old);
    expect(messages(status.validateUpdate!(viaStatus, old))).toEqual(['status.conditions: Forbidden: updates may not add a condition of type "Approved"']);
  });

  it('lets status set a certificate once, PEM-checked', () => {
    const status = certificateSigningRequests.subresourceStrategies!.status;
    const old = csr();
    old.status = {};
    const signed = structuredClone(old);
    signed.status = { certificate };
    status.prepareForUpdate!(signed, old);
    expect(messages(status.validateUpdate!(signed, old))).toEqual([]);
    const garbage = structuredClone(signed);
    garbage.status = { certificate: 'bm90IGEgY2VydA==' };
    status.prepareForUpdate!(garbage, signed);
    expect(messages(status.validateUpdate!(garbage, signed))).toEqual([
      'status.certificate: Invalid value: "<certificate data>": must contain at least one CERTIFICATE PEM block',
      'status.certificate: Forbidden: updates may not modify existing certificate content',
    ]);
  });

  it('selects on spec.signerName and prints the condition summary', () => {
    expect(certificateSigningRequests.selectableFields!['spec.signerName'](csr())).toBe('example.com/golden');
    const obj = csr({ username: 'admin', expirationSeconds: 86400 });
    obj.status = { certificate, conditions: [{ type: 'Approved' }] };
    expect(certificateSigningRequests.table!.cells(obj).slice(1)).toEqual(['example.com/golden', 'admin', '24h', 'Approved,Issued']);
  });
});
