import { auth0 } from './auth0';
import { firebaseCsv, firebaseJson } from './firebase';
import type { ExportGenerator } from './people';
import { supabase } from './supabase';
import { supertokens } from './supertokens';

/**
 * The export generators of the mapping figure (bench/README.md, figure 16), one module per
 * source. A new source is measured by adding its module (an `ExportGenerator` writing the
 * population of `./people.ts` in its format) and one line here; a source of `SOURCES` with no
 * generator shows as "no generator" in the table.
 */
export const GENERATORS: readonly ExportGenerator[] = [firebaseJson, firebaseCsv, auth0, supabase, supertokens];

export type { ExportGenerator } from './people';
