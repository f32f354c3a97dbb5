import { createHttpHandler, type ApiHandler } from '../../lib/http/handler';
import { requiredString } from '../../lib/http/input';
import { removeUserMetadata } from '../../lib/recipes/usermetadata/remove-user-metadata';
import { DynamoMetadataStore } from '../../lib/storage/dynamo/dynamo-metadata-store';

/** `POST /recipe/user/metadata/remove` `{"userId"}`. */
export const handle: ApiHandler<'metadata'> = (req, deps) => removeUserMetadata(deps, requiredString(req.body, 'userId'));
export const handler = createHttpHandler('usermetadata-remove', { metadata: DynamoMetadataStore }, handle);
