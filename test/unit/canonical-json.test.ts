import { canonical } from '../../lib/canonical-json';

describe('canonical', () => {
  it('writes the same string for values whose keys were set in another order, at every depth', () => {
    const a = { b: 1, a: { d: [{ y: 2, x: 1 }], c: 'z' } };
    const b = { a: { c: 'z', d: [{ x: 1, y: 2 }] }, b: 1 };
    expect(canonical(a)).toBe(canonical(b));
    expect(canonical(a)).toBe('{"a":{"c":"z","d":[{"x":1,"y":2}]},"b":1}');
  });

  it('leaves out keys whose value is undefined, as JSON does, and keeps null', () => {
    expect(canonical({ a: 1, b: undefined })).toBe(canonical({ a: 1 }));
    expect(canonical({ a: 1, b: null })).not.toBe(canonical({ a: 1 }));
  });

  it('tells apart values that differ in an array order, a type or a nested value', () => {
    expect(canonical([1, 2])).not.toBe(canonical([2, 1]));
    expect(canonical({ a: '1' })).not.toBe(canonical({ a: 1 }));
    expect(canonical({ a: { b: [true] } })).not.toBe(canonical({ a: { b: [false] } }));
  });
});
