import type { RecipeId } from '../storage/model';
import { BadRequestError } from './errors';

const RECIPES: readonly RecipeId[] = ['emailpassword', 'thirdparty', 'passwordless'];

/** Reads the `rid` header (which recipe a shared path addresses); `undefined` when absent. */
export function readRid(headers: Readonly<Record<string, string>>): RecipeId | undefined {
  const rid = headers['rid']?.trim().toLowerCase();
  if (rid === undefined || rid === '') return undefined;
  if (!(RECIPES as readonly string[]).includes(rid)) {
    throw new BadRequestError('Header rid must be one of emailpassword, thirdparty or passwordless');
  }
  return rid as RecipeId;
}
