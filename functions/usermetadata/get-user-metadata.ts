import { createHttpHandler, type ApiHandler } from '../../lib/http/handler';
import { requiredQueryParam } from '../../lib/http/input';
import { getUserMetadata } from '../../lib/recipes/usermetadata/get-user-metadata';
import { DynamoMetadataStore } from '../../lib/storage/dynamo/dynamo-metadata-store';

/** `GET /recipe/user/metadata?userId=`. */
export const handle: ApiHandler<'metadata'> = (req, deps) => getUserMetadata(deps, requiredQueryParam(req.query, 'userId'));
export const handler = createHttpHandler('usermetadata-get', { metadata: DynamoMetadataStore }, handle);
