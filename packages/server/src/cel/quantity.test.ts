/** kube's quantity library: the cases of k8s.io/apiserver pkg/cel/library/quantity_test.go (1.35). */
import { expectCases } from './testhelpers.js';

const formatError = { error: "quantities must match the regular expression '^([+-]?[0-9.]+)([eEinumkKMGTP]*[-+]?[0-9]*)$'" };

test('parsing: quantity() and isQuantity() with kube\'s errors', () => {
  expectCases([
    ['quantity("12Mi") == quantity("12582912")', true],
    ['quantity("10Mo")', formatError],
    ['quantity("10Mm")', { error: "unable to parse quantity's suffix" }],
    ['isQuantity("20")', true],
    ['isQuantity("20M")', true],
    ['isQuantity("20Mi")', true],
    ['isQuantity("20Mo")', false],
    ['isQuantity("10Mm")', false],
    ['isQuantity("1,3G")', false],
    ['isQuantity([1, 2, 3])', { error: "found no matching overload for 'isQuantity' applied to '(list)'" }],
    ['type(quantity("1")) == kubernetes.Quantity', true],
  ]);
});

test('equality and comparison by value, whatever the suffix', () => {
  expectCases([
    ['quantity("200M") == quantity("200M")', true],
    ['quantity("200M") == quantity("0.2G") && quantity("0.2G") == quantity("200M")', true],
    ['quantity("2M") == quantity("0.002G") && quantity("2000k") == quantity("2M") && quantity("0.002G") == quantity("2000k")', true],
    ['quantity("200M") == quantity("0.3G")', false],
    ['quantity("50M").isLessThan(quantity("50Mi"))', true],
    ['quantity("50M").isLessThan(quantity("100M"))', true],
    ['quantity("100M").isLessThan(quantity("50M"))', false],
    ['quantity("50Mi").isGreaterThan(quantity("50M"))', true],
    ['quantity("150Mi").isGreaterThan(quantity("100Mi"))', true],
    ['quantity("50M").isGreaterThan(quantity("100M"))', false],
    ['quantity("200M").compareTo(quantity("0.2G"))', 0n],
    ['quantity("50M").compareTo(quantity("50Mi"))', -1n],
    ['quantity("50Mi").compareTo(quantity("50M"))', 1n],
    ['sign(quantity("-50k"))', -1n],
    ['sign(quantity("0"))', 0n],
    ['sign(quantity("1m"))', 1n],
  ]);
});

test('arithmetic and conversions, with Go\'s int64 and inf.Dec representations', () => {
  expectCases([
    ['quantity("50k").add(quantity("20")) == quantity("50.02k")', true],
    ['quantity("50k").add(20).isLessThan(quantity("50020"))', false],
    ['quantity("50k").sub(quantity("20")) == quantity("49.98k")', true],
    ['quantity("50k").sub(20) == quantity("49980")', true],
    ['quantity("50k").add(20).sub(quantity("100k")).asInteger()', -49980n],
    ['quantity("50k").add(20).sub(quantity("100k")).sub(-50000).asInteger()', 20n],
    ['quantity("50k").asInteger()', 50000n],
    ['quantity("9999999999999999999999999999999999999G").asInteger()', { error: 'cannot convert value to integer' }],
    ['quantity("9999999999999999999999999999999999999G").isInteger()', false],
    ['quantity("50").isInteger()', true],
    // An int64Amount at a negative scale is not converted, even when whole (as in kube).
    ['quantity("1000m").isInteger()', false],
    ['quantity("50.703k").asApproximateFloat()', 50703],
    ['quantity("50k").sub(20000).asApproximateFloat() == 30000.0', true],
    ['quantity("1.5Gi").asApproximateFloat()', 1610612736],
  ]);
});
