import { createHttpHandler, SUPPORTED_CDI_VERSIONS } from '../../lib/http/handler';

/** `GET /apiversion`: the CDI versions this service speaks. */
export const handler = createHttpHandler('api-version', {}, async () => ({ versions: [...SUPPORTED_CDI_VERSIONS] }));
