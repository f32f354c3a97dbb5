#!/usr/bin/env node
'use strict';
// The package's `auth-core-migrate` command: the migration command bundled by `npm run build`.
const { existsSync } = require('node:fs');
const { join } = require('node:path');

const bundle = join(__dirname, '..', 'dist', 'cli', 'migrate.js');
if (!existsSync(bundle)) {
  process.stderr.write(`auth-core-migrate: ${bundle} is missing: run npm run build first\n`);
  process.exit(2);
}
require(bundle);
