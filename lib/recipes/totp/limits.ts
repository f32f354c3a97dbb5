/**
 * The most steps a device may accept either side of now. Beyond the core (which takes any `int`):
 * a check computes 2·skew + 1 codes per device, so an unbounded skew would let one request keep a
 * Lambda busy for its whole timeout. 100 steps of 30 s is ±50 minutes, far past any real clock
 * drift (the core's default is 1; Keycloak and WordPress use up to 4).
 */
export const MAX_SKEW = 100;
