/**
 * certificates.k8s.io/v1 CertificateSigningRequest: the requester recorded in the spec, kube's
 * validation (request signature, signer name, usages, conditions, issued certificate), the
 * `status` and `approval` subresources with their separate rights over the conditions, the
 * CertificateSubjectRestriction admission plugin, the spec.signerName field selector and the
 * printer.
 */
import { fieldErr, isDNS1123Label as dns1123LabelErrors, isDNS1123Subdomain as dns1123SubdomainErrors, newBadRequest, newForbidden, newInternalError, type FieldError } from '@windlass/machinery';
import type { AdmissionPlugin, KindDefinition, KubeObject, StatusStrategy } from '../../types.js';
import { ageColumn, column } from '../common.js';
import { ageOf, humanDuration } from '../../age.js';
import { nameIsPathSegment } from '../../names.js';
import { arr, obj, str, type Json } from '../networking/util.js';
import { certificateError, parseCSR } from './pkcs10.js';
import { goBase64ErrorOffset } from './base64.js';

type CSR = KubeObject & { spec?: Json; status?: Json };

const kubeAPIServerClientSigner = 'kubernetes.io/kube-apiserver-client';
const legacyUnknownSigner = 'kubernetes.io/legacy-unknown';

export const allValidUsages = [
  'any', 'cert sign', 'client auth', 'code signing', 'content commitment', 'crl sign', 'data encipherment', 'decipher only',
  'digital signature', 'email protection', 'encipher only', 'ipsec end system', 'ipsec tunnel', 'ipsec user', 'key agreement',
  'key encipherment', 'microsoft sgc', 'netscape sgc', 'ocsp signing', 's/mime', 'server auth', 'signing', 'timestamping',
];
const trueOnlyConditionTypes = ['Approved', 'Denied', 'Failed'];
const allStatusValues = ['False', 'True', 'Unknown'];

interface Options {
  allowSettingApprovalConditions: boolean;
  allowSettingCertificate: boolean;
  allowBothApprovedAndDenied: boolean;
  allowLegacySignerName: boolean;
  allowDuplicateConditionTypes: boolean;
  allowEmptyConditionType: boolean;
  allowArbitraryCertificate: boolean;
  allowUnknownUsages: boolean;
  allowDuplicateUsages: boolean;
}

const bytes = (b64: unknown) => Buffer.from(str(b64), 'base64');
const conditions = (csr: CSR) => arr(obj(csr.status).conditions).map(obj);

/** getValidationOptions: on update, what the stored object already got away with stays allowed. */
function validationOptions(csr: CSR, old?: CSR): Options {
  const oldConditions = old ? conditions(old) : [];
  const oldTypes = oldConditions.map((c) => str(c.type));
  const oldUsages = old ? arr(obj(old.spec).usages).map(str) : [];
  const sameCertificate = old !== undefined && str(obj(csr.status).certificate) === str(obj(old.status).certificate);
  return {
    allowSettingApprovalConditions: false,
    allowSettingCertificate: false,
    allowBothApprovedAndDenied: oldTypes.includes('Approved') && oldTypes.includes('Denied'),
    allowLegacySignerName: old !== undefined && str(obj(old.spec).signerName) === legacyUnknownSigner,
    allowDuplicateConditionTypes: new Set(oldTypes).size !== oldTypes.length,
    allowEmptyConditionType: oldTypes.includes(''),
    allowArbitraryCertificate: sameCertificate || (old !== undefined && certificateError(bytes(obj(old.status).certificate)) !== undefined),
    allowUnknownUsages: oldUsages.some((u) => !allValidUsages.includes(u)),
    allowDuplicateUsages: new Set(oldUsages).size !== oldUsages.length,
  };
}

/** ValidateSignerName (core validation). */
export function validateSignerName(path: string, signerName: string): FieldError[] {
  if (signerName.length === 0) return [fieldErr.required(path)];
  const segments = signerName.split('/');
  if (segments.length !== 2) return [fieldErr.invalid(path, signerName, "must be a fully qualified domain and path of the form 'example.com/signer-name'")];
  const errs: FieldError[] = [];
  const [domain, rest] = segments;
  if (Buffer.byteLength(domain) > 253) errs.push(fieldErr.tooLong(path, 253));
  const domainLabels = domain.split('.');
  for (const label of domainLabels) {
    const labelErrs = dns1123LabelErrors(label);
    if (labelErrs.length) {
      for (const e of labelErrs) errs.push(fieldErr.invalid(path, domain, `validating label ${JSON.stringify(label)}: ${e}`));
      break;
    }
  }
  if (domainLabels.length < 2) errs.push(fieldErr.invalid(path, domain, 'should be a domain with at least two segments separated by dots'));
  for (const label of rest.split('.')) {
    const labelErrs = dns1123SubdomainErrors(label);
    if (labelErrs.length) {
      for (const e of labelErrs) errs.push(fieldErr.invalid(path, rest, `validating label ${JSON.stringify(label)}: ${e}`));
      break;
    }
  }
  const maxLength = 253 + (253 + 63 + 1) + 1;
  if (Buffer.byteLength(signerName) > maxLength) errs.push(fieldErr.tooLong(path, maxLength));
  return errs;
}

