import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { parsePhoneNumberWithError } from 'libphonenumber-js';
import { toE164 } from '../../lib/phone/e164';
import { e164Metadata } from '../../lib/phone/metadata-build';
import { examplesWrittenSevenWays } from '../support/phone-examples';

const min = require('libphonenumber-js/metadata.min.json');

/** What the full `min` metadata makes of a text: the E.164 form, or the error's message. */
function withFullMetadata(text: string): string {
  try {
    return parsePhoneNumberWithError(text, { extract: false }).format('E.164');
  } catch (err) {
    return `error: ${(err as Error).message}`;
  }
}
function withOurs(text: string): string {
  try {
    return toE164(text);
  } catch (err) {
    return `error: ${(err as Error).message}`;
  }
}

describe('the bundled phone metadata (libphonenumber-js min, without formatting rules)', () => {
  it('is what the build makes from the installed libphonenumber-js (run `npm run phone-metadata` after upgrading it)', () => {
    const committed = JSON.parse(readFileSync(join(__dirname, '..', '..', 'lib', 'phone', 'metadata.json'), 'utf8'));
    expect(committed).toEqual(e164Metadata(min));
    expect(JSON.stringify(committed).length).toBeLessThan(JSON.stringify(min).length / 2);
  });

  it("normalises every country's example number, written seven ways, exactly as the full metadata does", () => {
    const texts = examplesWrittenSevenWays();
    // And texts each refused for a different reason.
    texts.push('+0123', '+999 123456', '+1 2', '+44', 'abc', '+1 650 555 1234 5678 9999');
    expect(texts.length).toBeGreaterThan(1500);
    const differing = texts.filter((t) => withOurs(t) !== withFullMetadata(t)).map((t) => [t, withOurs(t), withFullMetadata(t)]);
    expect(differing).toEqual([]);
    // Both valid answers and refusals are among them.
    expect(new Set(texts.map(withOurs).filter((r) => r.startsWith('error:')))).toEqual(
      new Set(['error: INVALID_COUNTRY', 'error: TOO_SHORT', 'error: NOT_A_NUMBER', 'error: TOO_LONG']),
    );
    expect(texts.filter((t) => withOurs(t).startsWith('+')).length).toBeGreaterThan(1000);
  });
});
