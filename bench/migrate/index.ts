import { auth0 } from './auth0';
import { clerk } from './clerk';
import { cognito } from './cognito';
import { django } from './django';
import { firebaseCsv, firebaseJson } from './firebase';
import { keycloak } from './keycloak';
import type { ExportGenerator } from './people';
import { supabase } from './supabase';
import { supertokens } from './supertokens';
import { wordpress } from './wordpress';

/**
 * The export generators of the mapping figure (bench/README.md, figure 16), one module per
 * source. A new source is measured by adding its module (an `ExportGenerator` writing the
 * population of `./people.ts` in its format) and one line here; a source of `SOURCES` with no
 * generator shows as "no generator" in the table.
 */
export const GENERATORS: readonly ExportGenerator[] = [firebaseJson, firebaseCsv, auth0, cognito, supabase, keycloak, django, wordpress, clerk, supertokens];

export type { ExportGenerator } from './people';
