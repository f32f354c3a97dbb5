import { createHttpHandler, type ApiHandler } from '../../lib/http/handler';
import { requiredJsonObject, requiredString } from '../../lib/http/input';
import { updateUserMetadata } from '../../lib/recipes/usermetadata/update-user-metadata';
import { DynamoMetadataStore } from '../../lib/storage/dynamo/dynamo-metadata-store';

/** `PUT /recipe/user/metadata` `{"userId","metadataUpdate"}`. */
export const handle: ApiHandler<'metadata'> = (req, deps) =>
  updateUserMetadata(deps, requiredString(req.body, 'userId'), requiredJsonObject(req.body, 'metadataUpdate'));
export const handler = createHttpHandler('usermetadata-update', { metadata: DynamoMetadataStore }, handle);
