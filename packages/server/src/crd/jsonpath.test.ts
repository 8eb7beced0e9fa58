/**
 * The printer columns' JSONPath as client-go's parser reads it (util/jsonpath/parser.go): a
 * backslash escapes a terminator inside a field name, as Strimzi's KafkaTopic column
 * `.metadata.labels.strimzi\.io/cluster` does to read a label whose key has dots.
 */
import { compileJSONPath } from './jsonpath.js';

const topic = {
  metadata: { name: 'my-topic', labels: { 'strimzi.io/cluster': 'my-cluster', 'app.kubernetes.io/name': 'kafka' } },
  spec: { partitions: 1 },
  status: { conditions: [{ type: 'Ready', status: 'True' }, { type: 'Warning', status: 'False' }] },
};

describe('printer column JSONPath', () => {
  it('reads a field name with escaped dots as one name', () => {
    expect(compileJSONPath('.metadata.labels.strimzi\\.io/cluster').find(topic)).toEqual(['my-cluster']);
    expect(compileJSONPath('.metadata.labels.app\\.kubernetes\\.io/name').find(topic)).toEqual(['kafka']);
  });

  it('reads plain paths, bracketed names and filters as before', () => {
    expect(compileJSONPath('.spec.partitions').find(topic)).toEqual([1]);
    expect(compileJSONPath(".metadata.labels['strimzi.io/cluster']").find(topic)).toEqual(['my-cluster']);
    expect(compileJSONPath('.status.conditions[?(@.type=="Ready")].status').find(topic)).toEqual(['True']);
    expect(compileJSONPath('.metadata.labels.strimzi').find(topic)).toEqual([]);
  });
});