function validateConditions(csr: CSR, opts: Options): FieldError[] {
  const errs: FieldError[] = [];
  const seen = new Set<string>();
  let approved = false, denied = false;
  conditions(csr).forEach((c, i) => {
    const p = `status.conditions[${i}]`;
    const type = str(c.type), status = str(c.status);
    if (!opts.allowEmptyConditionType && type.length === 0) errs.push(fieldErr.required(`${p}.type`));
    const allowed = trueOnlyConditionTypes.includes(type) ? ['True'] : allStatusValues;
    if (status === '') errs.push(fieldErr.required(`${p}.status`));
    else if (!allowed.includes(status)) errs.push(fieldErr.notSupported(`${p}.status`, status, allowed));
    if (!opts.allowBothApprovedAndDenied) {
      if (type === 'Approved') {
        approved = true;
        if (denied) errs.push(fieldErr.invalid(`${p}.type`, type, 'Approved and Denied conditions are mutually exclusive'));
      } else if (type === 'Denied') {
        denied = true;
        if (approved) errs.push(fieldErr.invalid(`${p}.type`, type, 'Approved and Denied conditions are mutually exclusive'));
      }
    }
    if (!opts.allowDuplicateConditionTypes) {
      if (seen.has(type)) errs.push({ type: 'FieldValueDuplicate', field: `${p}.type`, detail: `Duplicate value: ${JSON.stringify(type)}` });
      seen.add(type);
    }
  });
  return errs;
}

function validateCSR(csr: CSR, opts: Options): FieldError[] {
  const spec = obj(csr.spec);
  const errs: FieldError[] = [];
  const request = bytes(spec.request);
  let requestError: string | undefined;
  try {
    requestError = parseCSR(request).checkSignature();
  } catch (err) {
    requestError = (err as Error).message;
  }
  // kube quotes the request bytes, which JSON renders as base64.
  if (requestError) errs.push(fieldErr.invalid('spec.request', request.toString('base64'), requestError));
  const usages = arr(spec.usages).map(str);
  if (usages.length === 0) errs.push(fieldErr.required('spec.usages'));
  if (!opts.allowUnknownUsages) {
    usages.forEach((u, i) => {
      if (!allValidUsages.includes(u)) errs.push(fieldErr.notSupported(`spec.usages[${i}]`, u, allValidUsages));
    });
  }
  if (!opts.allowDuplicateUsages) {
    const seen = new Set<string>();
    usages.forEach((u, i) => {
      if (seen.has(u)) errs.push({ type: 'FieldValueDuplicate', field: `spec.usages[${i}]`, detail: `Duplicate value: ${JSON.stringify(u)}` });
      seen.add(u);
    });
  }
  const signerName = str(spec.signerName);
  if (!opts.allowLegacySignerName && signerName === legacyUnknownSigner) {
    errs.push(fieldErr.invalid('spec.signerName', signerName, 'the legacy signerName is not allowed via this API version'));
  } else {
    errs.push(...validateSignerName('spec.signerName', signerName));
  }
  if (typeof spec.expirationSeconds === 'number' && spec.expirationSeconds < 600) {
    errs.push(fieldErr.invalid('spec.expirationSeconds', spec.expirationSeconds, 'may not specify a duration less than 600 seconds (10 minutes)'));
  }
  errs.push(...validateConditions(csr, opts));
  if (!opts.allowArbitraryCertificate) {
    const certErr = certificateError(bytes(obj(csr.status).certificate));
    if (certErr) errs.push(fieldErr.invalid('status.certificate', '<certificate data>', certErr));
  }
  return errs;
}

function conditionsOfType(csr: CSR, type: string): Json[] {
  return conditions(csr).filter((c) => c.type === type);
}

