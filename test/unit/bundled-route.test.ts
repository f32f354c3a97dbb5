import { bundledRoute } from '../../lib/http/bundled-route';
import { routeDefine, ROUTE_CONSTANT } from '../../infra/bundling';
import { handlerRouteOf, routeById } from '../../infra/routes';

const global = globalThis as Record<string, unknown>;

describe('bundledRoute', () => {
  afterEach(() => {
    delete global[ROUTE_CONSTANT];
  });

  it('refuses a handler run without the route its bundle should carry', () => {
    expect(() => bundledRoute('user-get')).toThrow('The handler of route user-get was bundled without its route');
  });

  it('refuses a bundle built for another route', () => {
    global[ROUTE_CONSTANT] = handlerRouteOf(routeById('hello'));
    expect(() => bundledRoute('user-get')).toThrow('The handler of route user-get was bundled as route hello');
  });

  it('answers the route the build defined, as the build defines it', () => {
    global[ROUTE_CONSTANT] = JSON.parse(routeDefine('bulkimport-stage')[ROUTE_CONSTANT]);
    expect(bundledRoute('bulkimport-stage')).toEqual({
      id: 'bulkimport-stage',
      method: 'POST',
      path: '/bulk-import/users',
      auth: 'apiKey',
      scope: 'app',
      maxBodyBytes: 6_000_000,
      bulk: true,
      tooLargeText: 'Request body is larger than 6 MB: send fewer users per request',
    });
  });

  it('defines nothing for a function no route calls', () => {
    expect(routeDefine('bulkimport-worker')).toEqual({});
  });
});
