import { ruleCompileErrors } from './dist/crd/cel.js';
const schema = { type: 'object', properties: {
  spec: { type: 'object', properties: { replicas: { type: 'integer' }, name: { type: 'string' }, tags: { type: 'array', items: { type: 'string' } },
    labels: { type: 'object', additionalProperties: { type: 'string' } }, ios: { 'x-kubernetes-int-or-string': true }, when: { type: 'string', format: 'date-time' },
    objs: { type: 'array', items: { type: 'object', properties: { k: { type: 'string' }, v: { type: 'string' } } } }, 'foo-bar': { type: 'string' }, any: { type: 'object', 'x-kubernetes-preserve-unknown-fields': true } } } } };
const rules = [
  'self.spec.replicas > 1', 'self.spec.foo == 1', 'has(self.spec.foo)', 'self.spec.replicas > "3"', 'self.spec.name == null', 'self.spec.name',
  'self.spec.tags.all(t, t.startsWith("a"))', 'self.spec.labels.all(k, self.spec.labels[k] != "")', 'self.spec.ios == 1 || self.spec.ios == "a"',
  'self.spec.when < timestamp("2020-01-01T00:00:00Z")', 'self.spec.objs[0] == {"k": "a", "v": "1"}', 'self.spec.objs.exists(o, o.k == "a")', 'self.spec.foo__dash__bar == ""',
  'fakeFunction(self.spec.name)', 'self.metadata.name.startsWith("x")', 'has(self.metadata.namespace)', 'self.spec.any.x == 1', '[1, "a"].size() > 0',
  'self.spec.tags.map(t, t.size()).all(n, n > 0)', 'self.spec.?name.orValue("") != ""', 'quantity("1").isLessThan(quantity("2"))', 'self.spec.name.size() > 0 && size(self.spec.tags) > 0',
  'type(self.spec.ios) == int ? self.spec.ios > 0 : self.spec.ios.endsWith("%")', 'self.spec.tags.sortBy(t, t) == self.spec.tags', 'self.spec.labels.all(k, v, v != "")',
  'sets.contains(self.spec.tags, ["a"])', 'optional.of(1).hasValue()', 'authorizer.group("").resource("x").check("get").allowed()', 'self.spec.replicas.foo',
  'self.spec.replicas == 1.0', 'self.spec.name.matches("^a")', 'isQuantity(self.spec.name) && quantity(self.spec.name).sign() > 0', 'self.spec.tags.isSorted() && self.spec.tags.sum() == 1',
  'self == oldSelf', 'self.spec.name in ["a", "b"]', 'self.spec.replicas in ["a"]', 'string(self.spec.replicas) == "1"', 'int(self.spec.name) > 0', 'duration("1s") > duration("0s")',
  'self.spec.objs.map(o, o.k).exists(k, k == "a")', 'self.spec.tags.exists_one(t, t == "a")', 'format.dns1123Label().validate(self.spec.name).hasValue()', 'url(self.spec.name).getHost() == ""',
  'ip(self.spec.name).family() == 4', 'cidr(self.spec.name).containsIP("1.2.3.4")', 'self.spec.name.split(",").size() > 0', 'self.spec.tags.join(",") != ""', "'%s'.format([1]) != ''",
];
for (const rule of rules) {
  const errs = ruleCompileErrors({ ...schema, 'x-kubernetes-validations': [{ rule }] }, 'root', true);
  console.log(JSON.stringify(rule), errs.length ? errs.map(e => e.detail.replace(/^Invalid value: apiextensions.ValidationRule\{.*?\}: /, '')).join(' // ') : 'OK');
}
