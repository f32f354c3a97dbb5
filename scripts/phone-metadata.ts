import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { e164Metadata } from '../lib/phone/metadata-build';

/** `npm run phone-metadata`: writes `lib/phone/metadata.json` from the installed libphonenumber-js (after upgrading it). */
const min = require('libphonenumber-js/metadata.min.json');
writeFileSync(join(__dirname, '..', 'lib', 'phone', 'metadata.json'), JSON.stringify(e164Metadata(min)) + '\n');
process.stdout.write('wrote lib/phone/metadata.json\n');
