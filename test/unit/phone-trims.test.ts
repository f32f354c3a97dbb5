import { build } from 'esbuild';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { parsePhoneNumberWithError } from 'libphonenumber-js';
import { BUNDLE_OPTIONS, metadataForParse, PHONE_METADATA_UNUSED, PHONE_TRIMS, phoneTrims } from '../../infra/bundling';
import { examplesWrittenSevenWays } from '../support/phone-examples';

/**
 * `toE164` as the bundles carry it, the library's modern build (`PHONE_CORE_MODERN`) with its
 * unused parts replaced (`PHONE_TRIMS`, issue 43), against the full library as `require` loads it
 * (the `es6` build): the same answer or the same refusal for every country's example number
 * written seven ways.
 */

const ROOT = join(__dirname, '../..');

function answer(toE164: (text: string) => string, text: string): string {
  try {
    return toE164(text);
  } catch (err) {
    return `error: ${(err as Error).message}`;
  }
}

async function bundled(plugins: boolean): Promise<{ toE164: (text: string) => string; bytes: number; inputs: string[] }> {
  const result = await build({
    ...BUNDLE_OPTIONS,
    loader: {},
    target: 'node22',
    entryPoints: [join(ROOT, 'lib/phone/e164.ts')],
    absWorkingDir: ROOT,
    write: false,
    metafile: true,
    plugins: plugins ? [phoneTrims()] : [],
  });
  const code = result.outputFiles[0].text;
  const module = { exports: {} as { toE164: (text: string) => string } };
  new Function('module', 'exports', 'require', code)(module, module.exports, require);
  // The files that put code into the bundle (esbuild also lists the ones it read and dropped whole).
  const inputs = Object.entries(Object.values(result.metafile.outputs)[0].inputs).filter(([, input]) => input.bytesInOutput > 0);
  return { toE164: module.exports.toE164, bytes: code.length, inputs: inputs.map(([path]) => path) };
}

describe('the phone trims of the bundles', () => {
  it('still find what they replace in the installed libphonenumber-js', () => {
    for (const trim of PHONE_TRIMS) {
      expect([trim.file, readFileSync(join(ROOT, 'node_modules/libphonenumber-js/es6-modern', trim.file), 'utf8').includes(trim.marker)]).toEqual([
        trim.file,
        true,
      ]);
    }
  });

  it('leave out only metadata methods that no bundled file of the library names', async () => {
    const file = join(ROOT, 'node_modules/libphonenumber-js/es6-modern/metadata.js');
    const trimmed = metadataForParse(readFileSync(file, 'utf8'));
    expect(trimmed).toBeDefined();
    // Each library file of the bundle as the bundle takes it: trimmed, replaced, or as it is.
    const { inputs } = await bundled(true);
    const library = inputs.filter((i) => i.includes('libphonenumber-js/es6-modern/'));
    expect(library.length).toBeGreaterThan(20);
    const texts = library.map((i) => {
      if (i.endsWith('/metadata.js')) return trimmed as string;
      return PHONE_TRIMS.find((t) => i.endsWith(`/${t.file}`))?.contents ?? readFileSync(join(ROOT, i), 'utf8');
    });
    const left = [...new Set([...PHONE_METADATA_UNUSED.Metadata, ...PHONE_METADATA_UNUSED.NumberingPlan])];
    const names = (text: string, name: string) => new RegExp(`\\.${name}\\b`).test(text.replace(/\/\/.*$|\/\*[\s\S]*?\*\//gm, ''));
    // No other file names a method left out, nor the Format class, nor calls a method by a computed name.
    const others = library.map((i, k) => [i, texts[k]] as const).filter(([i]) => !i.endsWith('/metadata.js'));
    expect(left.flatMap((name) => others.filter(([, t]) => names(t, name)).map(([i]) => `${name} in ${i}`))).toEqual([]);
    expect(others.filter(([, t]) => /\bFormat\b|\w\[\w+\]\(/.test(t)).map(([i]) => i)).toEqual([]);
    // In metadata.js, a class calls one of those names only as its own method, which it still has.
    const classes = (trimmed as string).split(/^(?=(?:export default )?class \w+ \{$)/m).slice(1);
    expect(classes.map((c) => c.match(/class (\w+)/)?.[1])).toEqual(['Metadata', 'NumberingPlan', 'Type']);
    for (const c of classes) {
      for (const name of left.filter((n) => names(c, n))) {
        const refs = c.match(new RegExp(`\\w+\\.${name}\\b`, 'g')) ?? [];
        expect([name, refs.every((r) => r === `this.${name}`), new RegExp(`^ {2}${name}\\(`, 'm').test(c)]).toEqual([name, true, true]);
      }
    }
    // Another form of the file is bundled as it is.
    expect(metadataForParse(readFileSync(file, 'utf8').replace('  formats() {', '  getFormats() {'))).toBeUndefined();
  });

  it('answer and refuse every number as the full library does, in 20 KB less', async () => {
    const [trimmed, whole] = await Promise.all([bundled(true), bundled(false)]);
    const library = (b: { inputs: string[] }) => new Set(b.inputs.flatMap((i) => i.match(/libphonenumber-js\/(es6(?:-modern)?)\//)?.[1] ?? []));
    expect([library(trimmed), library(whole)]).toEqual([new Set(['es6-modern']), new Set(['es6'])]);
    const texts = examplesWrittenSevenWays();
    texts.push('+0123', '+999 123456', '+1 2', '+44', 'abc', '+1 650 555 1234 5678 9999', '+1 650 555 1234 ext. 7', 'tel:+1-650-555-1234');
    expect(texts.length).toBeGreaterThan(1500);
    const full = (text: string) => parsePhoneNumberWithError(text, { extract: false }).format('E.164');
    const differing = texts.filter((t) => answer(trimmed.toE164, t) !== answer(full, t)).map((t) => [t, answer(trimmed.toE164, t), answer(full, t)]);
    expect(differing).toEqual([]);
    expect(new Set(texts.map((t) => answer(trimmed.toE164, t)).filter((r) => r.startsWith('error:')))).toEqual(
      new Set(['error: INVALID_COUNTRY', 'error: TOO_SHORT', 'error: NOT_A_NUMBER', 'error: TOO_LONG']),
    );
    expect(texts.filter((t) => answer(trimmed.toE164, t).startsWith('+')).length).toBeGreaterThan(1000);
    expect(whole.bytes - trimmed.bytes).toBeGreaterThan(20_000);
  });
});