/** Conditions as apiequality.Semantic compares them: times as instants, absent and zero alike. */
function sameConditions(a: Json[], b: Json[]): boolean {
  const norm = (c: Json) => JSON.stringify({
    type: str(c.type), status: str(c.status), reason: str(c.reason), message: str(c.message),
    lastUpdateTime: c.lastUpdateTime ? Date.parse(str(c.lastUpdateTime)) : null,
    lastTransitionTime: c.lastTransitionTime ? Date.parse(str(c.lastTransitionTime)) : null,
  });
  return a.length === b.length && a.every((c, i) => norm(c) === norm(b[i]));
}

function validateCSRUpdate(csr: CSR, old: CSR, opts: Options): FieldError[] {
  const errs = validateCSR(csr, opts);
  for (const t of ['Approved', 'Denied', 'Failed']) {
    if (conditionsOfType(csr, t).length < conditionsOfType(old, t).length) {
      errs.push(fieldErr.forbidden('status.conditions', `updates may not remove a condition of type ${JSON.stringify(t)}`));
    }
  }
  if (!opts.allowSettingApprovalConditions) {
    for (const t of ['Approved', 'Denied']) {
      const before = conditionsOfType(old, t), now = conditionsOfType(csr, t);
      if (now.length > before.length) errs.push(fieldErr.forbidden('status.conditions', `updates may not add a condition of type ${JSON.stringify(t)}`));
      else if (now.length === before.length && !sameConditions(before, now)) {
        errs.push(fieldErr.forbidden('status.conditions', `updates may not modify a condition of type ${JSON.stringify(t)}`));
      }
    }
  }
  if (str(obj(csr.status).certificate) !== str(obj(old.status).certificate) && !bytes(obj(csr.status).certificate).equals(bytes(obj(old.status).certificate))) {
    if (!opts.allowSettingCertificate) errs.push(fieldErr.forbidden('status.certificate', 'updates may not set certificate content'));
    else if (bytes(obj(old.status).certificate).length > 0) errs.push(fieldErr.forbidden('status.certificate', 'updates may not modify existing certificate content'));
  }
  return errs;
}

/** populateConditionTimestamps: new conditions get now; a condition whose type and status stayed keeps its transition time. */
function populateConditionTimestamps(csr: CSR, old: CSR): void {
  const now = new Date().toISOString().replace(/\.\d+Z$/, 'Z');
  for (const c of arr(obj(csr.status).conditions)) {
    if (typeof c !== 'object' || c === null) continue;
    const cond = c as Json;
    if (!cond.lastUpdateTime) cond.lastUpdateTime = now;
    if (!cond.lastTransitionTime) {
      const prior = conditions(old).find((o) => o.type === cond.type && o.status === cond.status && o.lastTransitionTime);
      cond.lastTransitionTime = prior ? prior.lastTransitionTime : now;
    }
  }
}

/** Every top-level field but status comes from the stored object (a subresource write). */
function keepAllButStatus(csr: CSR, old: CSR): void {
  for (const key of Object.keys(csr)) if (key !== 'status' && key !== 'metadata' && key !== 'apiVersion' && key !== 'kind' && !(key in old)) delete csr[key];
  for (const key of Object.keys(old)) if (key !== 'status' && key !== 'metadata' && key !== 'apiVersion' && key !== 'kind') csr[key] = old[key];
}

const statusStrategy: StatusStrategy = {
  prepareForUpdate(o, old) {
    keepAllButStatus(o, old);
    populateConditionTimestamps(o, old);
  },
  validateUpdate: (o, old) => validateCSRUpdate(o, old, { ...validationOptions(o, old), allowSettingCertificate: true }),
};

const approvalStrategy: StatusStrategy = {
  prepareForUpdate(o, old) {
    keepAllButStatus(o, old);
    // Approval writes the conditions only; the certificate stays as stored.
    const status: Json = { ...obj(o.status) };
    const oldCert = obj(old.status).certificate;
    if (oldCert === undefined) delete status.certificate;
    else status.certificate = oldCert;
    o.status = status;
    populateConditionTimestamps(o, old);
  },
  validateUpdate: (o, old) => validateCSRUpdate(o, old, { ...validationOptions(o, old), allowSettingApprovalConditions: true }),
};

/** The requester recorded as kube's strategy does in PrepareForCreate (from the request's user). */
const recordRequester: AdmissionPlugin = {
  name: 'CertificateSigningRequestRequester',
  mutate(attrs) {
    if (attrs.operation !== 'CREATE' || attrs.subresource !== '') return;
    const spec = obj(attrs.obj.spec);
    attrs.obj.spec = spec;
    delete spec.username;
    delete spec.uid;
    delete spec.groups;
    delete spec.extra;
    const user = attrs.user;
    if (user.name) spec.username = user.name;
    if (user.uid) spec.uid = user.uid;
    if (user.groups.length > 0) spec.groups = [...user.groups];
    if (user.extra && Object.keys(user.extra).length > 0) spec.extra = structuredClone(user.extra);
  },
};

