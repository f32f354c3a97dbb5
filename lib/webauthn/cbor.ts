/**
 * A small CBOR decoder (RFC 8949) for what WebAuthn carries: attestation objects, COSE keys and
 * authenticator extensions. Definite lengths only (CTAP2's canonical CBOR has no other), no tags,
 * no floats; integers within JavaScript's safe range. Maps decode to `Map`, byte strings to
 * `Buffer` views. Anything else is a `CborError`, never a crash: the input comes from the caller.
 */

export class CborError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'CborError';
  }
}

/** Nesting a COSE key or an attestation object never needs; bounds the recursion on hostile input. */
const MAX_DEPTH = 16;

/** Decodes the CBOR item starting at `start`: its value and the offset just after it. */
export function decodeCbor(bytes: Buffer, start = 0): { value: unknown; end: number } {
  let at = start;
  const take = (n: number): Buffer => {
    if (n > bytes.length - at) throw new CborError('CBOR item runs past the end of its bytes');
    const part = bytes.subarray(at, at + n);
    at += n;
    return part;
  };
  const item = (depth: number): unknown => {
    if (depth > MAX_DEPTH) throw new CborError('CBOR nested too deeply');
    const head = take(1)[0];
    const major = head >> 5;
    const info = head & 31;
    if (major === 7) {
      const simple = [false, true, null, undefined][info - 20];
      if (info < 20 || info > 23) throw new CborError('CBOR floats and simple values other than false, true, null and undefined are not supported');
      return simple;
    }
    if (info > 27) throw new CborError('CBOR indefinite lengths are not supported');
    let n = info;
    if (info >= 24) {
      const size = 1 << (info - 24);
      const raw = take(size);
      n = size === 8 ? Number(raw.readBigUInt64BE()) : raw.readUIntBE(0, size);
      if (!Number.isSafeInteger(n)) throw new CborError('CBOR integer out of range');
    }
    switch (major) {
      case 0:
        return n;
      case 1:
        return -1 - n;
      case 2:
        return take(n);
      case 3:
        return take(n).toString('utf8');
      case 4: {
        // Each element takes at least a byte: a length past the rest fails before any allocation.
        if (n > bytes.length - at) throw new CborError('CBOR array runs past the end of its bytes');
        return Array.from({ length: n }, () => item(depth + 1));
      }
      case 5: {
        if (n > bytes.length - at) throw new CborError('CBOR map runs past the end of its bytes');
        const map = new Map<unknown, unknown>();
        for (let i = 0; i < n; i++) {
          const key = item(depth + 1);
          if (typeof key !== 'number' && typeof key !== 'string') throw new CborError('CBOR map keys must be integers or text');
          map.set(key, item(depth + 1));
        }
        return map;
      }
      default:
        throw new CborError('CBOR tags are not supported');
    }
  };
  const value = item(0);
  return { value, end: at };
}

/** Decodes bytes that hold exactly one CBOR item. */
export function decodeCborWhole(bytes: Buffer): unknown {
  const { value, end } = decodeCbor(bytes);
  if (end !== bytes.length) throw new CborError('CBOR item followed by extra bytes');
  return value;
}
