/**
 * kube's format library (k8s.io/apiserver pkg/cel/library/format.go, 1.31+):
 * `format.dns1123Label()` … `format.datetime()`, `format.named(name)` and
 * `<format>.validate(value)`, which returns optional.none() for a valid value and
 * optional.of(<kube's error messages>) otherwise.
 */
import { celFunc, celList, celMethod, CelScalar } from '@bufbuild/cel';
import { isDNS1035Label, isDNS1123Label, isDNS1123Subdomain, isQualifiedName, isValidLabelValue } from '@windlass/machinery';
import { structural } from '@windlass/schemas';
import { nameIsDNS1035Label, nameIsDNSLabel, nameIsDNSSubdomain } from '../registry/names.js';
import { opaqueType } from './opaque.js';
import { none, OptionalType, some } from './optional.js';
import { parseRequestURI } from './urls.js';

const { STRING } = CelScalar;

const strfmt = (format: string, message: string) => (s: string) => (structural.checkFormat(format, s) ? [] : [message]);

/** kube's ConstantFormats: the function name, the format's Name, its validation. */
const formats: Record<string, [string, (s: string) => string[]]> = {
  dns1123Label: ['DNS1123Label', isDNS1123Label],
  dns1123Subdomain: ['DNS1123Subdomain', isDNS1123Subdomain],
  dns1035Label: ['DNS1035Label', isDNS1035Label],
  qualifiedName: ['QualifiedName', isQualifiedName],
  dns1123LabelPrefix: ['DNS1123LabelPrefix', (s) => nameIsDNSLabel(s, true)],
  dns1123SubdomainPrefix: ['DNS1123SubdomainPrefix', (s) => nameIsDNSSubdomain(s, true)],
  dns1035LabelPrefix: ['DNS1035LabelPrefix', (s) => nameIsDNS1035Label(s, true)],
  labelValue: ['LabelValue', isValidLabelValue],
  uri: ['URI', (s) => {
    try {
      parseRequestURI(s);
      return [];
    } catch (err) {
      return [(err as Error).message];
    }
  }],
  uuid: ['uuid', strfmt('uuid', 'does not match the UUID format')],
  byte: ['byte', strfmt('byte', 'invalid base64')],
  date: ['date', strfmt('date', 'invalid date')],
  datetime: ['datetime', strfmt('datetime', 'invalid datetime')],
};

const byName = new Map(Object.entries(formats).map(([fn, [name, validate]]) => [name, { fn, validate }]));

/** Formats are equal when their names are (kube's Format.Equal). */
export const FormatType = opaqueType<string>('kubernetes.NamedFormat', (name) => name, (name) => name);
const F = FormatType.type;

export const formatFunctions = [
  ...Object.entries(formats).map(([fn, [name]]) => celFunc(`format.${fn}`, [], F, () => FormatType.of(name))),
  celFunc('format.named', [STRING], OptionalType.type, (fn) => (formats[fn] ? some(FormatType.of(formats[fn][0])) : none())),
  celMethod('validate', F, [STRING], OptionalType.type, function (s) {
    const errs = byName.get(FormatType.get(this))!.validate(s);
    return errs.length === 0 ? none() : some(celList(errs));
  }),
];