/** CertificateSubjectRestriction: no system:masters client certificates from the kube-apiserver-client signer. */
const subjectRestriction: AdmissionPlugin = {
  name: 'CertificateSubjectRestriction',
  validate(attrs) {
    if (attrs.operation !== 'CREATE' || attrs.subresource !== '') return;
    const spec = obj(attrs.obj.spec);
    if (spec.signerName !== kubeAPIServerClientSigner) return;
    let organizations: string[];
    try {
      organizations = parseCSR(bytes(spec.request)).organizations;
    } catch (err) {
      throw newInternalError(`failed to parse CSR: ${(err as Error).message}`);
    }
    if (organizations.includes('system:masters')) {
      throw newForbidden({ group: 'certificates.k8s.io', resource: 'certificatesigningrequests' }, attrs.obj.metadata.name ?? '',
        `use of ${kubeAPIServerClientSigner} signer with system:masters group is not allowed`);
    }
  },
};

function conditionSummary(csr: CSR): string {
  const types = conditions(csr).map((c) => c.type);
  let status = types.includes('Denied') ? 'Denied' : types.includes('Approved') ? 'Approved' : 'Pending';
  if (types.includes('Failed')) status += ',Failed';
  if (str(obj(csr.status).certificate).length > 0) status += ',Issued';
  return status;
}

export const certificateSigningRequests: KindDefinition = {
  group: 'certificates.k8s.io', version: 'v1', resource: 'certificatesigningrequests',
  strategy: {
    nameValidator: nameIsPathSegment,
    normalize(o) {
      // []byte fields: strict base64 as encoding/json reads it, stored in canonical form.
      for (const [holder, key] of [[obj(o.spec), 'request'], [obj(o.status), 'certificate']] as const) {
        const v = holder[key];
        if (typeof v !== 'string') continue;
        const at = goBase64ErrorOffset(v);
        if (at !== undefined) throw newBadRequest(`CertificateSigningRequest in version "v1" cannot be handled as a CertificateSigningRequest: illegal base64 data at input byte ${at}`);
        holder[key] = Buffer.from(v, 'base64').toString('base64');
      }
    },
    prepareForCreate(o) {
      // Users cannot create pre-approved or pre-issued requests.
      o.status = {};
    },
    prepareForUpdate(o, old) {
      // The spec is immutable; status belongs to the subresources.
      o.spec = old.spec;
      if (old.status === undefined) delete o.status;
      else o.status = old.status;
    },
    validate: (o) => validateCSR(o, validationOptions(o)),
    validateUpdate: (o, old) => validateCSRUpdate(o, old, validationOptions(o, old)),
  },
  // The server writes spec (the requester) and the signer status; approvers own only conditions.
  resetFields: {
    '': [['spec'], ['status']],
    status: [['spec'], ['status', 'conditions']],
    approval: [['spec'], ['status', 'certificate']],
  },
  subresourceStrategies: { status: statusStrategy, approval: approvalStrategy },
  admission: [recordRequester, subjectRestriction],
  selectableFields: { 'spec.signerName': (o) => str(obj(o.spec).signerName) },
  table: {
    columns: [
      ageColumn,
      column('SignerName', 'string', 'Requested signer for the request. It is a qualified name in the form: `scope-hostname.io/name`. If empty, it will be defaulted:\n 1. If it\'s a kubelet client certificate, it is assigned\n    "kubernetes.io/kube-apiserver-client-kubelet".\n 2. If it\'s a kubelet serving certificate, it is assigned\n    "kubernetes.io/kubelet-serving".\n 3. Otherwise, it is assigned "kubernetes.io/legacy-unknown".\nDistribution of trust for signers happens out of band. You can select on this field using `spec.signerName`.'),
      column('Requestor', 'string', 'Base64-encoded PKCS#10 CSR data'),
      column('RequestedDuration', 'string', 'expirationSeconds is the requested duration of validity of the issued certificate.'),
      column('Condition', 'string', 'Conditions applied to the request, such as approval or denial.'),
    ],
    cells: (o) => {
      const spec = obj(o.spec);
      const signer = str(spec.signerName) || '<none>';
      const duration = typeof spec.expirationSeconds === 'number' ? humanDuration(spec.expirationSeconds * 1000) : '<none>';
      return [ageOf(o.metadata.creationTimestamp), signer, str(spec.username), duration, conditionSummary(o)];
    },
  },
};
